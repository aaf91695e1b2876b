#![no_main]
// The one libFuzzer wrapper: runs the target `RAFUZZ_TARGET` names, or the
// one this binary's file is named for (fuzz_targets::targets::wrapped).
// An input that is the text of a case (a `.ra` seed, say corpus/real) is
// mutated as a case most of the time, by libFuzzer's own mutator otherwise.
libfuzzer_sys::fuzz_target!(
    init: fuzz_targets::targets::wrapped::list_if_asked(),
    |data: &[u8]| fuzz_targets::targets::wrapped::run_wrapped(data)
);

libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    match fuzz_targets::targets::wrapped::mutate_wrapped(&data[..size], max_size, seed) {
        Some(text) => {
            data[..text.len()].copy_from_slice(&text);
            text.len()
        }
        None => libfuzzer_sys::fuzzer_mutate(data, size, max_size),
    }
});
