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
            // One branch per byte, so that coverage-guided engines (which
            // see edges, not our features) climb the magic byte by byte.
            if data.first() == Some(&b'R')
                && data.get(1) == Some(&b'A')
                && data.get(2) == Some(&b'F')
                && data.get(3) == Some(&b'Z')
                && data.get(4) == Some(&b'!')
            {
                panic!("planted: the magic input was found");
            }
            Ok(())
        }),
        stats: None,
    }
}
