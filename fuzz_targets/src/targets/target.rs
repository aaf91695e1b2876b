//! What a fuzz target is ([`Target`]): a name, how it decodes the fuzzer's
//! bytes ([`Decode`]) and the one body that checks the input ([`Body`]),
//! with the helpers every body shares. The list of targets is the parent
//! module's.

use crate::books::context::Context;
use crate::harness::narrowing::Narrowing;
use crate::judging::failure::Failure;
use crate::registry::{self, Profile, DEFAULT};
use allocator::Case;
use arbitrary::Unstructured;
use std::sync::Arc;

/// What a target checks: a case (generated from the input, or read from a
/// `.ra` file), or the raw bytes for targets whose input is not a case.
#[derive(Clone, Copy)]
pub enum Input<'a> {
    Case {
        case: &'a Case,
        /// The bytes the generator left, for the body's further choices
        /// (mutations, a random path). `None` for a case given directly:
        /// the body skips what needs them, and does not print the case in
        /// its messages, since the user holds it already.
        rest: Option<&'a [u8]>,
    },
    Bytes(&'a [u8]),
}

/// How a target turns the fuzzer's bytes into its [`Input`].
#[derive(Clone)]
pub enum Decode {
    /// A case of this profile, narrowed.
    Generate(&'static Profile, Narrowing),
    /// A case of the profile [`differential_config`] picks by the first
    /// byte, narrowed.
    Differential(Narrowing),
    /// The bytes themselves.
    Bytes,
}

impl Decode {
    /// The case `data` generates and the bytes the generator left, for a
    /// target whose input is a case; `None` for one that takes bytes. An
    /// input that is the text of a case (a `.ra` seed or a mutant of one)
    /// is that case, with no bytes left.
    pub fn generate<'a>(&self, data: &'a [u8]) -> Option<(Case, &'a [u8])> {
        if matches!(self, Decode::Bytes) {
            return None;
        }
        if let Some(case) = crate::harness::inputs::case_text(data) {
            return Some((case, &[]));
        }
        let generate = |config: &::ssagen::Config, data: &'a [u8]| {
            let mut u = Unstructured::new(data);
            let case = ::ssagen::generate(&mut u, config);
            (case, u.take_rest())
        };
        match self {
            Decode::Bytes => None,
            Decode::Generate(p, n) => Some(generate(&n.config(p), data)),
            Decode::Differential(n) => {
                let (p, rest) = differential_config(data);
                Some(generate(&n.config(p), rest))
            }
        }
    }
}

/// A target's body: checks one input in one campaign, `Err` on a finding.
pub type Body = Arc<dyn Fn(&Input, &Context) -> Result<(), Failure> + Send + Sync>;

/// A fuzz target: a name, a one-line description, how it decodes its input
/// and the one body that checks it. The engine wrappers, `rafuzz run` (on
/// raw inputs and on `.ra` cases), the reducer and the case saved beside a
/// finding all go through [`Target::decode`] and [`Target::body`].
#[derive(Clone)]
pub struct Target {
    pub name: &'static str,
    pub description: &'static str,
    pub decode: Decode,
    pub body: Body,
    /// The counters the target keeps in a campaign, as one report, if any.
    pub stats: Option<fn(&Context) -> String>,
}

impl Target {
    /// This target on cases narrowed by `n`: the profile's config instead
    /// of its own (when `n` names one), less the features `n` leaves out.
    /// Targets whose input is not a case are unchanged.
    pub fn narrowed(&self, n: &Narrowing) -> Target {
        let mut t = self.clone();
        t.decode = match &self.decode {
            Decode::Generate(p, _) => Decode::Generate(p, n.clone()),
            Decode::Differential(_) if n.profile.is_some() => Decode::Generate(&DEFAULT, n.clone()),
            Decode::Differential(_) => Decode::Differential(n.clone()),
            Decode::Bytes => Decode::Bytes,
        };
        t
    }

    /// What the command line narrowed the generated cases to (replay
    /// commands repeat it); nothing for a target whose input is not a case.
    pub fn narrowing(&self) -> Narrowing {
        match &self.decode {
            Decode::Generate(_, n) | Decode::Differential(n) => n.clone(),
            Decode::Bytes => Narrowing::default(),
        }
    }

