//! `rafuzz-capture`: every allocation problem Cranelift poses when it
//! compiles real programs, as rafuzz cases. Built by `scripts/capture.sh`
//! against a copy of regalloc2 with a recording hook (`capture/tap/tap.rs`),
//! which writes each call's function, machine and answer as a `.ra` case.
//!
//!     rafuzz-capture [--target T]... [--algorithm ion|fastalloc]... INPUT... OUTDIR
//!
//! INPUT: `.wasm`, `.wat` or `.clif`. `--regalloc2-checker` turns on
//! Cranelift's `regalloc_checker` setting, so that regalloc2's own checker
//! judges each allocation too (a rejection fails the compilation), to set
//! its verdicts beside ours.
//!
//! Each input (`.wasm` or `.wat`) is precompiled with wasmtime's
//! `Engine::precompile_module` (no runtime), and each `.clif` file's
//! functions compiled with Cranelift itself, for each target and algorithm, in
//! a process of its own so that a compiler panic is caught and reported as a
//! finding of its own. Cases go to `OUTDIR/<target>/<algorithm>/<module>-<call>.ra`
//! (the call number counts regalloc2's calls in compilation order: the
//! module's functions, then its trampolines). The summary names, per module,
//! target and algorithm: functions, instructions, refused (regalloc2 gave
//! up), unrepresentable (not a valid case of the format), misordered (a
//! block numbered before one of its dominators, or with successors and no
//! predecessor before it: docs/regalloc2.md, "Block numbering"), how many of
//! regalloc2's allocations each of rafuzz's oracles rejects (the symbolic
//! checker; the interpreter on three paths) and the time taken.
//!
//! Each compilation also runs rafuzz's checker in-process, through its entry
//! point over regalloc2's own types (`checker::regalloc2`), on every
//! allocation as regalloc2 returns it: the `in-process` column counts the
//! allocations it rejects or cannot judge (both 0 when all is well), and
//! `overhead` is its time as a share of the compilation's own (the
//! compilation less the checker and the tap's writing of cases).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The targets captured by default.
const TARGETS: [&str; 3] = [
    "x86_64-unknown-linux-gnu",
    "aarch64-unknown-linux-gnu",
    "riscv64gc-unknown-linux-gnu",
];

/// The Cranelift ISA flags each target is compiled with, chosen rather than
/// inherited: riscv64gc's defaults leave out the vector extension, without
/// which Cranelift 0.135.8 has no store for a wasm `v128`
/// (`StoreOP::from_type` hits `unreachable!`).
fn target_flags(target: &str) -> &'static [&'static str] {
    if target.starts_with("riscv64") {
        &["has_v"]
    } else {
        &[]
    }
}

