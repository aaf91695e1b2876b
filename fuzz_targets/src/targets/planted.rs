//! `planted`: a test-only target that proves every engine wrapper and
//! script really reports a crash.

use super::target::{Decode, Input, Target};
use crate::books::context::Context;
use std::sync::Arc;

/// The input that makes `planted` fail.
pub const PLANTED_MAGIC: &[u8] = b"RAFZ!";

/// A test-only target, never in [`targets`]: it fails on inputs that start
/// with [`PLANTED_MAGIC`], and notes how many leading bytes match so that a
/// feature-guided engine can climb to it. It proves that every engine
/// wrapper and script really reports a crash.
pub fn planted() -> Target {
    Target {
        name: "planted",
        description: "test only: fails on inputs starting with RAFZ!",
        decode: Decode::Bytes,
        body: Arc::new(|input: &Input, _: &Context| {
            let Input::Bytes(data) = *input else {
                panic!("planted runs on bytes");
            };
            let n = data
                .iter()
                .zip(PLANTED_MAGIC)
                .take_while(|(a, b)| a == b)
                .count();
            crate::books::features::note("planted_prefix", n as u64);
            // The whole prefix compared at once, a `memcmp` whose operands
            // libFuzzer's compare hooks record and offer back as a word (on
            // CI's unoptimised AddressSanitizer build, the climb by edges
            // alone took 15 to 244 s); then one branch per byte, so that
            // engines which see edges only climb the magic byte by byte.
            std::hint::black_box(data.starts_with(PLANTED_MAGIC));
            if data.len() >= PLANTED_MAGIC.len()
                && data[0] == b'R'
                && data[1] == b'A'
                && data[2] == b'F'
                && data[3] == b'Z'
                && data[4] == b'!'
            {
                panic!("planted: the magic input was found");
            }
            Ok(())
        }),
        stats: None,
    }
}
