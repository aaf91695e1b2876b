// The one honggfuzz wrapper: runs the target `RAFUZZ_TARGET` names, or the
// one this binary's file is named for (fuzz_targets::targets::wrapped).
fn main() {
    fuzz_targets::targets::wrapped::list_if_asked();
    loop {
        honggfuzz::fuzz!(|data: &[u8]| {
            fuzz_targets::targets::wrapped::run_wrapped(data);
        });
    }
}