/// regalloc2's algorithms, by the names rafuzz gives them, with Cranelift's
/// setting for each.
const ALGORITHMS: [(&str, &str); 2] = [("ion", "backtracking"), ("fastalloc", "single_pass")];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--one") {
        std::process::exit(one(&args[1..]));
    }
    let mut targets = Vec::new();
    let mut algorithms = Vec::new();
    let mut rest = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--target" => targets.push(it.next().unwrap_or_else(|| usage())),
            "--algorithm" => algorithms.push(it.next().unwrap_or_else(|| usage())),
            // Cranelift's own `regalloc_checker` setting: regalloc2's checker
            // runs on each allocation, and a rejection fails the compilation.
            "--regalloc2-checker" => std::env::set_var("RAFUZZ_CAPTURE_RA2_CHECKER", "1"),
            "-h" | "--help" => usage(),
            _ => rest.push(a),
        }
    }
    if rest.len() < 2 {
        usage();
    }
    let out = PathBuf::from(rest.pop().unwrap());
    if targets.is_empty() {
        targets = TARGETS.iter().map(|t| t.to_string()).collect();
    }
    if algorithms.is_empty() {
        algorithms = ALGORITHMS.iter().map(|a| a.0.to_string()).collect();
    }
    for a in &algorithms {
        if !ALGORITHMS.iter().any(|(n, _)| n == a) {
            eprintln!("no algorithm named `{a}` (ion, fastalloc)");
            std::process::exit(2);
        }
    }
    let me = std::env::current_exe().expect("the capture tool's own path");
    println!(
        "{:<10} {:<28} {:<9} {:>9} {:>12} {:>7} {:>15} {:>10} {:>8} {:>7} {:>10} {:>8} {:>7}",
        "module",
        "target",
        "algorithm",
        "functions",
        "instructions",
        "refused",
        "unrepresentable",
        "misordered",
        "checker",
        "interp",
        "in-process",
        "overhead",
        "seconds"
    );
    let mut status = 0;
    for input in &rest {
        let module = Path::new(input)
            .file_stem()
            .map_or("module".into(), |s| s.to_string_lossy().into_owned());
        for t in &targets {
            for a in &algorithms {
                let dir = out.join(t).join(a);
                std::fs::create_dir_all(&dir).expect("the output folder");
                // What an earlier capture of this module left.
                for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if name.starts_with(&format!("{module}-"))
                        || name.starts_with(&format!("{module}."))
                    {
                        let _ = std::fs::remove_file(e.path());
                    }
                }
                let start = Instant::now();
                let run = Command::new(&me)
                    .args(["--one", input, t, a])
                    .env("RAFUZZ_TAP_DIR", &dir)
                    .env("RAFUZZ_TAP_PREFIX", &module)
                    .output()
                    .expect("the capture tool runs itself");
                let secs = start.elapsed().as_secs_f64();
                let s = summarize(&dir, &module);
                let inp = InProcess::parse(&String::from_utf8_lossy(&run.stdout));
                println!(
                    "{:<10} {:<28} {:<9} {:>9} {:>12} {:>7} {:>15} {:>10} {:>8} {:>7} {:>10} {:>8} {:>7.1}",
                    module,
                    t,
                    a,
                    s.functions,
                    s.insts,
                    s.refused,
                    s.unrepresentable,
                    s.misordered.len(),
                    s.checker_rejects,
                    s.interp_diverges,
                    inp.as_ref().map_or("-".into(), |p| (p.wrong + p.unjudgeable).to_string()),
                    inp.as_ref().map_or("-".into(), |p| format!("{:.1}%", 100.0 * p.overhead())),
                    secs
                );
                if let Some(p) = &inp {
                    if p.wrong + p.unjudgeable > 0 {
                        status = 1;
                        println!(
                            "    IN-PROCESS CHECKER: {} of {} allocations rejected, {} not judged (first: {})",
                            p.wrong, p.checked, p.unjudgeable, p.first
                        );
                    }
                    // Every allocation regalloc2 made must have been checked.
                    if p.checked as usize != s.functions - s.refused {
                        status = 1;
                        println!(
                            "    IN-PROCESS CHECKER: saw {} allocations, the tap recorded {}",
                            p.checked,
                            s.functions - s.refused
                        );
                    }
                }
                for f in &s.rejected {
                    println!("    REJECTED: {f}");
                }
                for f in &s.misordered {
                    println!("    MISORDERED: {f}");
                }
                if !s.rejected.is_empty() {
                    status = 1;
                }
                for (why, n) in &s.reasons {
                    println!("    unrepresentable: {n} x {why}");
                }
                if !run.status.success() {
                    status = 1;
                    let err = String::from_utf8_lossy(&run.stderr);
                    let line = err
                        .lines()
                        .find(|l| l.contains("panicked"))
                        .or_else(|| err.lines().find(|l| !l.trim().is_empty()))
                        .unwrap_or("");
                    println!("    COMPILER FAILED ({}): {line}", run.status);
                    let _ = std::fs::write(
                        dir.join(format!("{module}.compiler-failure.txt")),
                        err.as_bytes(),
                    );
                }
            }
        }
    }
    std::process::exit(status);
}

fn usage() -> ! {
    eprintln!(
        "usage: rafuzz-capture [--target TRIPLE]... [--algorithm ion|fastalloc]... [--regalloc2-checker] INPUT... OUTDIR"
    );
    std::process::exit(2);
}

/// What the checker run in-process saw in one child: allocations checked,
/// rejected and not judged, the first complaint, and the times the overhead
/// is computed from.
#[derive(Default)]
struct InProcess {
    checked: u64,
    wrong: u64,
    unjudgeable: u64,
    first: String,
    checker: Duration,
    compile: Duration,
    recording: Duration,
}

impl InProcess {
    /// The line a child prints last.
    fn line(&self) -> String {
        format!(
            "in-process {} {} {} {} {} {} {}",
            self.checked,
            self.wrong,
            self.unjudgeable,
            self.checker.as_nanos(),
            self.compile.as_nanos(),
            self.recording.as_nanos(),
            self.first.replace('\n', " ")
        )
    }

