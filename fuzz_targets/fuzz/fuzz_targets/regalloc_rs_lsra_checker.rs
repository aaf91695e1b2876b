#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_targets::run_wrapped("regalloc_rs_lsra_checker", data));
