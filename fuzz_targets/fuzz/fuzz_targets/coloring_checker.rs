#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_targets::run_wrapped("coloring_checker", data));
