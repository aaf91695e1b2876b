fn main() {
    afl::fuzz!(|data: &[u8]| {
        fuzz_targets::run_wrapped("spill_everywhere_checker", data);
    });
}
