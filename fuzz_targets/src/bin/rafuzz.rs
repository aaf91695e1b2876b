//! `rafuzz`: validate, allocate, check and fuzz register allocation cases
//! (the command line is `fuzz_targets::cli`).

/// Counts heap use while `rafuzz scaling` measures (one relaxed load per
/// allocation otherwise).
#[global_allocator]
static HEAP: fuzz_targets::harness::heap::Counting = fuzz_targets::harness::heap::Counting;

fn main() {
    std::process::exit(fuzz_targets::cli::main());
}
