//! Allocation quality as `differential` compares it: per allocator, the
//! cases it took and, per case, its moves, spills, reloads, register moves
//! and moves weighted by loop depth, and the loop-weighted cost
//! ([`allocator::Output::cost_tenths`]), over every case it took and over
//! the cases every allocator took.

use allocator::{Case, Output};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// One allocator's figures, summed over cases.
#[derive(Clone, Copy, Default)]
pub struct Quality {
    pub cases: u64,
    pub unsupported: u64,
    /// Refused as a known bug (see [`crate::judging::refusals`]).
    pub suppressed: u64,
    pub moves: u64,
    pub spills: u64,
    pub reloads: u64,
    pub reg_moves: u64,
    pub weighted: u64,
    /// Loop-weighted cost, in tenths.
    pub cost_tenths: u64,
}

impl Quality {
    /// One refused case.
    pub fn refused(why: crate::judging::refusals::Refused) -> Quality {
        let suppressed = why == crate::judging::refusals::Refused::Suppressed;
        Quality {
            unsupported: u64::from(!suppressed),
            suppressed: u64::from(suppressed),
            ..Quality::default()
        }
    }

    /// The figures of one allocation of `case` (`None`: not supported):
    /// the one place every quality figure (`rafuzz alloc`, `differential
    /// --stats`, `rafuzz compare`, the benchmark) is computed.
    pub fn of(case: &Case, out: Option<&Output>) -> Quality {
        let mut one = Quality::default();
        match out {
            None => one.unsupported = 1,
            Some(out) => {
                let st = out.stats(|r| case.machine.fixed_stack[r.class()].contains(&r));
                one.cases = 1;
                one.moves = st.moves as u64;
                one.spills = st.spills as u64;
                one.reloads = st.reloads as u64;
                one.reg_moves = st.reg_moves as u64;
                let depth = allocator::analysis::loops::loop_depths(&case.func);
                one.weighted = out.weighted_moves(&case.func, &depth);
                one.cost_tenths = out.cost_tenths(&case.func, &depth, |r| {
                    case.machine.fixed_stack[r.class()].contains(&r)
                });
            }
        }
        one
    }

    fn fields(&self) -> [u64; 9] {
        [
            self.cases,
            self.unsupported,
            self.moves,
            self.spills,
            self.reloads,
            self.reg_moves,
            self.weighted,
            self.cost_tenths,
            self.suppressed,
        ]
    }

    fn from_fields(f: &[u64]) -> Quality {
        let at = |i: usize| f.get(i).copied().unwrap_or(0);
        Quality {
            cases: at(0),
            unsupported: at(1),
            moves: at(2),
            spills: at(3),
            reloads: at(4),
            reg_moves: at(5),
            weighted: at(6),
            cost_tenths: at(7),
            suppressed: at(8),
        }
    }

    fn add(&mut self, o: &Quality) {
        self.cases += o.cases;
        self.unsupported += o.unsupported;
        self.suppressed += o.suppressed;
        self.moves += o.moves;
        self.spills += o.spills;
        self.reloads += o.reloads;
        self.reg_moves += o.reg_moves;
        self.weighted += o.weighted;
        self.cost_tenths += o.cost_tenths;
    }
}

/// An allocator's name in a book: its own, or one a worker process wrote.
type Name = Cow<'static, str>;

/// The figures of a campaign, per allocator.
#[derive(Default)]
pub struct QualityBook {
    all: Mutex<BTreeMap<Name, Quality>>,
    /// The same, over only the cases every allocator allocated: the fair
    /// comparison when some allocators refuse some cases.
    common: Mutex<BTreeMap<Name, Quality>>,
}

impl QualityBook {
    /// Adds one allocator's figures on one case.
    pub fn record(&self, name: &'static str, q: &Quality) {
        self.all
            .lock()
            .unwrap()
            .entry(Cow::Borrowed(name))
            .or_default()
            .add(q);
    }

    /// Adds one case to the common table, when every allocator took it.
    pub fn record_common(&self, per_allocator: &[(&'static str, Quality)]) {
        if per_allocator.iter().all(|(_, q)| q.cases == 1) {
            let mut common = self.common.lock().unwrap();
            for (name, q) in per_allocator {
                common.entry(Cow::Borrowed(*name)).or_default().add(q);
            }
        }
    }

    /// The book as `quality all|common NAME FIELDS...` lines (see
    /// [`crate::books::context::Context::export`]).
    pub fn export(&self) -> String {
        let mut s = String::new();
        for (table, book) in [("all", &self.all), ("common", &self.common)] {
            for (name, q) in book.lock().unwrap().iter() {
                let fields: Vec<String> = q.fields().iter().map(u64::to_string).collect();
                s.push_str(&format!("quality {table} {name} {}\n", fields.join(" ")));
            }
        }
        s
    }

    /// Adds one line of [`QualityBook::export`].
    pub fn absorb(&self, line: &str) {
        let words: Vec<&str> = line.split(' ').collect();
        let (Some(&table), Some(&name)) = (words.get(1), words.get(2)) else {
            return;
        };
        let book = match table {
            "all" => &self.all,
            "common" => &self.common,
            _ => return,
        };
        let fields: Vec<u64> = words[3..].iter().map(|w| w.parse().unwrap_or(0)).collect();
        book.lock()
            .unwrap()
            .entry(Cow::Owned(name.to_string()))
            .or_default()
            .add(&Quality::from_fields(&fields));
    }

    /// The comparison tables: per allocator, mean counts per case, over the
    /// cases each allocator took, then over the cases all of them took.
    pub fn report(&self) -> String {
        let all = table(&self.all.lock().unwrap());
        let common = self.common.lock().unwrap();
        let n = common.values().next().map_or(0, |q| q.cases);
        format!(
            "{all}
over the {n} cases every allocator took:
{}",
            table(&common)
        )
    }
}

fn table(q: &BTreeMap<Name, Quality>) -> String {
    let w = q.keys().map(|n| n.len()).max().unwrap_or(0).max(9);
    let mut s = format!(
        "{:<w$} {:>7} {:>11} {:>10} {:>8} {:>8} {:>8} {:>9} {:>13} {:>8}",
        "allocator",
        "cases",
        "unsupported",
        "suppressed",
        "moves",
        "spills",
        "reloads",
        "reg-moves",
        "loop-weighted",
        "cost"
    );
    for (name, x) in q.iter() {
        let n = x.cases.max(1) as f64;
        s.push_str(&format!(
            "\n{name:<w$} {:>7} {:>11} {:>10} {:>8.1} {:>8.1} {:>8.1} {:>9.1} {:>13.1} {:>8.2}",
            x.cases,
            x.unsupported,
            x.suppressed,
            x.moves as f64 / n,
            x.spills as f64 / n,
            x.reloads as f64 / n,
            x.reg_moves as f64 / n,
            x.weighted as f64 / n,
            x.cost_tenths as f64 / 10.0 / n
        ));
    }
    s
}