    fn parse(stdout: &str) -> Option<InProcess> {
        let line = stdout
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("in-process "))?;
        let mut w = line.splitn(7, ' ');
        let mut num = || w.next()?.parse::<u64>().ok();
        let (checked, wrong, unjudgeable) = (num()?, num()?, num()?);
        let (checker, compile, recording) = (num()?, num()?, num()?);
        Some(InProcess {
            checked,
            wrong,
            unjudgeable,
            checker: Duration::from_nanos(checker),
            compile: Duration::from_nanos(compile),
            recording: Duration::from_nanos(recording),
            first: w.next().unwrap_or("").to_string(),
        })
    }

    /// The checker's time as a share of the compilation's own: the whole
    /// compilation less the checker and the tap's writing.
    fn overhead(&self) -> f64 {
        let own = self
            .compile
            .saturating_sub(self.checker)
            .saturating_sub(self.recording);
        self.checker.as_secs_f64() / own.as_secs_f64().max(1e-9)
    }
}

/// The checker and what it saw, for the whole child process (Cranelift may
/// compile on any thread).
static CHECKER: Mutex<Option<(checker::regalloc2::Ra2Checker, InProcess)>> = Mutex::new(None);

/// The tap's observer: rafuzz's checker on one of regalloc2's allocations,
/// in the compiling process. A panic of the checker counts as a function
/// not judged, with its message.
fn observe(func: &dyn regalloc2::Function, env: &regalloc2::MachineEnv, out: &regalloc2::Output) {
    let mut guard = CHECKER.lock().unwrap_or_else(|e| e.into_inner());
    let (checker, seen) = guard.get_or_insert_with(Default::default);
    let call = regalloc2::tap::calls().saturating_sub(1);
    let start = Instant::now();
    let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        checker.check(func, env, out)
    }));
    seen.checker += start.elapsed();
    seen.checked += 1;
    let complaint = match verdict {
        Ok(Ok(())) => return,
        Ok(Err(checker::regalloc2::Rejection::Wrong(errs))) => {
            seen.wrong += 1;
            errs.first().map_or(String::new(), |e| e.message.clone())
        }
        Ok(Err(checker::regalloc2::Rejection::Unjudgeable(why))) => {
            seen.unjudgeable += 1;
            format!("not judged: {}", why.first().map_or("", String::as_str))
        }
        Err(panic) => {
            seen.unjudgeable += 1;
            *checker = Default::default();
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            format!("the checker panicked: {msg}")
        }
    };
    if seen.first.is_empty() {
        seen.first = format!("call {call}: {complaint}");
    }
}

/// In a child process: compiles `input` for one target and algorithm while
/// the tap records and the checker runs in-process; prints what the
/// checker saw ([`InProcess::line`]).
fn one(args: &[String]) -> i32 {
    regalloc2::tap::set_observer(observe);
    let start = Instant::now();
    let status = compile(args);
    let mut guard = CHECKER.lock().unwrap_or_else(|e| e.into_inner());
    let (_, seen) = guard.get_or_insert_with(Default::default);
    seen.compile = start.elapsed();
    seen.recording = Duration::from_nanos(regalloc2::tap::recording_nanos());
    println!("{}", seen.line());
    status
}

/// Compiles `input` for one target and algorithm.
fn compile(args: &[String]) -> i32 {
    let [input, target, algorithm] = args else {
        usage();
    };
    let setting = ALGORITHMS
        .iter()
        .find(|(n, _)| n == algorithm)
        .map(|(_, s)| *s)
        .unwrap_or_else(|| usage());
    if input.ends_with(".clif") {
        return clif(input, target, setting);
    }
    let bytes = match std::fs::read(input) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{input}: {e}");
            return 2;
        }
    };
    let mut config = wasmtime::Config::new();
    if let Err(e) = config.target(target) {
        eprintln!("{target}: {e}");
        return 2;
    }
    // SAFETY: documented Cranelift settings, with values they take.
    unsafe {
        config.cranelift_flag_set("regalloc_algorithm", setting);
        if regalloc2_checker() {
            config.cranelift_flag_enable("regalloc_checker");
        }
        for flag in target_flags(target) {
            config.cranelift_flag_enable(flag);
        }
    }
    let engine = match wasmtime::Engine::new(&config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{target}: {e}");
            return 2;
        }
    };
    match engine.precompile_module(&bytes) {
        Ok(_) => 0,
        Err(e) => {
            eprintln!("{input}: {e:?}");
            1
        }
    }
}

