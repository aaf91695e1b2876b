//! What `rafuzz` ends with and where it writes: one meaning per exit status
//! in every subcommand, results on stdout and every error on stderr, so
//! that `rafuzz alloc case.ra > out.ra` never hides an error in `out.ra`.

use std::io::Write;

/// A subcommand's exit status. Ordered by gravity: a command over several
/// files ends with the gravest status of any of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// 0: all well.
    Ok = 0,
    /// 1: something failed that the command exists to find: an invalid or
    /// malformed case, a rejected allocation, an allocator's failure, a
    /// fuzz finding, a comparison over its gate.
    Failed = 1,
    /// 2: the command was used wrongly: a bad argument, an unknown
    /// allocator, target or profile, nothing to run on.
    Usage = 2,
    /// 3: the command could not do its work: a file it could not read or
    /// write, a worker process that could not start.
    Internal = 3,
}

impl Exit {
    /// `Failed` when `failed`, else `Ok`.
    pub fn failed_if(failed: bool) -> Exit {
        if failed {
            Exit::Failed
        } else {
            Exit::Ok
        }
    }

    /// The status a process exit code stands for (a lower layer's code).
    pub fn from_code(code: i32) -> Exit {
        match code {
            0 => Exit::Ok,
            1 => Exit::Failed,
            2 => Exit::Usage,
            _ => Exit::Internal,
        }
    }

    /// The process exit status.
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// The two streams a subcommand writes to: its results, and its errors.
pub struct Streams<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
}

impl Streams<'_> {
    /// Writes `message` on the error stream and returns `exit`.
    pub fn fail(&mut self, exit: Exit, message: impl std::fmt::Display) -> Exit {
        let _ = writeln!(self.err, "{message}");
        exit
    }
}

/// A message for stderr with the status it ends the command with.
#[derive(Debug)]
pub struct Error {
    pub exit: Exit,
    pub message: String,
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Error {
        Error {
            exit: Exit::Usage,
            message: message.into(),
        }
    }

    pub fn internal(message: impl Into<String>) -> Error {
        Error {
            exit: Exit::Internal,
            message: message.into(),
        }
    }
}
