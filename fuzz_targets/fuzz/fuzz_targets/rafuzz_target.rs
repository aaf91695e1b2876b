#![no_main]
// The one libFuzzer wrapper: runs the target `RAFUZZ_TARGET` names, or the
// one this binary's file is named for (fuzz_targets::targets::wrapped).
libfuzzer_sys::fuzz_target!(
    init: fuzz_targets::targets::wrapped::list_if_asked(),
    |data: &[u8]| fuzz_targets::targets::wrapped::run_wrapped(data)
);
