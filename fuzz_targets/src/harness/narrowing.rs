//! What a user says about the cases their allocator takes: a named profile
//! (a generator config made for an allocator) and features to leave out
//! (`--without reuse,limit`), by the names `rafuzz gen --stats` prints. A
//! [`Narrowing`] applies to every target that generates cases, in every
//! command that decodes fuzzer bytes (`gen`, `fuzz`, `run`, `reduce`, the
//! worker processes, and the engine wrappers through `RAFUZZ_PROFILE` and
//! `RAFUZZ_WITHOUT`), so a finding replays the way it was found.

use crate::registry::{self, Profile, Settings};
use crate::spec::CaseSpec;
use ssagen::Config;

pub use ssagen::config::{Feature, FEATURES};

/// A profile and the features left out, as the command line gave them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Narrowing {
    pub profile: Option<&'static Profile>,
    /// `--style`: the one program style of the profile every case takes
    /// ([`ssagen::style`]), instead of a style drawn per case.
    pub style: Option<&'static str>,
    /// Indices into [`FEATURES`], in the order given.
    pub without: Vec<usize>,
    /// `--no-suppress`: outside allocators' known bugs are run, not
    /// suppressed, and the profiles that leave them out generate them
    /// ([`Profile::with_known_bugs`]).
    pub no_suppress: bool,
    /// `--swarm`: each case draws which of the config's features it uses
    /// ([`ssagen::swarm`]) instead of using the config as it is.
    pub swarm: bool,
}

impl Narrowing {
    /// The narrowing a [`CaseSpec`] names, or what is wrong with it (an
    /// unknown profile or feature). Each `without` item may itself hold
    /// commas.
    pub fn resolve(spec: &CaseSpec) -> Result<Narrowing, String> {
        let profile = match spec.profile.as_deref() {
            None => None,
            Some(p) => Some(registry::profile(p).ok_or_else(|| {
                let names: Vec<&str> = registry::profiles().iter().map(|p| p.name).collect();
                format!("no profile named `{p}` (profiles: {})", names.join(", "))
            })?),
        };
        let style = match spec.style.as_deref() {
            None => None,
            Some(s) => {
                let styles = profile.map_or(&[][..], |p| (p.config)().styles);
                if styles.is_empty() {
                    let styled: Vec<&str> = registry::profiles()
                        .iter()
                        .filter(|p| !(p.config)().styles.is_empty())
                        .map(|p| p.name)
                        .collect();
                    return Err(format!(
                        "--style {s} needs a profile with program styles ({})",
                        styled.join(", ")
                    ));
                }
                let style = styles.iter().find(|st| st.name == s).ok_or_else(|| {
                    let names: Vec<&str> = styles.iter().map(|st| st.name).collect();
                    format!(
                        "no style named `{s}` in this profile (styles: {})",
                        names.join(", ")
                    )
                })?;
                Some(style.name)
            }
        };
        let mut out = Vec::new();
        for name in spec
            .without
            .iter()
            .flat_map(|w| w.split(','))
            .map(str::trim)
        {
            if name.is_empty() {
                continue;
            }
            let k = FEATURES.iter().position(|f| f.0 == name).ok_or_else(|| {
                let names: Vec<&str> = FEATURES.iter().map(|f| f.0).collect();
                format!(
                    "no feature named `{name}` to leave out (features: {})",
                    names.join(", ")
                )
            })?;
            if !out.contains(&k) {
                out.push(k);
            }
        }
        Ok(Narrowing {
            profile,
            style,
            without: out,
            no_suppress: spec.no_suppress,
            swarm: spec.swarm,
        })
    }

    /// The narrowing the engine wrappers' environment names
    /// ([`CaseSpec::from_env`]).
    pub fn from_env() -> Result<Narrowing, String> {
        Narrowing::resolve(&CaseSpec::from_env())
    }

