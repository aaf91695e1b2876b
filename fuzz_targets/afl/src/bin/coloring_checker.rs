fn main() {
    afl::fuzz!(|data: &[u8]| {
        fuzz_targets::run_wrapped("coloring_checker", data);
    });
}
