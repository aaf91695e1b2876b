//! Catching panics as findings: [`catch`] runs a closure and turns a panic
//! into its message and source location, without printing it.
//!
//! Rust's default hook prints every panic to stderr, which would bury the
//! engine's and the reducer's output under thousands of expected panics. A
//! hook installed once per process records the message of a panic raised
//! inside [`catch`] in a thread-local and stays quiet; panics anywhere else
//! go to the hook that was there before (the default one, or the engine
//! wrapper's, which for libFuzzer aborts so the fuzzer sees the crash).

use std::cell::{Cell, RefCell};
use std::sync::Once;

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if DEPTH.with(|d| d.get()) == 0 {
                return previous(info);
            }
            let msg = payload_message(info.payload());
            let loc = info
                .location()
                .map(|l| format!(" (at {}:{})", l.file(), l.line()))
                .unwrap_or_default();
            LAST.with(|p| *p.borrow_mut() = Some(format!("{msg}{loc}")));
        }));
    });
}

/// The text of a panic payload (`panic!` makes a `String` or a `&str`).
pub fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic with a non-string payload".into())
}

/// Runs `f`; a panic becomes `Err(message (at file:line))`, printed nowhere.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install();
    DEPTH.with(|d| d.set(d.get() + 1));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    DEPTH.with(|d| d.set(d.get() - 1));
    r.map_err(|payload| {
        LAST.with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| payload_message(&*payload))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catch_returns_the_message_and_location() {
        assert_eq!(catch(|| 7), Ok(7));
        let e = catch(|| -> u32 { panic!("broken {}", 42) }).unwrap_err();
        assert!(e.starts_with("broken 42 (at "), "{e}");
        assert!(e.contains("panics.rs:"), "{e}");
        // Nested: the inner panic is caught by the inner call.
        let outer = catch(|| catch(|| panic!("inner")).unwrap_err());
        assert!(outer.unwrap().starts_with("inner"));
    }
}