    /// The spec that names this narrowing, with its canonical names.
    pub fn spec(&self) -> CaseSpec {
        CaseSpec {
            profile: self.profile.map(|p| p.name.to_string()),
            style: self.style.map(str::to_string),
            without: self
                .without
                .iter()
                .map(|&k| FEATURES[k].0.to_string())
                .collect(),
            no_suppress: self.no_suppress,
            swarm: self.swarm,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.profile.is_none()
            && self.style.is_none()
            && self.without.is_empty()
            && !self.no_suppress
            && !self.swarm
    }

    /// The settings the allocators of a campaign so narrowed run under.
    pub fn settings(&self) -> Settings {
        Settings {
            suppress: !self.no_suppress,
            ..Settings::default()
        }
    }

    /// The config a target that generates the cases of `base` uses: the
    /// named profile's instead (when one is named), in the named style,
    /// with that profile's known bugs under `--no-suppress`, less the
    /// features left out.
    pub fn config(&self, base: &Profile) -> Config {
        let p = self.profile.unwrap_or(base);
        let mut c = (p.config)();
        if let Some(name) = self.style {
            if let Some(style) = c.styles.iter().find(|s| s.name == name).copied() {
                ssagen::style::apply(&mut c, &style);
            }
        }
        if self.no_suppress {
            c = (p.with_known_bugs)(c);
        }
        if self.swarm {
            c.swarm = true;
        }
        for &k in &self.without {
            (FEATURES[k].1)(&mut c);
        }
        c
    }

    /// The command-line words that give this narrowing again (for replay
    /// commands): `--profile P --without A,B ...`.
    pub fn args(&self) -> Vec<String> {
        self.spec().to_args()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print_back() {
        let spec = |profile: Option<&str>, without: &[&str]| CaseSpec {
            profile: profile.map(str::to_string),
            without: without.iter().map(|w| w.to_string()).collect(),
            ..CaseSpec::default()
        };
        let n = Narrowing::resolve(&spec(Some("regalloc2"), &["reuse, limit", "reuse"])).unwrap();
        assert_eq!(
            n.args(),
            ["--profile", "regalloc2", "--without", "reuse,limit"]
        );
        assert_eq!(Narrowing::resolve(&n.spec()), Ok(n));
        assert!(Narrowing::resolve(&spec(Some("nope"), &[]))
            .unwrap_err()
            .contains("regalloc2_fastalloc"));
        let e = Narrowing::resolve(&spec(None, &["loops"])).unwrap_err();
        assert!(
            e.contains("no feature named `loops`") && e.contains("block-params"),
            "{e}"
        );
        assert!(Narrowing::default().is_empty());
        let n = Narrowing {
            no_suppress: true,
            swarm: true,
            ..Narrowing::default()
        };
        assert_eq!(n.args(), ["--no-suppress", "--swarm"]);
        assert!(!n.is_empty());
        let c = n.config(registry::profile("regalloc2").unwrap());
        assert!(c.swarm && c.repeated_uses.limit && c.repeated_uses.late_fixed);
        let c = Narrowing::default().config(registry::profile("regalloc2_fastalloc").unwrap());
        assert!(!c.swarm && !c.stack_defs);
        assert!(
            n.config(registry::profile("regalloc2_fastalloc").unwrap())
                .stack_defs
        );
    }

    #[test]
    fn a_style_resolves_only_within_a_profile_that_has_it() {
        let spec = |profile: Option<&str>, style: &str| CaseSpec {
            profile: profile.map(str::to_string),
            style: Some(style.to_string()),
            ..CaseSpec::default()
        };
        let n = Narrowing::resolve(&spec(Some("cranelift-aarch64"), "go")).unwrap();
        assert_eq!(n.style, Some("go"));
        assert_eq!(
            n.args(),
            ["--profile", "cranelift-aarch64", "--style", "go"]
        );
        assert!(!n.is_empty());
        let styled = n.config(&registry::DEFAULT);
        let mixed = (registry::profile("cranelift-aarch64").unwrap().config)();
        assert!(styled.styles.is_empty() && mixed.styles.len() == 4);
        assert!(
            styled.max_insts_per_block < mixed.max_insts_per_block,
            "Go's functions have short blocks"
        );
        let e = Narrowing::resolve(&spec(Some("cranelift"), "fortran")).unwrap_err();
        assert!(
            e.contains("no style named `fortran`") && e.contains("c, cpp, rust, go"),
            "{e}"
        );
        for profile in [None, Some("regalloc2")] {
            let e = Narrowing::resolve(&spec(profile, "c")).unwrap_err();
            assert!(e.contains("needs a profile with program styles"), "{e}");
        }
    }

    #[test]
    fn every_feature_left_out_is_absent_from_the_cases() {
        for (k, (name, _)) in FEATURES.iter().enumerate() {
            let n = Narrowing {
                without: vec![k],
                ..Narrowing::default()
            };
            let config = n.config(&registry::DEFAULT);
            let mut stats = ssagen::stats::GenStats::default();
            for seed in 0..40 {
                let bytes = crate::harness::inputs::seeded_bytes(seed, 2048);
                let case = ssagen::generate_from_bytes(&bytes, &config);
                let ok = ssagen::feasibility::check_case(&case).is_ok();
                stats.record(&ssagen::stats::CaseFeatures::of(&case), ok);
            }
            assert_eq!(stats.valid, stats.cases, "{name}");
            let share = stats.shares().iter().find(|s| s.0 == *name).unwrap().1;
            assert_eq!(share, 0.0, "--without {name} still generates it");
        }
    }
}
