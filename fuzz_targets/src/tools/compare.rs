//! `rafuzz compare --allocator A --allocator B`: whether B allocates better
//! or worse than A on the same cases, by the loop-weighted cost of
//! [`crate::books::quality::Quality`] (the one definition every quality figure
//! uses), and how much slower. Both oracles judge every allocation; a case
//! either allocator refuses or gets wrong is counted apart, never compared.
//!
//! The ratio of a case is B's cost over A's, each plus one (a spill
//! store), so that a case one of them allocates without a move still has a
//! finite ratio. The cases where B loses most are saved as `.ra` files, and
//! with `--reduce` each is shrunk to a small case on which B still costs
//! at least half its excess over A (ratio `1 + (r - 1) / 2`), so a quality
//! regression arrives as a small case, as a crash does.

use crate::books::context::Context;
use crate::books::quality::Quality;
use crate::judging::judge::{allocate_and_judge, Oracles};
use allocator::{Allocator, Case};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where the cases come from.
pub enum Source {
    /// `.ra` files (a folder stands for every `.ra` file in it).
    Files(Vec<PathBuf>),
    /// `count` generated cases: input `k` is `seeded_bytes(seed + k, size)`.
    /// Generated with `config` (a profile less some features, as the
    /// command line resolves them): to see where one allocator's margin
    /// over another comes from.
    Generate {
        count: usize,
        seed: u64,
        size: usize,
        config: Box<ssagen::Config>,
    },
}

/// What `rafuzz compare` does besides comparing.
pub struct Options {
    pub source: Source,
    /// How many of the worst cases to save (and reduce).
    pub worst: usize,
    /// Where they go.
    pub save: PathBuf,
    pub reduce: bool,
    /// Longest time spent reducing each.
    pub reduce_time: std::time::Duration,
    pub fail_if_median_above: Option<f64>,
    pub plot: Option<PathBuf>,
}

/// One allocator's result on one case.
enum Run {
    Took { cost_tenths: u64, nanos: u128 },
    Refused,
    Failed(String),
}

/// Runs `a` on `case`, judged by both oracles; its cost and best-of-three
/// time when it takes the case.
fn run(a: &dyn Allocator, case: &Case, ctx: &Context) -> Run {
    match allocate_and_judge(a, case, Oracles::Both, ctx) {
        Ok(Some(out)) => {
            let mut nanos = u128::MAX;
            for _ in 0..3 {
                let t = Instant::now();
                let _ = std::hint::black_box(a.run(&case.func, &case.machine));
                nanos = nanos.min(t.elapsed().as_nanos());
            }
            Run::Took {
                cost_tenths: Quality::of(case, Some(&out)).cost_tenths,
                nanos,
            }
        }
        Ok(None) => Run::Refused,
        Err(f) => Run::Failed(f.to_string().lines().next().unwrap_or("").to_string()),
    }
}

/// `(cost_b + 1) / (cost_a + 1)`, costs in tenths.
pub fn cost_ratio(a_tenths: u64, b_tenths: u64) -> f64 {
    (b_tenths as f64 + 10.0) / (a_tenths as f64 + 10.0)
}

