fn main() {
    loop {
        honggfuzz::fuzz!(|data: &[u8]| {
            fuzz_targets::run_wrapped("backtracking_checker", data);
        });
    }
}
