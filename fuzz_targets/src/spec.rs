//! What decides what a campaign runs, in one place: the cases generated
//! from fuzzer bytes ([`CaseSpec`]) and how each case is run and judged
//! ([`RunSpec`]). Every subcommand that takes them flattens them into its
//! arguments; a worker process gets them back as arguments
//! ([`CaseSpec::to_args`], [`RunSpec::to_args`]), and the engine wrappers
//! read them from the environment ([`CaseSpec::from_env`]), here and
//! nowhere else. A leaf: the names are resolved by
//! [`crate::harness::narrowing::Narrowing::resolve`].

use clap::Args;

/// The cases every target that generates cases makes: a profile, features
/// left out, swarm generation, and outside allocators' known bugs (which
/// widen the profile and stop being suppressed).
#[derive(Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct CaseSpec {
    /// Generate the cases of this profile (default, regalloc2,
    /// regalloc2_fastalloc, regalloc_rs, regalloc_rs_lsra; cranelift,
    /// cranelift-aarch64, cranelift-riscv64: real code's shape) in every
    /// target that generates cases.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Within a profile calibrated on several programs (the cranelift
    /// ones), generate one program's code: c (SQLite), cpp (libjxl), rust
    /// (tiktoken) or go (esbuild). Without it each case draws one, by the
    /// program's share of the captured functions.
    #[arg(long, value_name = "NAME")]
    pub style: Option<String>,
    /// Leave these features out of the generated cases (names as in
    /// `rafuzz gen --stats`: reuse,limit,branch-operands,...).
    #[arg(long, value_name = "FEATURE,...", value_delimiter = ',')]
    pub without: Vec<String>,
    /// Run outside allocators on their known bugs instead of suppressing
    /// them (docs/regalloc2.md), and generate those bugs' cases in the
    /// profiles that leave them out: to check a fix.
    #[arg(long)]
    pub no_suppress: bool,
    /// Swarm generation: each case draws which of the profile's features
    /// it uses, and how heavily, instead of using the profile as it is.
    #[arg(long)]
    pub swarm: bool,
}

impl CaseSpec {
    /// The command-line words that give this spec again.
    pub fn to_args(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(p) = &self.profile {
            v.extend(["--profile".to_string(), p.clone()]);
        }
        if let Some(s) = &self.style {
            v.extend(["--style".to_string(), s.clone()]);
        }
        if !self.without.is_empty() {
            v.extend(["--without".to_string(), self.without.join(",")]);
        }
        if self.no_suppress {
            v.push("--no-suppress".to_string());
        }
        if self.swarm {
            v.push("--swarm".to_string());
        }
        v
    }

    /// The spec the engine wrappers read from `RAFUZZ_PROFILE`,
    /// `RAFUZZ_STYLE`, `RAFUZZ_WITHOUT`, `RAFUZZ_NO_SUPPRESS` and `RAFUZZ_SWARM` (the last
    /// two: set and not `0`).
    pub fn from_env() -> CaseSpec {
        let on = |name: &str| std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0");
        CaseSpec {
            profile: std::env::var("RAFUZZ_PROFILE")
                .ok()
                .filter(|p| !p.is_empty()),
            style: std::env::var("RAFUZZ_STYLE").ok().filter(|s| !s.is_empty()),
            // Split into names when resolved, as `--without A,B` is.
            without: std::env::var("RAFUZZ_WITHOUT").ok().into_iter().collect(),
            no_suppress: on("RAFUZZ_NO_SUPPRESS"),
            swarm: on("RAFUZZ_SWARM"),
        }
    }
}

/// How each case is run and judged, besides what the targets do anyway.
#[derive(Args, Clone, Debug, PartialEq, Eq)]
pub struct RunSpec {
    /// Also run regalloc2's checker on every allocation and report any
    /// disagreement with ours as a finding.
    #[arg(long)]
    pub cross_check: bool,
    /// Do not report allocator runs far slower than the allocator's
    /// median on cases of their size (`slow` findings).
    #[arg(long)]
    pub no_slow: bool,
    /// A run is slow at this many times the allocator's median time per
    /// instruction on cases of its size, or more.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SLOW_RATIO,
          value_parser = clap::value_parser!(u32).range(2..))]
    pub slow_ratio: u32,
    /// Guide the campaign by the edge coverage of the allocator under
    /// test too: a build of `scripts/coverage-build.sh`.
    #[arg(long)]
    pub coverage: bool,
    /// Add an outside program as allocator `cmd` (it joins
    /// `differential` and gets the `cmd_checker` target).
    #[arg(long = "allocator", value_name = "cmd:PROGRAM ARGS")]
    pub program: Option<String>,
    /// How long the outside program may take over one case.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_CMD_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub cmd_timeout: u64,
}

/// `--cmd-timeout`'s default, in milliseconds.
pub const DEFAULT_CMD_TIMEOUT_MS: u64 = 5000;

/// `--slow-ratio`'s default.
pub const DEFAULT_SLOW_RATIO: u32 = 20;

impl Default for RunSpec {
    fn default() -> RunSpec {
        RunSpec {
            cross_check: false,
            no_slow: false,
            slow_ratio: DEFAULT_SLOW_RATIO,
            coverage: false,
            program: None,
            cmd_timeout: DEFAULT_CMD_TIMEOUT_MS,
        }
    }
}

impl RunSpec {
    /// The command-line words that give this spec again.
    pub fn to_args(&self) -> Vec<String> {
        let mut v = Vec::new();
        if self.cross_check {
            v.push("--cross-check".to_string());
        }
        if self.no_slow {
            v.push("--no-slow".to_string());
        }
        if self.slow_ratio != DEFAULT_SLOW_RATIO {
            v.extend(["--slow-ratio".to_string(), self.slow_ratio.to_string()]);
        }
        if self.coverage {
            v.push("--coverage".to_string());
        }
        if let Some(p) = &self.program {
            v.extend(["--allocator".to_string(), p.clone()]);
        }
        if self.cmd_timeout != DEFAULT_CMD_TIMEOUT_MS {
            v.extend(["--cmd-timeout".to_string(), self.cmd_timeout.to_string()]);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Both {
        #[command(flatten)]
        cases: CaseSpec,
        #[command(flatten)]
        run: RunSpec,
    }

    /// What a worker process is given is what the campaign was given.
    #[test]
    fn specs_round_trip_through_their_arguments() {
        let cases = CaseSpec {
            profile: Some("cranelift".into()),
            style: Some("go".into()),
            without: vec!["reuse".into(), "limit".into()],
            no_suppress: true,
            swarm: true,
        };
        let run = RunSpec {
            cross_check: true,
            no_slow: true,
            slow_ratio: 8,
            coverage: true,
            program: Some("cmd:./my allocator --flag".into()),
            cmd_timeout: 250,
        };
        for (c, r) in [
            (cases.clone(), run.clone()),
            (CaseSpec::default(), RunSpec::default()),
        ] {
            let mut argv = vec!["x".to_string()];
            argv.extend(c.to_args());
            argv.extend(r.to_args());
            let back = Both::try_parse_from(&argv).unwrap();
            assert_eq!((back.cases, back.run), (c, r), "{argv:?}");
        }
    }
}
