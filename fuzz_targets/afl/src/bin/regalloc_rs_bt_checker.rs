fn main() {
    afl::fuzz!(|data: &[u8]| {
        fuzz_targets::run_wrapped("regalloc_rs_bt_checker", data);
    });
}
