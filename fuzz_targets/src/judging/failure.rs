//! What a target found: a [`Failure`] is a [`Signature`] (the kind of
//! failure, which reduction must preserve) plus a message for a person.
//!
//! The signature names the allocator, the oracle that saw the problem and,
//! where the oracle says more than yes or no, a detail: the kind of the
//! checker's first error, or a panic message with its numbers blanked out
//! (`index out of bounds: the len is # but the index is # (at
//! allocator/src/x.rs:#)`), so that a smaller case that panics at the same
//! place with other numbers keeps the signature, and one that fails
//! anywhere else does not.

use std::fmt;

/// Which oracle, or which stage of the pipeline, saw the failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Oracle {
    /// The allocator returned an error on a feasible case.
    AllocError,
    /// The allocator panicked.
    AllocPanic,
    /// The symbolic checker rejected the allocation.
    Checker,
    /// The interpreter saw a use read a value it should not.
    Interp,
    /// Two allocators read different values along the same path.
    Differential,
    /// The checker accepted a mutant that the interpreter shows wrong.
    Soundness,
    /// A generated case failed the validator.
    Validator,
    /// A generated case broke a feasibility rule.
    Feasibility,
    /// Printing and parsing a case did not give it back.
    RoundTrip,
    /// The move resolver's sequence failed the abstract interpreter.
    Resolver,
    /// The dominator tree disagreed with the naive computation.
    Domtree,
    /// The target's own code panicked (the generator, an analysis).
    Panic,
    /// An outside command (`rafuzz reduce --predicate`) said yes.
    Predicate,
    /// Our checker and regalloc2's disagree on an allocation.
    CrossCheck,
    /// The worker process running the input died: a signal (an abort, a
    /// stack overflow) or an exit in the middle of a run.
    Crash,
    /// The input ran longer than the campaign's `--timeout`.
    Timeout,
    /// The worker running the input grew past `--rss-limit-mb`.
    OutOfMemory,
    /// An allocator took far longer per instruction than it needs on cases
    /// of that size, twice in a row.
    Slow,
    /// An allocator refused a case as having no allocation, and another
    /// allocator's allocation of it passes both oracles (the proof).
    RefusedFeasible,
}

impl Oracle {
    pub fn name(self) -> &'static str {
        match self {
            Oracle::AllocError => "allocator error",
            Oracle::AllocPanic => "allocator panic",
            Oracle::Checker => "checker",
            Oracle::Interp => "interpreter",
            Oracle::Differential => "differential",
            Oracle::Soundness => "checker soundness",
            Oracle::Validator => "validator",
            Oracle::Feasibility => "feasibility",
            Oracle::RoundTrip => "round trip",
            Oracle::Resolver => "move resolver",
            Oracle::Domtree => "domtree",
            Oracle::Panic => "panic",
            Oracle::Predicate => "predicate",
            Oracle::CrossCheck => "cross-check",
            Oracle::Crash => "crash",
            Oracle::Timeout => "timeout",
            Oracle::OutOfMemory => "oom",
            Oracle::Slow => "slow",
            Oracle::RefusedFeasible => "refused-feasible",
        }
    }

    /// Every oracle, in declaration order (the wire format of worker
    /// processes names an oracle by its index here).
    pub const ALL: [Oracle; 19] = [
        Oracle::AllocError,
        Oracle::AllocPanic,
        Oracle::Checker,
        Oracle::Interp,
        Oracle::Differential,
        Oracle::Soundness,
        Oracle::Validator,
        Oracle::Feasibility,
        Oracle::RoundTrip,
        Oracle::Resolver,
        Oracle::Domtree,
        Oracle::Panic,
        Oracle::Predicate,
        Oracle::CrossCheck,
        Oracle::Crash,
        Oracle::Timeout,
        Oracle::OutOfMemory,
        Oracle::Slow,
        Oracle::RefusedFeasible,
    ];

    /// The kind of finding, which names its saved file (`crash-`,
    /// `timeout-`, `oom-`, `slow-`, as libFuzzer names its artifacts, and
    /// `refused-feasible-`).
    pub fn kind(self) -> &'static str {
        match self {
            Oracle::Timeout => "timeout",
            Oracle::OutOfMemory => "oom",
            Oracle::Slow => "slow",
            Oracle::RefusedFeasible => "refused-feasible",
            _ => "crash",
        }
    }

    /// Whether an input of this kind may take the process that runs it
    /// down (or never come back), so it must run in a worker process.
    pub fn needs_isolation(self) -> bool {
        matches!(self, Oracle::Crash | Oracle::Timeout | Oracle::OutOfMemory)
    }
}

