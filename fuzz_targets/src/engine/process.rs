//! The engine side of process isolation: a [`Worker`] is a `rafuzz
//! worker` child process that runs inputs one at a time, in the order
//! sent. The engine keeps
//! the input it sent, so when the worker hangs past the time limit, grows
//! past the memory limit (both watched by a thread per worker, which kills
//! it), or dies on its own (an abort, a stack overflow, a signal), the
//! input is known and becomes a finding, and a fresh worker takes over.

use super::wire::{Reply, Request};
use crate::judging::failure::{Failure, Oracle, Signature};
use std::io::{self, BufReader, BufWriter, Read};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The limits on one input.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Longest time one input may run (`--timeout`).
    pub timeout: Duration,
    /// Largest resident size of a worker, in MiB (`--rss-limit-mb`; 0: no
    /// limit).
    pub rss_limit_mb: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECS),
            rss_limit_mb: DEFAULT_RSS_LIMIT_MB,
        }
    }
}

/// `--timeout`'s default, in seconds: a case of the largest size takes
/// milliseconds, so ten seconds is a hang, not a slow machine.
pub const DEFAULT_TIMEOUT_SECS: u64 = 10;
/// `--rss-limit-mb`'s default, libFuzzer's.
pub const DEFAULT_RSS_LIMIT_MB: u64 = 2048;

/// How to start a worker: the program (`rafuzz`), the targets it serves
/// (request target `i` is `targets[i]`), the campaign's settings as
/// arguments of `rafuzz worker`, and the limits it runs under.
#[derive(Clone, Debug)]
pub struct Launcher {
    pub program: PathBuf,
    pub targets: Vec<String>,
    pub settings: Vec<String>,
    pub limits: Limits,
}

impl Launcher {
    /// Workers of the running `rafuzz`.
    pub fn rafuzz(targets: &[&str], settings: &[String], limits: Limits) -> io::Result<Launcher> {
        Ok(Launcher {
            program: std::env::current_exe()?,
            targets: targets.iter().map(|t| t.to_string()).collect(),
            settings: settings.to_vec(),
            limits,
        })
    }

    fn args(&self) -> Vec<String> {
        let mut args = vec!["worker".to_string()];
        for t in &self.targets {
            args.push("--target".into());
            args.push(t.clone());
        }
        args.extend_from_slice(&self.settings);
        args
    }
}

/// Workers for the reducer: each candidate runs in an idle worker (a new
/// one when none is idle), which goes back to the pool if it survived.
pub struct Pool {
    /// Workers serving the one target (request target 0).
    launcher: Launcher,
    /// Whether the target runs on cases (`.ra` candidates).
    takes_cases: bool,
    idle: Mutex<Vec<Worker>>,
}

impl Pool {
    /// A pool running `target` of the launcher's workers.
    pub fn new(launcher: Launcher, target: &str) -> Pool {
        let mut launcher = launcher;
        launcher.targets = vec![target.to_string()];
        Pool {
            launcher,
            takes_cases: crate::targets::target_by_name(target).is_some_and(|t| t.takes_cases()),
            idle: Mutex::new(Vec::new()),
        }
    }

    fn ask(&self, request: &Request) -> Option<Failure> {
        let popped = self.idle.lock().unwrap().pop();
        let mut w = match popped {
            Some(w) => w,
            None => Worker::start(&self.launcher).ok()?,
        };
        let reply = w.ask(request);
        if w.alive() {
            self.idle.lock().unwrap().push(w);
        }
        match reply {
            Ok(Reply::Fail(f)) | Err(f) => Some(f),
            Ok(_) => None,
        }
    }
}

impl crate::tools::reduce::Runs for Pool {
    fn bytes(&self, data: &[u8]) -> Option<Failure> {
        self.ask(&Request::Bytes {
            target: 0,
            data: data.to_vec(),
        })
    }

    fn case(&self, case: &allocator::Case) -> Option<Option<Failure>> {
        if !self.takes_cases {
            return None;
        }
        Some(self.ask(&Request::Case {
            target: 0,
            text: allocator::ir::text::print(case),
        }))
    }
}

/// What the watchdog did to the worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Killed {
    Timeout,
    OutOfMemory { rss_mb: u64 },
}

/// What the engine and the watchdog share about a worker.
#[derive(Default)]
struct Watch {
    /// When the input now running started (`None`: idle).
    busy_since: Option<Instant>,
    /// Set by the watchdog when it kills the worker.
    killed: Option<Killed>,
    /// The engine dropped the worker: the watchdog ends.
    done: bool,
}

