//! The registry of fuzz targets. Each target is a plain function over the
//! fuzzer's bytes that passes on every input except a real finding, for
//! which it returns a [`Failure`] naming what went wrong.

#[cfg(feature = "regalloc2")]
pub mod checker_agreement;
pub mod checker_soundness;
pub mod differential;
mod domtree;
mod moves;
mod ssagen;

use crate::context::Context;
use crate::failure::Failure;
use crate::profile::Narrowing;
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
    /// A case of this generator config.
    Generate(::ssagen::Config),
    /// A case of the config [`differential_config`] picks by the first
    /// byte, less what the narrowing leaves out.
    Differential(Narrowing),
    /// The bytes themselves.
    Bytes,
}

impl Decode {
    /// The case `data` generates and the bytes the generator left, for a
    /// target whose input is a case; `None` for one that takes bytes.
    pub fn generate<'a>(&self, data: &'a [u8]) -> Option<(Case, &'a [u8])> {
        let generate = |config: &::ssagen::Config, data: &'a [u8]| {
            let mut u = Unstructured::new(data);
            let case = ::ssagen::generate(&mut u, config);
            (case, u.take_rest())
        };
        match self {
            Decode::Bytes => None,
            Decode::Generate(config) => Some(generate(config, data)),
            Decode::Differential(n) => {
                let (config, rest) = differential_config(data);
                Some(generate(&n.config(&config), rest))
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
    /// What the command line narrowed the generated cases to (replay
    /// commands repeat it).
    pub narrowing: Narrowing,
}

impl Target {
    /// This target on cases narrowed by `n`: the profile's config instead
    /// of its own (when `n` names one), less the features `n` leaves out.
    /// Targets whose input is not a case are unchanged.
    pub fn narrowed(&self, n: &Narrowing) -> Target {
        let mut t = self.clone();
        t.decode = match &self.decode {
            Decode::Generate(c) => Decode::Generate(n.config(c)),
            Decode::Differential(_) if n.profile.is_some() => {
                Decode::Generate(n.config(&::ssagen::Config::default()))
            }
            Decode::Differential(_) => Decode::Differential(n.clone()),
            Decode::Bytes => Decode::Bytes,
        };
        t.narrowing = n.clone();
        t
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
    match crate::panics::catch(check) {
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
        ssagen::note_case(case);
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

/// The generator config `differential` uses for `data`, and the bytes left
/// for it: with regalloc2 among the allocators, an input whose first byte
/// is odd gets [`::ssagen::Config::regalloc2`] (so that regalloc2 takes
/// part); with the `regalloc` crate, one whose first byte is 2 modulo 4
/// gets [`::ssagen::Config::regalloc_rs_lsra`] (so that both its
/// allocators do); every other input the default config, over all its
/// bytes.
pub fn differential_config(data: &[u8]) -> (::ssagen::Config, &[u8]) {
    match data.first() {
        Some(b) if cfg!(feature = "regalloc2") && b & 1 == 1 => {
            (::ssagen::Config::regalloc2(), &data[1..])
        }
        Some(b) if cfg!(feature = "regalloc_rs") && b & 3 == 2 => {
            (::ssagen::Config::regalloc_rs_lsra(), &data[1..])
        }
        _ => (::ssagen::Config::default(), data),
    }
}

/// Every target, in a fixed order.
pub fn targets() -> Vec<Target> {
    [
        Target {
            name: "ssagen",
            description: "the generator's case must validate, be feasible and round-trip through the text format",
            decode: Decode::Generate(::ssagen::Config::default()),
            body: case_body(false, |c, _| ssagen::check_case(c)),
            stats: None,
            narrowing: Narrowing::default(),
        },
        Target {
            name: "domtree",
            description: "dominators must match a naive dataflow and hold along a random path",
            decode: Decode::Generate(::ssagen::Config::cfg_only()),
            body: Arc::new(domtree::check),
            stats: None,
            narrowing: Narrowing::default(),
        },
        Target {
            name: "moves",
            description: "resolved parallel moves must pass the abstract interpreter",
            decode: Decode::Bytes,
            body: Arc::new(moves::check),
            stats: None,
            narrowing: Narrowing::default(),
        },
        Target {
            name: "checker_soundness",
            description: "every allocator passes both oracles; mutants the interpreter catches, the checker must reject",
            decode: Decode::Generate(::ssagen::Config::default()),
            body: Arc::new(checker_soundness::check),
            stats: Some(|ctx| ctx.mutants.report()),
            narrowing: Narrowing::default(),
        },
        Target {
            name: "differential",
            description: "every allocator on one case: both oracles, the same values at every use, quality compared",
            decode: Decode::Differential(Narrowing::default()),
            body: case_body(true, differential::check_case),
            stats: Some(|ctx| ctx.quality.report()),
            narrowing: Narrowing::default(),
        },
    ]
    .into_iter()
    .chain(agreement())
    .chain(crate::allocators().into_iter().map(differential::checker_target))
    .collect()
}

/// `checker_agreement`, when regalloc2's checker is built in.
fn agreement() -> Option<Target> {
    #[cfg(feature = "regalloc2")]
    return Some(Target {
        name: "checker_agreement",
        description: "our checker and regalloc2's give the same verdict on every allocator's output and on mutants of it",
        decode: Decode::Differential(Narrowing::default()),
        body: Arc::new(checker_agreement::check),
        stats: Some(|ctx| ctx.verdicts.report()),
        narrowing: Narrowing::default(),
    });
    #[cfg(not(feature = "regalloc2"))]
    None
}

/// The target called `name`, including the test-only ones: `planted` and
/// the `fault_*` targets, one per allocator of [`crate::faults::FAULTY`].
pub fn target_by_name(name: &str) -> Option<Target> {
    targets()
        .into_iter()
        .chain([planted()])
        .chain(crate::faults::FAULTY.iter().map(|a| Target {
            name: a.target_name(),
            description: "test only: linear_scan with a planted bug, both oracles",
            decode: Decode::Generate(::ssagen::Config::default()),
            body: case_body(true, move |case, ctx| {
                differential::allocator_check(a, case, ctx)
            }),
            stats: None,
            narrowing: Narrowing::default(),
        }))
        .find(|t| t.name == name)
}

/// The input that makes `planted` fail.
pub const PLANTED_MAGIC: &[u8] = b"RAFZ!";

/// A test-only target, never in [`targets`]: it fails on inputs that start
/// with [`PLANTED_MAGIC`], and notes how many leading bytes match so that a
/// feature-guided engine can climb to it. It proves that every engine
/// wrapper and script really reports a crash.
pub fn planted() -> Target {
    Target {
        name: "planted",
        description: "test only: fails on inputs starting with RAFZ!",
        decode: Decode::Bytes,
        body: Arc::new(|input: &Input, _: &Context| {
            let Input::Bytes(data) = *input else {
                panic!("planted runs on bytes");
            };
            let n = data
                .iter()
                .zip(PLANTED_MAGIC)
                .take_while(|(a, b)| a == b)
                .count();
            crate::features::note("planted_prefix", n as u64);
            // One branch per byte, so that coverage-guided engines (which
            // see edges, not our features) climb the magic byte by byte.
            if data.first() == Some(&b'R')
                && data.get(1) == Some(&b'A')
                && data.get(2) == Some(&b'F')
                && data.get(3) == Some(&b'Z')
                && data.get(4) == Some(&b'!')
            {
                panic!("planted: the magic input was found");
            }
            Ok(())
        }),
        stats: None,
        narrowing: Narrowing::default(),
    }
}