    /// Checks the fuzzer's bytes `data`: `Err` on a finding (a panic of the
    /// target's own code propagates; see [`Target::failure`]).
    pub fn check(&self, data: &[u8], ctx: &Context) -> Result<(), Failure> {
        match self.decode.generate(data) {
            Some((case, rest)) => (self.body)(
                &Input::Case {
                    case: &case,
                    rest: Some(rest),
                },
                ctx,
            ),
            None => (self.body)(&Input::Bytes(data), ctx),
        }
    }

    /// What `data` finds: the target's failure, or a panic of its code.
    pub fn failure(&self, data: &[u8], ctx: &Context) -> Option<Failure> {
        caught(|| self.check(data, ctx))
    }

    /// The generator config of the target's cases (what a structure-aware
    /// mutation of them stays within), for a target whose input is a case.
    pub fn config(&self) -> Option<::ssagen::Config> {
        match &self.decode {
            Decode::Generate(p, n) => Some(n.config(p)),
            Decode::Differential(n) => Some(n.config(&DEFAULT)),
            Decode::Bytes => None,
        }
    }

    /// Whether the target's input is a case (so that it runs on `.ra` files).
    pub fn takes_cases(&self) -> bool {
        !matches!(self.decode, Decode::Bytes)
    }

    /// What `case` finds, for a target that runs on cases (`None` for the
    /// others). The case must be valid and feasible.
    pub fn case_failure(&self, case: &Case, ctx: &Context) -> Option<Option<Failure>> {
        if !self.takes_cases() {
            return None;
        }
        let input = Input::Case { case, rest: None };
        Some(caught(|| (self.body)(&input, ctx)))
    }

    /// The case the target builds from `data`, when it builds one: saved
    /// beside a finding, and where reduction starts.
    pub fn case_of(&self, data: &[u8]) -> Option<Case> {
        self.decode.generate(data).map(|(case, _)| case)
    }

    /// Runs one input the way an engine wrapper does: panics on a finding,
    /// with `TARGET: SIGNATURE: message` as the panic message.
    pub fn run(&self, data: &[u8], ctx: &Context) {
        if let Err(f) = self.check(data, ctx) {
            panic!("{}: {f}", self.name);
        }
    }
}

/// The failure `check` returns, or its panic as a failure.
fn caught(check: impl FnOnce() -> Result<(), Failure>) -> Option<Failure> {
    match crate::judging::panics::catch(check) {
        Ok(r) => r.err(),
        Err(msg) => Some(Failure::panic(&msg)),
    }
}

/// The body of a target that needs nothing but the case, from `check`:
/// notes the case's features and, when `show_case` is set and the case was
/// generated, appends the printed case to a failure's message.
pub fn case_body(
    show_case: bool,
    check: impl Fn(&Case, &Context) -> Result<(), Failure> + Send + Sync + 'static,
) -> Body {
    Arc::new(move |input: &Input, ctx: &Context| {
        let Input::Case { case, rest } = *input else {
            panic!("a case target was handed bytes");
        };
        super::ssagen::note_case(case);
        check(case, ctx).map_err(|f| match rest {
            Some(_) if show_case => with_case(f, case),
            _ => f,
        })
    })
}

/// `f` with the printed `case` appended to its message.
pub fn with_case(mut f: Failure, case: &Case) -> Failure {
    f.message.push('\n');
    f.message.push_str(&allocator::ir::text::print(case));
    f
}

/// The profile `differential` uses for `data`, and the bytes left for it:
/// the first registry profile whose share of inputs
/// ([`Profile::differential_share`]) takes the first byte, the byte then
/// taken (regalloc2's for odd bytes, so that it takes part; the `regalloc`
/// crate's linear scan's for bytes 2 modulo 4, so that both its allocators
/// do); every other input the default profile, over all its bytes.
pub fn differential_config(data: &[u8]) -> (&'static Profile, &[u8]) {
    let Some(&b) = data.first() else {
        return (&DEFAULT, data);
    };
    match registry::profiles()
        .into_iter()
        .find(|p| b & p.differential_share.0 == p.differential_share.1)
    {
        Some(p) => (p, &data[1..]),
        None => (&DEFAULT, data),
    }
}
