//! Runs every standalone reproducer of `tests/reproducers/regalloc2/`
//! against the regalloc2 release this project pins: each must still fail,
//! saying what is wrong (a panic's message is printed above its line). CI
//! runs it; a reproducer that passes means regalloc2 fixed the bug, and its
//! exclusion can go.
//!
//! `cargo run -p fuzz_targets --example reproducers`

#[rustfmt::skip]
#[path = "../../tests/reproducers/regalloc2/branch-def-arg-elsewhere.rs"]
mod branch_def_arg_elsewhere;
#[rustfmt::skip]
#[path = "../../tests/reproducers/regalloc2/early-def-after-live-out.rs"]
mod early_def_after_live_out;
#[rustfmt::skip]
#[path = "../../tests/reproducers/regalloc2/fastalloc-no-free-register.rs"]
mod fastalloc_no_free_register;
#[rustfmt::skip]
#[path = "../../tests/reproducers/regalloc2/live-in-before-def.rs"]
mod live_in_before_def;
#[rustfmt::skip]
#[path = "../../tests/reproducers/regalloc2/repeated-late-fixed-use.rs"]
mod repeated_late_fixed_use;
#[rustfmt::skip]
#[path = "../../tests/reproducers/regalloc2/repeated-limit-use.rs"]
mod repeated_limit_use;
#[rustfmt::skip]
#[path = "../../tests/reproducers/regalloc2/stack-def-in-fastalloc.rs"]
mod stack_def_in_fastalloc;
#[rustfmt::skip]
#[path = "../../tests/reproducers/regalloc2/too-many-live-regs.rs"]
mod too_many_live_regs;

type Reproduce = fn() -> Result<(), String>;

/// Every known regalloc2 bug (docs/regalloc2.md), by its file's name.
const ALL: [(&str, Reproduce); 8] = [
    ("repeated-limit-use", repeated_limit_use::reproduce),
    (
        "repeated-late-fixed-use",
        repeated_late_fixed_use::reproduce,
    ),
    (
        "early-def-after-live-out",
        early_def_after_live_out::reproduce,
    ),
    ("too-many-live-regs", too_many_live_regs::reproduce),
    ("stack-def-in-fastalloc", stack_def_in_fastalloc::reproduce),
    (
        "branch-def-arg-elsewhere",
        branch_def_arg_elsewhere::reproduce,
    ),
    ("live-in-before-def", live_in_before_def::reproduce),
    (
        "fastalloc-no-free-register",
        fastalloc_no_free_register::reproduce,
    ),
];

fn main() {
    let mut passed = Vec::new();
    for (name, reproduce) in ALL {
        match reproduce() {
            Err(e) => println!("{name}: fails, as on the release: {e}"),
            Ok(()) => {
                println!("{name}: PASSES: regalloc2 no longer has this bug");
                passed.push(name);
            }
        }
    }
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/reproducers/regalloc2");
    let files = std::fs::read_dir(&dir).map_or(0, |d| d.count());
    if files != ALL.len() {
        println!(
            "{} has {files} files; this example runs {}",
            dir.display(),
            ALL.len()
        );
        std::process::exit(1);
    }
    std::process::exit(i32::from(!passed.is_empty()));
}
