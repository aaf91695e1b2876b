//! The harness's half of the protocol: the outside program as an
//! [`Allocator`], started once per worker thread and restarted after a
//! crash or a timeout, and the process-wide registration under [`NAME`].

use allocator::{AllocError, Allocator, Case, Function, MachineEnv, Output};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The name the outside allocator is registered under.
pub const NAME: &str = "cmd";

/// The target that fuzzes the registered program: `<NAME>_checker`.
pub const TARGET: &str = "cmd_checker";

/// How long the program may take over one case unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(crate::spec::DEFAULT_CMD_TIMEOUT_MS);

/// Lines of the program's stderr kept for a crash report.
const STDERR_LINES: usize = 10;

/// A running instance of the program.
struct Proc {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl Proc {
    fn start(command: &str) -> Result<Proc, String> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{command}`: {e}"))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr_pipe = child.stderr.take().expect("piped");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let keep = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines() {
                let Ok(line) = line else { break };
                let mut q = keep.lock().unwrap();
                if q.len() == STDERR_LINES {
                    q.pop_front();
                }
                q.push_back(line);
            }
        });
        Ok(Proc {
            child,
            stdin,
            lines,
            stderr,
        })
    }

    /// Why the program is gone: its exit status and last stderr lines.
    fn death(&mut self) -> String {
        // Give the stderr reader a moment to catch the last words.
        let status = self
            .child
            .wait()
            .map_or("unknown status".into(), |s| s.to_string());
        std::thread::sleep(Duration::from_millis(20));
        let tail: Vec<String> = self.stderr.lock().unwrap().iter().cloned().collect();
        if tail.is_empty() {
            format!("the program exited ({status}) before answering")
        } else {
            format!(
                "the program exited ({status}) before answering\nits last stderr lines:\n{}",
                tail.join("\n")
            )
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends one case and collects the reply's lines.
    fn ask(&mut self, case_text: &str, timeout: Duration) -> Result<Vec<String>, String> {
        if self
            .stdin
            .write_all(case_text.as_bytes())
            .and_then(|_| self.stdin.flush())
            .is_err()
        {
            return Err(self.death());
        }
        let deadline = Instant::now() + timeout;
        let mut reply = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let t = line.trim();
                    if reply.is_empty() && (t.is_empty() || t.starts_with('#')) {
                        continue;
                    }
                    let single = reply.is_empty()
                        && (t.starts_with("unsupported:") || t.starts_with("error:"));
                    let done = single || t == "end";
                    reply.push(line);
                    if done {
                        return Ok(reply);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return Err(format!(
                        "the program did not answer within {} ms",
                        timeout.as_millis()
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.death()),
            }
        }
    }
}

/// The outside program as an [`Allocator`]; see the module doc.
pub struct External {
    command: String,
    timeout: Duration,
    /// One program per worker thread; a slot is empty until first used and
    /// after the program died.
    procs: Vec<Mutex<Option<Proc>>>,
}

impl External {
    pub fn new(command: &str, timeout: Duration) -> External {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        External {
            command: command.to_string(),
            timeout,
            procs: (0..n).map(|_| Mutex::new(None)).collect(),
        }
    }

    pub fn command(&self) -> &str {
        &self.command
    }
}

impl Drop for External {
    fn drop(&mut self) {
        for p in &self.procs {
            if let Some(mut p) = p.lock().unwrap().take() {
                p.kill();
            }
        }
    }
}

impl Allocator for External {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, func: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        let case = Case {
            machine: env.clone(),
            func: func.clone(),
            output: None,
        };
        let text = allocator::ir::text::print(&case);
        let mut slot = self
            .procs
            .iter()
            .find_map(|p| p.try_lock().ok())
            .unwrap_or_else(|| self.procs[0].lock().unwrap());
        if slot.is_none() {
            *slot = Some(Proc::start(&self.command).map_err(AllocError::Failed)?);
        }
        let proc = slot.as_mut().expect("started above");
        let reply = match proc.ask(&text, self.timeout) {
            Ok(r) => r,
            Err(e) => {
                *slot = None;
                return Err(AllocError::Failed(e));
            }
        };
        drop(slot);
        parse_reply(&text, &reply)
    }
}

/// Turns the program's reply to the case `case_text` into an output.
fn parse_reply(case_text: &str, reply: &[String]) -> Result<Output, AllocError> {
    let first = reply.first().map_or("", |l| l.trim());
    if let Some(why) = first.strip_prefix("unsupported:") {
        return Err(AllocError::Unsupported(why.trim().to_string()));
    }
    if let Some(why) = first.strip_prefix("error:") {
        return Err(AllocError::Impossible(why.trim().to_string()));
    }
    let mut full = String::with_capacity(case_text.len() + 64 * reply.len());
    full.push_str(case_text);
    for l in reply {
        full.push_str(l);
        full.push('\n');
    }
    let offset = case_text.lines().count();
    match allocator::ir::text::parse_and_validate(full.as_bytes()) {
        Ok((c, _)) => c
            .output
            .ok_or_else(|| AllocError::Failed("the reply holds no allocation section".to_string())),
        Err(diags) => {
            let d = &diags[0];
            Err(AllocError::Failed(format!(
                "the reply is not an allocation of the case: {d} (the reply starts at line {})\nreply:\n{}",
                offset + 1,
                reply.join("\n")
            )))
        }
    }
}

static REGISTERED: OnceLock<External> = OnceLock::new();

/// Registers the outside program (once per process): from then on
/// [`crate::allocators`] includes it as `cmd`. Registering another command
/// is an error.
pub fn register(command: &str, timeout: Duration) -> Result<&'static External, String> {
    let e = REGISTERED.get_or_init(|| External::new(command, timeout));
    if e.command != command {
        return Err(format!(
            "an outside allocator is already registered (`{}`)",
            e.command
        ));
    }
    Ok(e)
}

/// The registered outside allocator, if any.
pub fn registered() -> Option<&'static External> {
    REGISTERED.get()
}

/// `--allocator` spelling of an outside program: `cmd:PROGRAM ARGS`.
pub fn command_of(spec: &str) -> Option<&str> {
    spec.strip_prefix("cmd:")
}
