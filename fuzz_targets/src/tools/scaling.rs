//! `rafuzz scaling`: how an allocator's time and peak heap grow with the
//! size of the function. Cases of one shape (one generator config, one
//! seed's byte stream cut at growing lengths) from about 100 to 10,000
//! instructions; per allocator and size, the median time over a few runs
//! and the peak heap of one run; the growth exponent fitted to each
//! (least squares on log-log), as a table and an SVG with one line per
//! allocator.

use allocator::{Allocator, Case};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// What to measure.
#[derive(Clone, Debug)]
pub struct Options {
    /// Instruction counts to aim at (each case is the generated one
    /// closest to its aim).
    pub sizes: Vec<usize>,
    pub seed: u64,
    /// Runs per allocator and case; the median time is kept.
    pub repeat: usize,
    /// The generator config (`default`, `regalloc2`, ...).
    pub config: ssagen::Config,
    /// Real functions to measure instead of generated ones (a capture):
    /// for each size, the one whose instruction count is nearest.
    pub given: Vec<Case>,
}

/// The default sizes: about 100 to `max`, three per decade.
pub fn sizes_up_to(max: usize) -> Vec<usize> {
    let mut v = Vec::new();
    let mut decade = 100;
    while decade <= max {
        for k in [1, 2, 5] {
            if k * decade <= max {
                v.push(k * decade);
            }
        }
        decade *= 10;
    }
    v
}

