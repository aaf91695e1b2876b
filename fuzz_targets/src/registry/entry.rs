//! What the registry says of one allocator ([`Entry`]), the cases it takes
//! ([`Profile`]), and the campaign settings an outside allocator is built
//! for ([`Settings`]). A leaf: the allocators' own modules define their
//! entries and profiles with these types, and the registry lists them.

use allocator::Allocator;
use ssagen::Config;
use std::sync::Arc;

/// How a campaign runs the outside allocators: carried by the campaign's
/// `Context` and handed to [`Entry::build`], never held by a process-wide
/// switch, so two campaigns in one process (a test, a benchmark) can differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Answer an outside allocator's known bugs with `Suppressed` instead
    /// of running it on them (`--no-suppress` turns it off).
    pub suppress: bool,
    /// Run the `regalloc` crate's own checker on each of its allocations
    /// (the benchmarks turn it off to time the allocator alone).
    pub own_checker: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            suppress: true,
            own_checker: true,
        }
    }
}

/// Where an allocator comes from, which decides what the harness does with
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// One of this repository's allocators: fuzzed, with design points.
    Ours,
    /// Written elsewhere and run through an adapter: fuzzed on its profile,
    /// its known bugs suppressed unless the settings say otherwise.
    Outside,
    /// One of ours with a design choice switched off: found by name for
    /// measuring (`compare`, the benchmarks), never fuzzed.
    Variant,
    /// Ours with a planted bug (the fault benchmark, the engine's tests):
    /// found by name and by its `fault_*` target, never in a campaign.
    Fault,
}

/// The cases an allocator takes, as a named generator config (the name
/// `--profile` takes), defined beside the allocator it is made for.
pub struct Profile {
    pub name: &'static str,
    /// The generator config of the profile.
    pub config: fn() -> Config,
    /// The config plus the combinations the allocator is known to get
    /// wrong, which the profile leaves out: for `--no-suppress`.
    pub with_known_bugs: fn(Config) -> Config,
    /// The inputs of `differential` that use this profile instead of the
    /// default config: those whose first byte `b` has `b & mask == value`
    /// (the byte is then taken); the first matching profile wins.
    pub differential_share: (u8, u8),
}

/// How an entry's allocator is had.
#[derive(Clone, Copy)]
pub enum Build {
    /// The same allocator whatever the settings (ours).
    Fixed(&'static dyn Allocator),
    /// One built for the settings (an outside allocator, which reads them).
    BySettings(fn(&Settings) -> Arc<dyn Allocator>),
}

impl PartialEq for Profile {
    fn eq(&self, other: &Profile) -> bool {
        self.name == other.name
    }
}

impl Eq for Profile {}

impl std::fmt::Debug for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The default generator config as a profile: every feature on, so
/// nothing left to widen for known bugs.
pub static DEFAULT: Profile = Profile {
    name: "default",
    config: Config::default,
    with_known_bugs: |c| c,
    differential_share: (0, 1),
};

/// One allocator the harness knows. Everything that lists allocators (the
/// `<name>_checker` targets, `differential`, `--profile`, the design-point
/// tests, the quality tables, the bench, `rafuzz list`) derives from the
/// entries.
#[derive(Clone, Copy)]
pub struct Entry {
    pub name: &'static str,
    /// The target that fuzzes it alone: `<name>_checker` for a fuzzed
    /// entry, `fault_<fault>` for a planted fault, none for a variant.
    pub target: &'static str,
    /// The code that is the allocator's, what coverage of it counts: crates
    /// by name (`allocator` for ours, `regalloc2`, `regalloc`), or source
    /// files by the tail of their path (a planted fault's own file).
    pub code: &'static [&'static str],
    pub family: Family,
    /// How the allocator is had, under a campaign's settings.
    pub build: Build,
    /// The cases it takes; `None`: the default generator's.
    pub profile: Option<&'static Profile>,
    /// Whether `tests/cases/<name>/` holds its design points, each case
    /// pinned to the moves it must make.
    pub design_points: bool,
    /// Its known false refusals: it calls cases infeasible that have an
    /// allocation. Suppressed unless the settings say otherwise; any other
    /// such refusal is a `refused-feasible` finding.
    pub false_refusals: &'static [FalseRefusal],
}

/// A known cause of an allocator calling feasible cases infeasible: a
/// known bug, reported where its documentation says (docs/regalloc2.md),
/// recognised by the structural shape it was reduced to, never by the
/// allocator's message (which every false refusal shares).
#[derive(Clone, Copy, Debug)]
pub struct FalseRefusal {
    /// The name the refusal table and the docs give it.
    pub name: &'static str,
    /// The instruction that gives the case the bug's shape, if it has it.
    pub shape: fn(&allocator::Function, &allocator::MachineEnv) -> Option<allocator::Inst>,
}

impl FalseRefusal {
    /// Whether `case` has this refusal's shape.
    pub fn matches(&self, case: &allocator::Case) -> bool {
        (self.shape)(&case.func, &case.machine).is_some()
    }
}

impl Entry {
    /// An outside allocator's entry: `(name, target)`, its crate, how it is built
    /// for the settings, the cases it takes and its known false refusals.
    pub fn outside(
        (name, target): (&'static str, &'static str),
        code: &'static [&'static str],
        build: fn(&Settings) -> Arc<dyn Allocator>,
        profile: &'static Profile,
        false_refusals: &'static [FalseRefusal],
    ) -> Entry {
        Entry {
            name,
            target,
            code,
            family: Family::Outside,
            build: Build::BySettings(build),
            profile: Some(profile),
            design_points: false,
            false_refusals,
        }
    }

    /// The allocator under the campaign's settings `s`.
    pub fn build(&self, s: &Settings) -> Arc<dyn Allocator> {
        match self.build {
            Build::Fixed(a) => Arc::new(a),
            Build::BySettings(build) => build(s),
        }
    }

    /// The allocator under the default settings.
    pub fn allocator(&self) -> Arc<dyn Allocator> {
        self.build(&Settings::default())
    }

    /// Whether campaigns fuzz it (`differential`, its `<name>_checker`
    /// target).
    pub fn fuzzed(&self) -> bool {
        matches!(self.family, Family::Ours | Family::Outside)
    }

    /// The profile of the cases it takes.
    pub fn profile(&self) -> &'static Profile {
        self.profile.unwrap_or(&DEFAULT)
    }
}
