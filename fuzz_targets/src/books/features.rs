//! Coverage without compiler instrumentation: targets report cheap,
//! meaningful features (constraint kinds met, move cycles broken, checker
//! error kinds, CFG shapes, size buckets) to a thread-local sink, and the
//! built-in engine keeps an input when it reaches a feature not seen before.
//!
//! A feature is a small number: a name hashed at compile time's leisure
//! (FNV-1a) combined with a value. Outside the engine nothing reads them,
//! and noting one costs a push onto a thread-local vector.

use std::cell::RefCell;

thread_local! {
    static SINK: RefCell<Option<Vec<u32>>> = const { RefCell::new(None) };
}

const fn fnv(name: &str) -> u32 {
    let b = name.as_bytes();
    let mut h: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < b.len() {
        h = (h ^ b[i] as u32).wrapping_mul(0x0100_0193);
        i += 1;
    }
    h
}

/// Notes feature `name` with `value` (when a sink is collecting).
pub fn note(name: &str, value: u64) {
    SINK.with(|s| {
        if let Some(v) = s.borrow_mut().as_mut() {
            v.push(fnv(name) ^ (value as u32).wrapping_mul(0x9e37_79b1));
        }
    });
}

/// Notes that an input reached edge counter `counter` of the code under
/// test with hit-count bucket `bucket` (an instrumented build:
/// [`crate::coverage`]).
pub fn note_edge(counter: u32, bucket: u8) {
    const EDGE: u32 = fnv("edge");
    SINK.with(|s| {
        if let Some(v) = s.borrow_mut().as_mut() {
            v.push(EDGE ^ (counter << 4 | u32::from(bucket)).wrapping_mul(0x9e37_79b1));
        }
    });
}

/// Notes `value` by its power-of-two bucket (0, 1, 2-3, 4-7, ...).
pub fn note_bucket(name: &str, value: u64) {
    note(name, (64 - value.leading_zeros()) as u64);
}

/// Runs `f` collecting the features it notes into `out`.
pub fn collect<R>(out: &mut Vec<u32>, f: impl FnOnce() -> R) -> R {
    SINK.with(|s| *s.borrow_mut() = Some(std::mem::take(out)));
    struct Restore<'a>(&'a mut Vec<u32>);
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            SINK.with(|s| *self.0 = s.borrow_mut().take().unwrap_or_default());
        }
    }
    let _restore = Restore(out);
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_are_collected_only_inside_collect() {
        note("outside", 1);
        let mut v = Vec::new();
        collect(&mut v, || {
            note("a", 1);
            note_bucket("b", 5);
        });
        assert_eq!(v.len(), 2);
        assert_ne!(v[0], v[1]);
        note("outside", 2);
        assert_eq!(v.len(), 2);
        // Collected even when the body panics.
        let mut w = Vec::new();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            collect(&mut w, || {
                note("c", 1);
                panic!("boom");
            })
        }));
        assert!(r.is_err());
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn an_edge_feature_tells_counter_and_bucket_apart() {
        let mut v = Vec::new();
        collect(&mut v, || {
            note_edge(1, 1);
            note_edge(1, 2);
            note_edge(2, 1);
            note_edge(1, 1);
        });
        assert_eq!(v.len(), 4);
        assert!(v[0] != v[1] && v[0] != v[2] && v[1] != v[2]);
        assert_eq!(v[0], v[3]);
    }
}
