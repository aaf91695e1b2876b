//! Time and memory limits on a replay (`rafuzz run`): a thread watches the
//! input being run and, past a limit, says which input and which limit on
//! stdout and ends the process with status 1, as the fuzzing campaign
//! would have reported it. The run happens in-process, so a debugger
//! attached to `rafuzz run` sees the allocator's own stack.

use crate::engine::process::{rss_kb, Limits};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The input being run and since when.
#[derive(Default)]
struct Current {
    label: String,
    since: Option<Instant>,
}

/// A watchdog over one process's runs.
pub struct Watchdog {
    current: Arc<Mutex<Current>>,
}

impl Watchdog {
    /// Starts the watching thread.
    pub fn arm(limits: Limits) -> Watchdog {
        let current = Arc::new(Mutex::new(Current::default()));
        let c = current.clone();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(10));
            let cur = c.lock().unwrap();
            let Some(since) = cur.since else { continue };
            let rss_mb = rss_kb(std::process::id()).unwrap_or(0) / 1024;
            let verdict = if since.elapsed() > limits.timeout {
                format!(
                    "timeout: the input ran longer than the {} s time limit (--timeout)",
                    limits.timeout.as_secs_f64()
                )
            } else if limits.rss_limit_mb > 0 && rss_mb > limits.rss_limit_mb {
                format!(
                    "oom: the process grew to {rss_mb} MB, past the {} MB limit (--rss-limit-mb)",
                    limits.rss_limit_mb
                )
            } else {
                continue;
            };
            println!("{}: FAILED: {verdict}", cur.label);
            std::process::exit(1);
        });
        Watchdog { current }
    }

    /// The input called `label` starts running.
    pub fn begin(&self, label: &str) {
        let mut c = self.current.lock().unwrap();
        c.label = label.to_string();
        c.since = Some(Instant::now());
    }

    /// The input has finished.
    pub fn end(&self) {
        self.current.lock().unwrap().since = None;
    }
}
