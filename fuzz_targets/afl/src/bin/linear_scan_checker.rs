fn main() {
    afl::fuzz!(|data: &[u8]| {
        fuzz_targets::run_wrapped("linear_scan_checker", data);
    });
}