/// Compiles every function of the `.clif` file `input` with Cranelift for
/// `target` (x86-64 with `has_cmpxchg16b`, for 128-bit atomics), the
/// regalloc algorithm `setting`, while the tap records.
fn clif(input: &str, target: &str, setting: &str) -> i32 {
    use cranelift_codegen::settings::{self, Configurable};
    let text = match std::fs::read_to_string(input) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{input}: {e}");
            return 2;
        }
    };
    let funcs = match cranelift_reader::parse_functions(&text) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{input}: {e}");
            return 2;
        }
    };
    let mut shared = settings::builder();
    shared
        .set("regalloc_algorithm", setting)
        .expect("a Cranelift setting");
    if regalloc2_checker() {
        shared
            .enable("regalloc_checker")
            .expect("a Cranelift setting");
    }
    let arch = target.split('-').next().unwrap_or(target);
    let mut isa = match cranelift_codegen::isa::lookup_by_name(arch) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{target}: {e}");
            return 2;
        }
    };
    for flag in target_flags(target).iter().chain(if arch == "x86_64" {
        &["has_cmpxchg16b"][..]
    } else {
        &[][..]
    }) {
        isa.enable(flag).expect("an ISA flag of the target");
    }
    let isa = match isa.finish(settings::Flags::new(shared)) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{target}: {e}");
            return 2;
        }
    };
    for f in funcs {
        let name = f.name.to_string();
        let mut ctx = cranelift_codegen::Context::for_function(f);
        if let Err(e) = ctx.compile(&*isa, &mut Default::default()) {
            eprintln!("{input}: {name}: {e:?}");
            return 1;
        }
    }
    0
}

/// Whether `--regalloc2-checker` was given (the parent passes it on to
/// its children through the environment).
fn regalloc2_checker() -> bool {
    std::env::var_os("RAFUZZ_CAPTURE_RA2_CHECKER").is_some()
}

/// What the tap wrote for one module, target and algorithm.
#[derive(Default)]
struct Summary {
    functions: usize,
    insts: usize,
    refused: usize,
    unrepresentable: usize,
    /// regalloc2's allocations our checker rejects, and those the
    /// interpreter sees read a wrong value.
    checker_rejects: usize,
    interp_diverges: usize,
    /// The files of the rejected allocations, with the first complaint.
    rejected: Vec<String>,
    /// The functions whose block numbering breaks what regalloc2's
    /// fastalloc and checker rely on (docs/regalloc2.md, "Block
    /// numbering"): a block before one of its dominators, or a block with
    /// successors and no predecessor before it; with the first such block.
    misordered: Vec<String>,
    /// The first validation error of each unrepresentable case, less its
    /// location, with how many cases it was first in.
    reasons: Vec<(String, usize)>,
}

fn summarize(dir: &Path, module: &str) -> Summary {
    let mut s = Summary::default();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| {
        p.extension().is_some_and(|x| x == "ra")
            && p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(module))
    });
    files.sort();
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        s.functions += 1;
        // Instruction lines of the function section (the allocation
        // section's are indented less).
        s.insts += text.lines().filter(|l| l.starts_with("    inst")).count();
        if text.contains("# regalloc2 error:") {
            s.refused += 1;
        }
        let parsed = allocator::ir::text::parse_and_validate(text.as_bytes());
        if let Ok((case, _)) = &parsed {
            use allocator::analysis::{domtree::DomTree, numbering};
            let f = &case.func;
            if !numbering::dominators_first(f, &DomTree::new(f)) {
                s.misordered
                    .push(format!("{}: a block before its dominator", p.display()));
            } else if let Some(b) = numbering::block_before_its_preds(f) {
                s.misordered
                    .push(format!("{}: {b} has no predecessor before it", p.display()));
            }
            if let Some(out) = &case.output {
                let errs = checker::check(&case.func, &case.machine, out);
                let diverged = (0..3).find_map(|seed| {
                    checker::interp::run(&case.func, &case.machine, out, seed, 5_000).err()
                });
                s.checker_rejects += usize::from(!errs.is_empty());
                s.interp_diverges += usize::from(diverged.is_some());
                if let Some(e) = errs.first() {
                    s.rejected.push(format!("{}: checker: {e}", p.display()));
                } else if let Some(d) = diverged {
                    s.rejected
                        .push(format!("{}: interpreter: {d}", p.display()));
                }
            }
        }
        if let Err(errs) = parsed {
            s.unrepresentable += 1;
            let msg = errs[0].to_string();
            let why = msg
                .split_once(": ")
                .map_or(msg.as_str(), |m| m.1)
                .to_string();
            // Numbers blanked, so that one rule is one line.
            let mut why: String = why
                .chars()
                .map(|c| if c.is_ascii_digit() { '#' } else { c })
                .collect();
            while why.contains("##") {
                why = why.replace("##", "#");
            }
            match s.reasons.iter_mut().find(|r| r.0 == why) {
                Some(r) => r.1 += 1,
                None => s.reasons.push((why, 1)),
            }
        }
    }
    s.reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
    s.reasons.truncate(8);
    s
}
