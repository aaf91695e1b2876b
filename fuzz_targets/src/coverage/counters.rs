//! The counters SanitizerCoverage keeps: one byte per edge, in one array
//! per instrumented module, each with a PC table of the same length. The
//! instrumented code registers both through two C callbacks before `main`
//! runs; this module defines them (feature `coverage` only: libFuzzer
//! defines its own) and numbers the counters of every module in one
//! sequence, in registration order.

use std::sync::Mutex;

/// One module's counters and PC table (pairs of PC and flags).
#[derive(Clone, Copy)]
struct Module {
    counters: usize,
    len: usize,
    pcs: usize,
}

/// The modules registered so far. Written before `main`, read after.
static MODULES: Mutex<Vec<Module>> = Mutex::new(Vec::new());

/// Registers a module's counters, `[start, stop)`.
#[cfg(feature = "coverage")]
#[no_mangle]
pub extern "C" fn __sanitizer_cov_8bit_counters_init(start: *mut u8, stop: *mut u8) {
    let len = (stop as usize).saturating_sub(start as usize);
    if let Ok(mut m) = MODULES.lock() {
        if len > 0 && m.iter().all(|x| x.counters != start as usize) {
            m.push(Module {
                counters: start as usize,
                len,
                pcs: 0,
            });
        }
    }
}

/// Registers a module's PC table, `[start, stop)`: the table of the module
/// whose counters came last, the order in which a module's constructor
/// makes the two calls.
#[cfg(feature = "coverage")]
#[no_mangle]
pub extern "C" fn __sanitizer_cov_pcs_init(start: *const usize, stop: *const usize) {
    let entries = (stop as usize).saturating_sub(start as usize) / (2 * size_of::<usize>());
    if let Ok(mut m) = MODULES.lock() {
        if let Some(last) = m.last_mut().filter(|l| l.pcs == 0 && l.len == entries) {
            last.pcs = start as usize;
        }
    }
}

/// Whether this build counts edges (it was built with the instrumentation
/// and the `coverage` feature).
pub fn instrumented() -> bool {
    total() > 0
}

/// The number of counters of every module.
pub fn total() -> usize {
    modules().iter().map(|m| m.len).sum()
}

fn modules() -> Vec<Module> {
    MODULES.lock().map(|m| m.clone()).unwrap_or_default()
}

/// The PC of every counter, in counter order: the address of the code the
/// counter counts (the start of its basic block).
pub fn pcs() -> Vec<usize> {
    let mut v = Vec::with_capacity(total());
    for m in modules() {
        for i in 0..m.len {
            v.push(if m.pcs == 0 {
                0
            } else {
                // SAFETY: the table holds `len` pairs and lives as long as
                // the program.
                unsafe { *((m.pcs as *const usize).add(2 * i)) }
            });
        }
    }
    v
}

/// The address of every counter, in counter order.
pub fn addresses() -> Vec<usize> {
    let mut v = Vec::with_capacity(total());
    for m in modules() {
        v.extend((0..m.len).map(|i| m.counters + i));
    }
    v
}

/// Reads the counter at `address` (one of [`addresses`]) and sets it back
/// to zero.
#[inline]
pub fn take(address: usize) -> u8 {
    let p = address as *mut u8;
    // SAFETY: the counter exists for the life of the program; the
    // instrumented code writes it without atomics, so a racing increment
    // may be lost, never a byte torn.
    unsafe {
        let v = std::ptr::read_volatile(p);
        if v != 0 {
            std::ptr::write_volatile(p, 0);
        }
        v
    }
}