/// A running worker process.
pub struct Worker {
    child: Arc<Mutex<Child>>,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    watch: Arc<Mutex<Watch>>,
    /// The last bytes the worker wrote to stderr (what it said as it died).
    tail: Arc<Mutex<Vec<u8>>>,
    limits: Limits,
    /// Requests sent and not answered yet.
    in_flight: usize,
    /// The worker is gone (killed after its last reply, or after an error).
    lost: bool,
}

const TAIL: usize = 4096;
const POLL: Duration = Duration::from_millis(10);

impl Worker {
    pub fn start(launcher: &Launcher) -> io::Result<Worker> {
        let mut child = Command::new(&launcher.program)
            .args(launcher.args())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdin = BufWriter::new(child.stdin.take().expect("piped"));
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut stderr = child.stderr.take().expect("piped");
        let tail = Arc::new(Mutex::new(Vec::new()));
        let t = tail.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 1024];
            while let Ok(n @ 1..) = stderr.read(&mut buf) {
                let mut tail = t.lock().unwrap();
                tail.extend_from_slice(&buf[..n]);
                let excess = tail.len().saturating_sub(TAIL);
                tail.drain(..excess);
            }
        });
        let child = Arc::new(Mutex::new(child));
        let watch = Arc::new(Mutex::new(Watch::default()));
        let (c, w, limits) = (child.clone(), watch.clone(), launcher.limits);
        std::thread::spawn(move || watchdog(&c, &w, limits));
        let mut worker = Worker {
            child,
            stdin,
            stdout,
            watch,
            tail,
            limits: launcher.limits,
            in_flight: 0,
            lost: false,
        };
        // A worker that cannot answer before it has run anything (a wrong
        // program, an unknown target) is not an input's fault.
        match worker.ask(&Request::Counters) {
            Ok(Reply::Counters(_)) => Ok(worker),
            Ok(_) => Err(io::Error::other("the worker answered out of turn")),
            Err(f) => Err(io::Error::other(format!(
                "the worker did not start: {}",
                f.message
            ))),
        }
    }

    /// Whether the worker can take another request.
    pub fn alive(&self) -> bool {
        !self.lost
    }

    /// Sends `request` and waits for the reply. `Err`: the worker died
    /// running it (it is then lost), with the finding that makes: a
    /// timeout, an out-of-memory or a crash.
    pub fn ask(&mut self, request: &Request) -> Result<Reply, Failure> {
        self.send(request);
        self.receive()
    }

    /// Sends `request` without waiting: the worker runs requests in the
    /// order sent, and [`Worker::receive`] gets their replies in that
    /// order. A write fails only when the worker is gone; `receive` then
    /// reads what it answered before it went, and the end of its output.
    pub fn send(&mut self, request: &Request) {
        if self.in_flight == 0 {
            self.watch.lock().unwrap().busy_since = Some(Instant::now());
        }
        self.in_flight += 1;
        let _ = request.write(&mut self.stdin);
    }

    /// The reply to the oldest request sent. `Err`: the worker died
    /// running it (see [`Worker::ask`]).
    pub fn receive(&mut self) -> Result<Reply, Failure> {
        let reply = Reply::read(&mut self.stdout);
        self.in_flight = self.in_flight.saturating_sub(1);
        let killed = {
            let mut w = self.watch.lock().unwrap();
            // The next request, if any, starts now.
            w.busy_since = (self.in_flight > 0).then(Instant::now);
            w.killed
        };
        match reply {
            Ok(r) => {
                // Killed just as it answered: the answer stands, the worker
                // does not.
                self.lost |= killed.is_some();
                Ok(r)
            }
            Err(_) => {
                self.lost = true;
                Err(self.death(killed))
            }
        }
    }

    /// The finding a worker's death makes.
    fn death(&mut self, killed: Option<Killed>) -> Failure {
        let status = self.reap();
        match killed {
            Some(Killed::Timeout) => Failure::new(
                Signature::new(None, Oracle::Timeout, ""),
                format!(
                    "the input ran longer than the {} s time limit (--timeout); the worker was killed",
                    self.limits.timeout.as_secs_f64()
                ),
            ),
            Some(Killed::OutOfMemory { rss_mb }) => Failure::new(
                Signature::new(None, Oracle::OutOfMemory, ""),
                format!(
                    "the worker running the input grew to {rss_mb} MB, past the {} MB limit (--rss-limit-mb); it was killed",
                    self.limits.rss_limit_mb
                ),
            ),
            None => {
                let said = String::from_utf8_lossy(&self.tail.lock().unwrap()).into_owned();
                let how = describe_exit(status, &said);
                let lines: Vec<&str> = said.lines().filter(|l| !l.trim().is_empty()).collect();
                let last_words = lines[lines.len().saturating_sub(3)..].join(" | ");
                let words = if last_words.is_empty() {
                    String::new()
                } else {
                    format!("; its last words: {last_words}")
                };
                Failure::new(
                    Signature::new(None, Oracle::Crash, &how),
                    format!("the worker process died ({how}) running the input{words}"),
                )
            }
        }
    }

    /// Waits for the worker's exit (it has closed its stdout): up to a
    /// second, then it is killed.
    fn reap(&mut self) -> Option<ExitStatus> {
        let mut child = self.child.lock().unwrap();
        let until = Instant::now() + Duration::from_secs(1);
        while Instant::now() < until {
            match child.try_wait() {
                Ok(Some(s)) => {
                    // Let the stderr reader catch the last words.
                    std::thread::sleep(POLL);
                    return Some(s);
                }
                Ok(None) => std::thread::sleep(POLL),
                Err(_) => return None,
            }
        }
        let _ = child.kill();
        child.wait().ok()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.watch.lock().unwrap().done = true;
        let mut child = self.child.lock().unwrap();
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Kills the worker when its input runs past the time limit or it grows
/// past the memory limit.
fn watchdog(child: &Mutex<Child>, watch: &Mutex<Watch>, limits: Limits) {
    let pid = child.lock().unwrap().id();
    loop {
        std::thread::sleep(POLL);
        let mut w = watch.lock().unwrap();
        if w.done || w.killed.is_some() {
            return;
        }
        let Some(since) = w.busy_since else { continue };
        let verdict = if since.elapsed() > limits.timeout {
            Some(Killed::Timeout)
        } else {
            let rss_mb = rss_kb(pid).unwrap_or(0) / 1024;
            (limits.rss_limit_mb > 0 && rss_mb > limits.rss_limit_mb)
                .then_some(Killed::OutOfMemory { rss_mb })
        };
        if let Some(v) = verdict {
            w.killed = Some(v);
            let _ = child.lock().unwrap().kill();
            return;
        }
    }
}

/// The resident set size of process `pid`, in KiB (Linux; `None`
/// elsewhere).
pub fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status_field_kb(&status, "VmRSS:")
}

