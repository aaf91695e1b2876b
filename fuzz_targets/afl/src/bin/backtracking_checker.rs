fn main() {
    afl::fuzz!(|data: &[u8]| {
        fuzz_targets::run_wrapped("backtracking_checker", data);
    });
}
