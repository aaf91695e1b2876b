//! The built-in engine's inputs: fresh random bytes, byte-level mutations
//! of corpus entries, or, for an entry that is the text of a case (a `.ra`
//! seed), structure-aware mutations of the case ([`crate::edit::mutate`]).

use super::campaign::Shared;
use rand::{Rng, RngCore};
use rand_chacha::ChaCha8Rng;

/// A fresh random input (a quarter of the time, or when the corpus is empty)
/// or a mutation of a corpus entry.
pub(super) fn make_input(rng: &mut ChaCha8Rng, s: &Shared, max_len: usize) -> Vec<u8> {
    let pick = {
        let corpus = s.corpus.lock().unwrap();
        if corpus.is_empty() || rng.gen_ratio(1, 4) {
            None
        } else {
            let a = corpus[rng.gen_range(0..corpus.len())].clone();
            let b = corpus[rng.gen_range(0..corpus.len())].clone();
            Some((a, b))
        }
    };
    let Some((a, b)) = pick else {
        let len = [16usize, 64, 256, 1024, 4096][rng.gen_range(0..5)].min(max_len);
        let len = rng.gen_range(0..=len);
        let mut v = vec![0u8; len];
        rng.fill_bytes(&mut v);
        return v;
    };
    // A case seed is mutated as a case three times in four (the text is
    // printed back, so the mutant is a case seed too); bytes otherwise.
    if rng.gen_ratio(3, 4) {
        if let (Some(config), Some(case)) =
            (s.target.config(), crate::harness::inputs::case_text(&a))
        {
            let steps = rng.gen_range(1..=3);
            let mutant = crate::edit::mutate::mutate(&case, &config, steps, rng);
            return allocator::ir::text::print(&mutant).into_bytes();
        }
    }
    let mut v = (*a).clone();
    for _ in 0..rng.gen_range(1..=4) {
        mutate(rng, &mut v, &b);
    }
    v.truncate(max_len);
    v
}

/// One mutation: bit flip, byte set, chunk insert, delete, copy, or splice
/// with another entry.
pub fn mutate(rng: &mut impl Rng, v: &mut Vec<u8>, other: &[u8]) {
    let len = v.len();
    match rng.gen_range(0..7) {
        0 if len > 0 => {
            let i = rng.gen_range(0..len);
            v[i] ^= 1 << rng.gen_range(0..8);
        }
        1 if len > 0 => {
            let i = rng.gen_range(0..len);
            v[i] = [0, 1, 0x7f, 0x80, 0xff, rng.gen()][rng.gen_range(0..6)];
        }
        2 => {
            let at = rng.gen_range(0..=len);
            let n = rng.gen_range(1..=32);
            let chunk: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
            v.splice(at..at, chunk);
        }
        3 if len > 0 => {
            let at = rng.gen_range(0..len);
            let n = rng.gen_range(1..=(len - at).min(64));
            v.drain(at..at + n);
        }
        4 if len > 1 => {
            let from = rng.gen_range(0..len);
            let to = rng.gen_range(0..len);
            let n = rng.gen_range(1..=(len - from).min(len - to).min(64));
            v.copy_within(from..from + n, to);
        }
        5 if !other.is_empty() => {
            let cut = rng.gen_range(0..=len);
            let from = rng.gen_range(0..other.len());
            v.truncate(cut);
            v.extend_from_slice(&other[from..]);
        }
        _ => {
            let at = rng.gen_range(0..=len);
            v.insert(at, rng.gen());
        }
    }
}