/// The `q` quantile (0..=1) of sorted `xs`, nearest rank.
pub fn quantile(xs: &[f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let k = ((xs.len() - 1) as f64 * q).round() as usize;
    xs[k.min(xs.len() - 1)]
}

/// A compared case: its name, the case, both costs and times.
struct Compared {
    name: String,
    case: Case,
    a: (u64, u128),
    b: (u64, u128),
}

impl Compared {
    fn ratio(&self) -> f64 {
        cost_ratio(self.a.0, self.b.0)
    }
}

/// The cases of `source`, or the exit status (and message on `err`) of a
/// file that cannot be read (3) or is malformed (1).
fn load(source: &Source, err: &mut dyn Write) -> Result<Vec<(String, Case)>, i32> {
    match source {
        Source::Generate {
            count,
            seed,
            size,
            config,
        } => Ok((0..*count as u64)
            .map(|k| {
                let s = seed.wrapping_add(k);
                let bytes = crate::harness::inputs::seeded_bytes(s, *size);
                (
                    format!("seed {s}"),
                    ssagen::generate_from_bytes(&bytes, config),
                )
            })
            .collect()),
        Source::Files(files) => {
            let mut cases = Vec::new();
            for path in crate::harness::inputs::expand_inputs(files) {
                if path.extension().is_none_or(|e| e != "ra") {
                    continue;
                }
                let src = crate::harness::inputs::read_file(&path, err).ok_or(3)?;
                match allocator::ir::text::parse_and_validate(&src) {
                    Ok((mut case, _)) => {
                        case.output = None;
                        cases.push((path.display().to_string(), case));
                    }
                    Err(diags) => {
                        for d in diags {
                            let _ = writeln!(err, "{}:{d}", path.display());
                        }
                        return Err(1);
                    }
                }
            }
            Ok(cases)
        }
    }
}

/// `rafuzz compare`: prints the comparison on `out`, errors on `err`;
/// status 1 when an allocation is wrong or the median cost ratio is above
/// `--fail-if-median-above`, 2 when there is no case, 3 when a file cannot
/// be read.
pub fn compare(
    a: &dyn Allocator,
    b: &dyn Allocator,
    opts: &Options,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let cases = match load(&opts.source, err) {
        Ok(cases) => cases,
        Err(status) => return status,
    };
    if cases.is_empty() {
        let _ = writeln!(err, "no .ra case to compare on");
        return 2;
    }
    let ctx = Context::default();
    let n = cases.len();
    let (mut took, mut refused) = ([0usize; 2], [0usize; 2]);
    let mut failed: Vec<String> = Vec::new();
    let mut both: Vec<Compared> = Vec::new();
    for (name, case) in cases {
        let ra = run(a, &case, &ctx);
        let rb = run(b, &case, &ctx);
        for (k, (r, who)) in [(&ra, a.name()), (&rb, b.name())].into_iter().enumerate() {
            match r {
                Run::Took { .. } => took[k] += 1,
                Run::Refused => refused[k] += 1,
                Run::Failed(msg) => failed.push(format!("{name}: {who}: {msg}")),
            }
        }
        if let (
            Run::Took {
                cost_tenths: ca,
                nanos: ta,
            },
            Run::Took {
                cost_tenths: cb,
                nanos: tb,
            },
        ) = (ra, rb)
        {
            both.push(Compared {
                name,
                case,
                a: (ca, ta),
                b: (cb, tb),
            });
        }
    }
    let (an, bn) = (a.name(), b.name());
    let _ = writeln!(
        out,
        "A = {an}, B = {bn}: {n} cases; {an} took {}, {bn} took {}; refused: {} and {}; wrong: {}",
        took[0],
        took[1],
        refused[0],
        refused[1],
        failed.len()
    );
    for f in &failed {
        let _ = writeln!(out, "  wrong: {f}");
    }
    let wrong = i32::from(!failed.is_empty());
    if both.is_empty() {
        let _ = writeln!(out, "no case both took: nothing to compare");
        return wrong.max(i32::from(opts.fail_if_median_above.is_some()));
    }
    let better = both.iter().filter(|c| c.b.0 < c.a.0).count();
    let same = both.iter().filter(|c| c.b.0 == c.a.0).count();
    let worse = both.len() - better - same;
    let _ = writeln!(
        out,
        "on the {} cases both took, B is better on {better}, the same on {same}, worse on {worse}",
        both.len()
    );
    let mut ratios: Vec<f64> = both.iter().map(Compared::ratio).collect();
    ratios.sort_by(f64::total_cmp);
    let mut times: Vec<f64> = both
        .iter()
        .map(|c| c.b.1 as f64 / (c.a.1 as f64).max(1.0))
        .collect();
    times.sort_by(f64::total_cmp);
    let total = |k: usize| -> f64 {
        both.iter()
            .map(|c| if k == 0 { c.a.0 } else { c.b.0 })
            .sum::<u64>() as f64
            / 10.0
    };
    let _ = writeln!(
        out,
        "total cost: A {:.1}, B {:.1} ({:.3}x)",
        total(0),
        total(1),
        total(1) / total(0).max(0.1)
    );
    for (what, xs) in [("cost", &ratios), ("time", &times)] {
        let _ = writeln!(
            out,
            "{what} ratio B/A: p10 {:.3}  median {:.3}  p90 {:.3}  max {:.3}",
            quantile(xs, 0.1),
            quantile(xs, 0.5),
            quantile(xs, 0.9),
            quantile(xs, 1.0)
        );
    }
    // The cases where B loses most.
    both.sort_by(|x, y| y.ratio().total_cmp(&x.ratio()));
    let losers: Vec<&Compared> = both
        .iter()
        .filter(|c| c.b.0 > c.a.0)
        .take(opts.worst)
        .collect();
    if !losers.is_empty() {
        let _ = std::fs::create_dir_all(&opts.save);
        let _ = writeln!(
            out,
            "where B loses most (saved in {}):",
            opts.save.display()
        );
    }
    for (k, c) in losers.iter().enumerate() {
        let path = opts.save.join(format!("worst-{}.ra", k + 1));
        let header = format!(
            "# rafuzz compare: {bn} costs {:.1}, {an} {:.1} (ratio {:.3}) on {}\n",
            c.b.0 as f64 / 10.0,
            c.a.0 as f64 / 10.0,
            c.ratio(),
            c.name
        );
        let _ = std::fs::write(
            &path,
            format!("{header}{}", allocator::ir::text::print(&c.case)),
        );
        let _ = writeln!(
            out,
            "  {}  ratio {:.3} (B {:.1}, A {:.1})  from {}",
            path.display(),
            c.ratio(),
            c.b.0 as f64 / 10.0,
            c.a.0 as f64 / 10.0,
            c.name
        );
        if opts.reduce {
            reduce_worst(a, b, c, &path, opts, out);
        }
    }
    if let Some(p) = &opts.plot {
        match std::fs::write(p, plot(&ratios, an, bn)) {
            Ok(()) => {
                let _ = writeln!(out, "plot: {}", p.display());
            }
            Err(e) => {
                let _ = writeln!(err, "{}: cannot write: {e}", p.display());
                return 3;
            }
        }
    }
    let median = quantile(&ratios, 0.5);
    match opts.fail_if_median_above {
        Some(r) if median > r => {
            let _ = writeln!(out, "FAIL: the median cost ratio {median:.3} is above {r}");
            1
        }
        _ => wrong,
    }
}

/// The costs of `a` and `b` on `case` when both take it and both oracles
/// accept both.
fn costs(a: &dyn Allocator, b: &dyn Allocator, case: &Case, ctx: &Context) -> Option<(u64, u64)> {
    let ca = allocate_and_judge(a, case, Oracles::Checker, ctx).ok()??;
    let cb = allocate_and_judge(b, case, Oracles::Checker, ctx).ok()??;
    Some((
        Quality::of(case, Some(&ca)).cost_tenths,
        Quality::of(case, Some(&cb)).cost_tenths,
    ))
}

/// Shrinks a losing case to one where B still costs at least
/// `1 + (r - 1) / 2` times A, and writes it beside the case.
fn reduce_worst(
    a: &dyn Allocator,
    b: &dyn Allocator,
    c: &Compared,
    path: &Path,
    opts: &Options,
    out: &mut dyn Write,
) {
    let keep_ratio = 1.0 + (c.ratio() - 1.0) / 2.0;
    let ctx = Context::default();
    let keep = |x: &Case| {
        costs(a, b, x, &ctx).is_some_and(|(ca, cb)| cb > ca && cost_ratio(ca, cb) >= keep_ratio)
    };
    let ropts = crate::tools::reduce::Options {
        time_limit: Some(opts.reduce_time),
        ..crate::tools::reduce::Options::default()
    };
    let (small, st) = crate::tools::reduce::reduce_case(&c.case, &keep, &ropts);
    let reduced = path.with_extension("reduced.ra");
    let (ca, cb) = costs(a, b, &small, &ctx).unwrap_or((0, 0));
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# Reduced by `rafuzz compare --reduce`: {} costs {:.1}, {} {:.1} (ratio {:.3}, kept at least {keep_ratio:.3})",
        b.name(),
        cb as f64 / 10.0,
        a.name(),
        ca as f64 / 10.0,
        cost_ratio(ca, cb)
    );
    text.push_str(&allocator::ir::text::print(&small));
    let _ = std::fs::write(&reduced, text);
    let _ = writeln!(
        out,
        "    reduced: {} ({} insts, ratio {:.3}, {} candidates, {:.1} s)",
        reduced.display(),
        small.func.num_insts(),
        cost_ratio(ca, cb),
        st.tried,
        st.elapsed.as_secs_f64()
    );
}