/// The case of about `insts` instructions from the first bytes of `seed`'s
/// stream: the input length is bisected (the generator grows with it,
/// though not strictly, so the case may fall a little short).
pub fn case_of_size(config: &ssagen::Config, seed: u64, insts: usize) -> Case {
    let gen = |len: usize| {
        let bytes = crate::harness::inputs::seeded_bytes(seed, len);
        ssagen::generate_from_bytes(&bytes, config)
    };
    let (mut lo, mut hi) = (16usize, 64usize);
    // Doubling, until the case is big enough or stops growing (the
    // config's caps).
    let mut last = 0;
    loop {
        let n = gen(hi).func.num_insts();
        if n >= insts || (n == last && hi >= 1 << 16) {
            break;
        }
        last = n;
        lo = hi;
        hi *= 2;
    }
    while hi - lo > 16 {
        let mid = (lo + hi) / 2;
        if gen(mid).func.num_insts() < insts {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    gen(hi)
}

/// A generator config whose block cap does not stop a case from growing
/// to `insts` instructions.
pub fn unbounded(mut config: ssagen::Config, insts: usize) -> ssagen::Config {
    config.max_blocks = config.max_blocks.max(2 * insts);
    config
}

/// One allocator on one case.
#[derive(Clone, Copy, Debug)]
pub struct Point {
    pub insts: usize,
    pub time: Duration,
    /// Peak heap bytes during one run (`None`: not measurable here).
    pub peak: Option<usize>,
}

/// One allocator's points (only the cases it took).
pub struct Series {
    pub allocator: &'static str,
    pub points: Vec<Point>,
}

/// Measures `allocators` on cases of each size.
pub fn measure(allocators: &[&dyn Allocator], opts: &Options) -> Vec<Series> {
    let max = opts.sizes.iter().copied().max().unwrap_or(100);
    let config = unbounded(opts.config.clone(), max);
    let mut cases: Vec<Case> = if opts.given.is_empty() {
        opts.sizes
            .iter()
            .map(|&n| case_of_size(&config, opts.seed, n))
            .collect()
    } else {
        opts.sizes
            .iter()
            .filter_map(|&n| {
                opts.given
                    .iter()
                    .min_by_key(|c| c.func.num_insts().abs_diff(n))
                    .cloned()
            })
            .collect()
    };
    cases.dedup_by_key(|c| c.func.num_insts());
    allocators
        .iter()
        .map(|a| Series {
            allocator: a.name(),
            points: cases
                .iter()
                .filter_map(|case| point(*a, case, opts.repeat))
                .collect(),
        })
        .collect()
}

fn point(a: &dyn Allocator, case: &Case, repeat: usize) -> Option<Point> {
    let run = || crate::judging::panics::catch(|| a.run(&case.func, &case.machine));
    let (first, peak) = crate::harness::heap::peak_during(run);
    if !matches!(first, Ok(Ok(_))) {
        return None;
    }
    let mut times: Vec<Duration> = (0..repeat.max(1))
        .map(|_| {
            let t = Instant::now();
            let _ = std::hint::black_box(run());
            t.elapsed()
        })
        .collect();
    times.sort();
    Some(Point {
        insts: case.func.num_insts(),
        time: times[times.len() / 2],
        peak,
    })
}

/// The least-squares slope of `ln y` against `ln x`: `y` grows as `x` to
/// this power. `None` with fewer than two distinct sizes.
pub fn exponent(points: &[(f64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (pts.len() >= 2 && sxx > 0.0).then(|| sxy / sxx)
}

fn time_points(s: &Series) -> Vec<(f64, f64)> {
    s.points
        .iter()
        .map(|p| (p.insts as f64, p.time.as_secs_f64()))
        .collect()
}

fn peak_points(s: &Series) -> Vec<(f64, f64)> {
    s.points
        .iter()
        .filter_map(|p| Some((p.insts as f64, p.peak? as f64)))
        .collect()
}

/// The table: per allocator and size, time, time per instruction and peak
/// heap; then each allocator's growth exponents.
pub fn table(series: &[Series]) -> String {
    let w = series
        .iter()
        .map(|se| se.allocator.len())
        .max()
        .unwrap_or(0)
        .max(9);
    let mut s = format!(
        "{:<w$} {:>7} {:>11} {:>9} {:>10}\n",
        "allocator", "insts", "time (ms)", "ns/inst", "peak (KB)"
    );
    for se in series {
        for p in &se.points {
            let _ = writeln!(
                s,
                "{:<w$} {:>7} {:>11.3} {:>9.0} {:>10}",
                se.allocator,
                p.insts,
                p.time.as_secs_f64() * 1e3,
                p.time.as_nanos() as f64 / p.insts.max(1) as f64,
                p.peak.map_or("n/a".into(), |b| (b / 1024).to_string())
            );
        }
    }
    let _ = writeln!(
        s,
        "\ngrowth (time and peak heap grow as insts to the power):"
    );
    for se in series {
        let show = |e: Option<f64>| e.map_or("n/a".to_string(), |e| format!("{e:.2}"));
        let _ = writeln!(
            s,
            "{:<w$} time {}  peak heap {}  ({} sizes)",
            se.allocator,
            show(exponent(&time_points(se))),
            show(exponent(&peak_points(se))),
            se.points.len()
        );
    }
    s
}

/// One measure of a series, as (instructions, value) points.
type Measure = fn(&Series) -> Vec<(f64, f64)>;

const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
];

/// Two log-log panels, time and peak heap against instructions, one line
/// per allocator.
pub fn plot(series: &[Series]) -> String {
    let (pw, ph, gap) = (420.0, 300.0, 40.0);
    let w = 2.0 * pw + 3.0 * gap;
    let h = ph + 60.0 + 16.0 * series.len() as f64;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"monospace\" font-size=\"11\">\n"
    );
    let panels: [(&str, Measure); 2] = [
        ("time (s)", time_points),
        ("peak heap (bytes)", peak_points),
    ];
    for (k, (title, points)) in panels.iter().enumerate() {
        let x0 = gap + k as f64 * (pw + gap);
        let all: Vec<(f64, f64)> = series.iter().flat_map(points).collect();
        if all.is_empty() {
            continue;
        }
        let range = |f: fn(&(f64, f64)) -> f64| {
            let lo = all.iter().map(f).fold(f64::MAX, f64::min).log10().floor();
            let hi = all.iter().map(f).fold(f64::MIN, f64::max).log10().ceil();
            (lo, hi.max(lo + 1.0))
        };
        let (xl, xh) = range(|p| p.0);
        let (yl, yh) = range(|p| p.1);
        let px = |x: f64| x0 + (x.log10() - xl) / (xh - xl) * pw;
        let py = |y: f64| 20.0 + ph - (y.log10() - yl) / (yh - yl) * ph;
        let _ = writeln!(
            s,
            "<rect x=\"{x0}\" y=\"20\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#888\"/>\n<text x=\"{x0}\" y=\"14\">{title} against instructions (log-log)</text>"
        );
        for e in xl as i32..=xh as i32 {
            let x = px(10f64.powi(e));
            let _ = writeln!(
                s,
                "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">1e{e}</text>",
                ph + 34.0
            );
        }
        for e in yl as i32..=yh as i32 {
            let y = py(10f64.powi(e));
            let _ = writeln!(
                s,
                "<line x1=\"{x0}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">1e{e}</text>",
                x0 + pw,
                x0 - 2.0,
                y + 4.0
            );
        }
        for (i, se) in series.iter().enumerate() {
            let pts: Vec<String> = points(se)
                .iter()
                .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
                .collect();
            let _ = writeln!(
                s,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>",
                pts.join(" "),
                COLOURS[i % COLOURS.len()]
            );
        }
    }
    for (i, se) in series.iter().enumerate() {
        let y = ph + 56.0 + 16.0 * i as f64;
        let show = |e: Option<f64>| e.map_or("n/a".to_string(), |e| format!("{e:.2}"));
        let _ = writeln!(
            s,
            "<rect x=\"{gap}\" y=\"{:.1}\" width=\"12\" height=\"4\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{y:.1}\">{}: time ~ n^{}, peak heap ~ n^{}</text>",
            y - 4.0,
            COLOURS[i % COLOURS.len()],
            gap + 18.0,
            se.allocator,
            show(exponent(&time_points(se))),
            show(exponent(&peak_points(se)))
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exponent_of_a_power_law_is_its_power() {
        let quad: Vec<(f64, f64)> = [10.0, 100.0, 1000.0].map(|x| (x, 3.0 * x * x)).to_vec();
        assert!((exponent(&quad).unwrap() - 2.0).abs() < 1e-9);
        let lin: Vec<(f64, f64)> = [5.0, 50.0].map(|x| (x, 7.0 * x)).to_vec();
        assert!((exponent(&lin).unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(exponent(&[(10.0, 1.0)]), None);
        assert_eq!(exponent(&[(10.0, 1.0), (10.0, 2.0)]), None);
    }

    #[test]
    fn sizes_go_up_three_per_decade() {
        assert_eq!(
            sizes_up_to(10_000),
            [100, 200, 500, 1000, 2000, 5000, 10_000]
        );
        assert_eq!(sizes_up_to(300), [100, 200]);
    }

    #[test]
    fn cases_grow_to_their_aim() {
        let config = unbounded(ssagen::Config::default(), 300);
        for aim in [100, 300] {
            // The size grows with the input's length, not strictly.
            let n = case_of_size(&config, 3, aim).func.num_insts();
            assert!(
                n * 4 >= aim * 3 && n * 4 <= aim * 5 + 100,
                "aimed at {aim}, got {n}"
            );
        }
    }

    #[test]
    fn the_table_and_the_plot_show_every_allocator() {
        let opts = Options {
            sizes: vec![100, 200],
            seed: 1,
            repeat: 1,
            config: ssagen::Config::default(),
            given: Vec::new(),
        };
        let a: &dyn Allocator = &allocator::linear_scan::LinearScan;
        let series = measure(&[a], &opts);
        assert_eq!(series[0].points.len(), 2);
        // Given functions: the nearest to each size, each once.
        let given: Vec<Case> = [50, 120, 400]
            .iter()
            .map(|&n| case_of_size(&ssagen::Config::default(), 3, n))
            .collect();
        let real = Options {
            sizes: vec![100, 110, 500],
            given,
            ..opts
        };
        let points = &measure(&[a], &real)[0].points;
        assert_eq!(
            points.len(),
            2,
            "{:?}",
            points.iter().map(|p| p.insts).collect::<Vec<_>>()
        );
        let t = table(&series);
        assert!(t.contains("linear_scan") && t.contains("growth"), "{t}");
        let svg = plot(&series);
        assert_eq!(svg.matches("<polyline").count(), 1, "{svg}");
        assert!(svg.contains("linear_scan: time ~ n^"), "{svg}");
    }
}
