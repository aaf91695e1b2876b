//! One job of a campaign: it picks the target that has had the least time,
//! makes an input, runs it (in its own thread, or in a worker process with
//! two inputs in flight, so the worker never waits for the job), and
//! records what the input found: a finding saved at once, or features that
//! may add it to the corpus.

use super::campaign::{Finding, Options, Shared};
use super::findings::{hash, save_finding, write_atomically};
use super::guided;
use super::input::make_input;
use super::process::Worker;
use super::wire::{Reply, Request};
use crate::books::context::Context;
use crate::books::features;
use crate::judging::failure::Failure;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Inputs sent to a worker before the first reply is read.
const IN_FLIGHT: usize = 2;

/// What the jobs of a campaign share.
pub(super) struct Campaign<'a> {
    pub opts: &'a Options,
    pub ctx: &'a Context,
    pub shared: &'a [Arc<Shared>],
    pub stop: &'a AtomicBool,
    /// Inputs made so far, by every job.
    pub total: &'a AtomicU64,
    pub findings: &'a Mutex<Vec<Finding>>,
    pub start: Instant,
}

/// One job: its number and its own random choices.
pub(super) struct Job<'a> {
    campaign: &'a Campaign<'a>,
    id: usize,
    rng: ChaCha8Rng,
}

impl<'a> Job<'a> {
    pub(super) fn new(campaign: &'a Campaign<'a>, id: usize) -> Job<'a> {
        let seed = campaign.opts.seed ^ (id as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        Job {
            campaign,
            id,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    pub(super) fn run(mut self) {
        match self.campaign.opts.isolation.clone() {
            None => self.in_thread(),
            Some(launcher) => self.in_worker(&launcher),
        }
    }

    /// The next input and the index of its target, or `None` when the
    /// campaign stops.
    fn next_input(&mut self) -> Option<(usize, Vec<u8>)> {
        if self.campaign.stop.load(Ordering::Relaxed) {
            return None;
        }
        let n = self.campaign.total.fetch_add(1, Ordering::Relaxed);
        if self.campaign.opts.runs.is_some_and(|r| n >= r) {
            self.campaign.stop.store(true, Ordering::Relaxed);
            return None;
        }
        let (index, s) = self
            .campaign
            .shared
            .iter()
            .enumerate()
            .min_by_key(|(_, s)| s.nanos.load(Ordering::Relaxed))
            .expect("at least one target");
        Some((
            index,
            make_input(&mut self.rng, s, self.campaign.opts.max_len),
        ))
    }

    /// Records what target `index` made of `input` in `nanos`: the
    /// failure, saved and reported, or the features it reached.
    fn record(&self, index: usize, input: Vec<u8>, found: Result<&[u32], Failure>, nanos: u64) {
        let s = &self.campaign.shared[index];
        s.nanos.fetch_add(nanos, Ordering::Relaxed);
        s.execs.fetch_add(1, Ordering::Relaxed);
        let feats = match found {
            Ok(feats) => feats,
            Err(failure) => {
                s.findings.fetch_add(1, Ordering::Relaxed);
                let path = save_finding(&self.campaign.opts.artifacts, &s.target, &input, &failure);
                self.campaign.findings.lock().unwrap().push(Finding {
                    target: s.target.name,
                    path,
                    failure,
                    after: self.campaign.start.elapsed(),
                    execs: self.campaign.total.load(Ordering::Relaxed),
                });
                if !self.campaign.opts.keep_going {
                    self.campaign.stop.store(true, Ordering::Relaxed);
                }
                return;
            }
        };
        let mut new = false;
        {
            let mut seen = s.features.lock().unwrap();
            for &f in feats {
                new |= seen.insert(f);
            }
        }
        if new {
            if let Some(dir) = &self.campaign.opts.save_corpus {
                write_atomically(
                    &dir.join(s.target.name),
                    &format!("feat-{:016x}", hash(&input)),
                    &input,
                );
            }
            s.corpus.lock().unwrap().push(Arc::new(input));
        }
    }

    fn in_thread(&mut self) {
        let mut feats: Vec<u32> = Vec::new();
        while let Some((index, input)) = self.next_input() {
            let t0 = Instant::now();
            feats.clear();
            let shared = &self.campaign.shared[index];
            let ctx = self.campaign.ctx;
            let failure = features::collect(&mut feats, || {
                guided::failure(&shared.target, &input, ctx, shared.scope)
            });
            let nanos = t0.elapsed().as_nanos() as u64;
            let found = match failure {
                Some(f) => Err(f),
                None => Ok(&feats[..]),
            };
            self.record(index, input, found, nanos);
        }
    }

    fn in_worker(&mut self, launcher: &super::process::Launcher) {
        let mut worker: Option<Worker> = None;
        let mut queue: VecDeque<(usize, Vec<u8>)> = VecDeque::new();
        let request = |index: usize, input: &[u8]| Request::Bytes {
            target: index as u32,
            data: input.to_vec(),
        };
        let mut last = Instant::now();
        loop {
            if worker.as_ref().is_none_or(|w| !w.alive()) {
                // A fresh worker runs again what its predecessor had not.
                let mut w = match Worker::start(launcher) {
                    Ok(w) => w,
                    Err(e) => {
                        eprintln!(
                            "rafuzz fuzz: job {} stops: cannot start a worker process: {e}",
                            self.id
                        );
                        self.campaign.stop.store(true, Ordering::Relaxed);
                        return;
                    }
                };
                for (index, input) in &queue {
                    w.send(&request(*index, input));
                }
                worker = Some(w);
                last = Instant::now();
            }
            let w = worker.as_mut().expect("started above");
            while queue.len() < IN_FLIGHT {
                let Some((index, input)) = self.next_input() else {
                    break;
                };
                w.send(&request(index, &input));
                queue.push_back((index, input));
            }
            let Some((index, input)) = queue.pop_front() else {
                break;
            };
            let reply = w.receive();
            let nanos = last.elapsed().as_nanos() as u64;
            last = Instant::now();
            match reply {
                Ok(Reply::Pass { new_features }) => {
                    self.record(index, input, Ok(&new_features), nanos)
                }
                Ok(Reply::Fail(f)) | Err(f) => self.record(index, input, Err(f), nanos),
                Ok(Reply::Counters(_)) => {}
            }
        }
        if let Some(w) = worker.as_mut().filter(|w| w.alive()) {
            if let Ok(Reply::Counters(text)) = w.ask(&Request::Counters) {
                self.campaign.ctx.absorb(&text);
            }
        }
    }
}