/// The distribution of the cost ratio as an SVG histogram over log2 bins
/// (a bar per eighth of a doubling, from a quarter to four times).
pub fn plot(sorted: &[f64], a: &str, b: &str) -> String {
    const BINS: usize = 32;
    let bin = |r: f64| -> usize {
        let x = (r.max(1e-9).log2() + 2.0) / 4.0 * BINS as f64;
        (x.floor().max(0.0) as usize).min(BINS - 1)
    };
    let mut counts = [0usize; BINS];
    for &r in sorted {
        counts[bin(r)] += 1;
    }
    let top = counts.iter().copied().max().unwrap_or(1).max(1);
    let (w, h, left, bottom) = (640.0, 320.0, 40.0, 40.0);
    let bw = (w - left - 10.0) / BINS as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"monospace\" font-size=\"11\">"
    );
    let _ = writeln!(
        s,
        "<text x=\"{left}\" y=\"14\">cost of {b} / cost of {a} per case ({} cases)</text>",
        sorted.len()
    );
    let base = h - bottom;
    for (k, &n) in counts.iter().enumerate() {
        let bh = (base - 24.0) * n as f64 / top as f64;
        let x = left + k as f64 * bw;
        let fill = if k < BINS / 2 { "#4a4" } else { "#c44" };
        let _ = writeln!(
            s,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{bh:.1}\" fill=\"{fill}\"><title>{n}</title></rect>",
            base - bh,
            bw - 1.0
        );
    }
    for (r, label) in [
        (0.25f64, "1/4"),
        (0.5, "1/2"),
        (1.0, "1"),
        (2.0, "2"),
        (4.0, "4"),
    ] {
        let x = left + (r.log2() + 2.0) / 4.0 * BINS as f64 * bw;
        let _ = writeln!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{base}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#888\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{label}</text>",
            base + 5.0,
            base + 18.0
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{left}\" y=\"{:.1}\">green: {b} cheaper; red: {b} dearer; tallest bar {top} cases</text>",
        h - 6.0
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_and_quantiles() {
        assert_eq!(cost_ratio(0, 0), 1.0);
        assert_eq!(cost_ratio(10, 30), 2.0);
        let xs = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&xs, 0.5), 3.0);
        assert_eq!(quantile(&xs, 0.0), 1.0);
        assert_eq!(quantile(&xs, 1.0), 5.0);
        assert_eq!(quantile(&xs, 0.1), 1.0);
        assert_eq!(quantile(&xs, 0.9), 5.0);
    }

    #[test]
    fn the_plot_puts_each_ratio_in_its_bar() {
        let svg = plot(&[0.5, 1.0, 1.0, 2.0], "a", "b");
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("<title>2</title>"), "{svg}");
        assert_eq!(svg.matches("<title>1</title>").count(), 2, "{svg}");
        assert!(svg.contains("(4 cases)"));
    }
}