/// The peak resident set size of this process, in KiB (Linux).
pub fn peak_rss_kb_self() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status_field_kb(&status, "VmHWM:")
}

fn status_field_kb(status: &str, field: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(field))?;
    line[field.len()..].split_whitespace().next()?.parse().ok()
}

/// How a process ended, as a signature detail: `stack overflow`,
/// `SIGABRT`, `signal 40`, `exit status 3`.
fn describe_exit(status: Option<ExitStatus>, said: &str) -> String {
    if said.contains("has overflowed its stack") {
        return "stack overflow".into();
    }
    let Some(status) = status else {
        return "unknown exit".into();
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return match sig {
                4 => "SIGILL".into(),
                6 => "SIGABRT".into(),
                7 => "SIGBUS".into(),
                8 => "SIGFPE".into(),
                9 => "SIGKILL".into(),
                11 => "SIGSEGV".into(),
                15 => "SIGTERM".into(),
                _ => format!("signal {sig}"),
            };
        }
    }
    match status.code() {
        Some(c) => format!("exit status {c}"),
        None => "unknown exit".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields_read_as_kib() {
        let s = "Name:\trafuzz\nVmHWM:\t  20480 kB\nVmRSS:\t   1234 kB\n";
        assert_eq!(status_field_kb(s, "VmRSS:"), Some(1234));
        assert_eq!(status_field_kb(s, "VmHWM:"), Some(20480));
        assert_eq!(status_field_kb(s, "VmSwap:"), None);
        assert!(peak_rss_kb_self().is_some_and(|k| k > 0));
    }

    #[test]
    fn a_stack_overflow_is_named_by_what_the_runtime_said() {
        let said =
            "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow\n";
        assert_eq!(describe_exit(None, said), "stack overflow");
        assert_eq!(describe_exit(None, ""), "unknown exit");
    }
}