/// The kind of a failure: equal signatures mean "fails the same way".
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Signature {
    /// The allocator whose output (or whose run) failed, if any.
    pub allocator: Option<&'static str>,
    pub oracle: Oracle,
    /// The checker error kind, a normalized panic or error message, or
    /// empty.
    pub detail: String,
}

impl Signature {
    pub fn new(allocator: Option<&'static str>, oracle: Oracle, detail: &str) -> Signature {
        Signature {
            allocator,
            oracle,
            detail: normalize(detail),
        }
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(a) = self.allocator {
            write!(f, "{a}: ")?;
        }
        f.write_str(self.oracle.name())?;
        if !self.detail.is_empty() {
            write!(f, " [{}]", self.detail)?;
        }
        Ok(())
    }
}

/// A finding: its signature and a message naming the instruction, operand,
/// vreg and allocation involved (and, for generated cases, the case).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub signature: Signature,
    pub message: String,
    /// For a `refused-feasible` finding: the case with an allocation both
    /// oracles accept, as text, saved beside the finding as `.proof.ra`.
    pub proof: Option<String>,
}

impl Failure {
    pub fn new(signature: Signature, message: impl Into<String>) -> Failure {
        Failure {
            signature,
            message: message.into(),
            proof: None,
        }
    }

    /// A panic of the target's own code, from [`crate::judging::panics::catch`].
    pub fn panic(message: &str) -> Failure {
        Failure::new(Signature::new(None, Oracle::Panic, message), message)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.signature, self.message)
    }
}

/// The first line of `s` with every number blanked to `#` (decimal runs and
/// `0x` hexadecimal), so that signatures do not depend on indices, lengths
/// or hashes.
pub fn normalize(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let hex = b[i] == b'0' && b.get(i + 1) == Some(&b'x');
            i += if hex { 2 } else { 1 };
            while i < b.len()
                && (b[i].is_ascii_digit() || hex && b[i].is_ascii_hexdigit() || b[i] == b'_')
            {
                i += 1;
            }
            out.push('#');
        } else {
            let ch = line[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_blanks_numbers_and_keeps_words() {
        assert_eq!(
            normalize("index out of bounds: the len is 3 but the index is 17 (at a/b.rs:12)\nmore"),
            "index out of bounds: the len is # but the index is # (at a/b.rs:#)"
        );
        assert_eq!(normalize("v12i in p3i, 0xdead_beef"), "v#i in p#i, #");
        assert_eq!(normalize("block2 -> é9"), "block# -> é#");
        assert_eq!(normalize(""), "");
    }

    #[test]
    fn signatures_compare_kind_not_numbers() {
        let a = Signature::new(Some("x"), Oracle::AllocPanic, "len 3 at 4");
        let b = Signature::new(Some("x"), Oracle::AllocPanic, "len 9 at 1");
        let c = Signature::new(Some("y"), Oracle::AllocPanic, "len 9 at 1");
        let d = Signature::new(Some("x"), Oracle::Checker, "len 9 at 1");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(b, d);
        assert_eq!(a.to_string(), "x: allocator panic [len # at #]");
        assert_eq!(
            Failure::new(Signature::new(None, Oracle::Interp, ""), "m").to_string(),
            "interpreter: m"
        );
    }
}
