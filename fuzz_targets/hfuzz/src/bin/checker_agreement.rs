fn main() {
    loop {
        honggfuzz::fuzz!(|data: &[u8]| {
            fuzz_targets::run_wrapped("checker_agreement", data);
        });
    }
}
