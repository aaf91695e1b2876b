//! Peak heap use of one call, for `rafuzz scaling`: [`Counting`] is a
//! global allocator over the system's that, while a measurement is on,
//! keeps the bytes allocated and not yet freed since it started and their
//! maximum. Off, it costs one relaxed load per allocation. The `rafuzz`
//! binary installs it; elsewhere [`peak_during`] says it cannot measure.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

static ON: AtomicBool = AtomicBool::new(false);
/// Bytes allocated minus bytes freed since the measurement began (a block
/// allocated before and freed during it makes this go down).
static NOW: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

/// The counting allocator.
pub struct Counting;

fn grew(by: isize) {
    let now = NOW.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; the counters are
// plain atomics, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() && ON.load(Ordering::Relaxed) {
            grew(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() && ON.load(Ordering::Relaxed) {
            grew(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        if ON.load(Ordering::Relaxed) {
            NOW.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() && ON.load(Ordering::Relaxed) {
            grew(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// Runs `f` and returns its result with the peak of the bytes it held on
/// the heap at once (`None` when [`Counting`] is not the global
/// allocator). Measurements must not overlap, and other threads'
/// allocations meanwhile count too.
pub fn peak_during<R>(f: impl FnOnce() -> R) -> (R, Option<usize>) {
    NOW.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    ON.store(true, Ordering::Relaxed);
    // A probe: with the counting allocator installed, it shows.
    drop(std::hint::black_box(vec![0u8; 1]));
    let installed = PEAK.swap(0, Ordering::Relaxed) > 0;
    NOW.store(0, Ordering::Relaxed);
    let r = f();
    ON.store(false, Ordering::Relaxed);
    let peak = PEAK.load(Ordering::Relaxed).max(0) as usize;
    (r, installed.then_some(peak))
}
