fn main() {
    afl::fuzz!(|data: &[u8]| {
        fuzz_targets::run_wrapped("regalloc2_fastalloc_checker", data);
    });
}
