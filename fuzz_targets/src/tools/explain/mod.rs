//! `rafuzz explain CASE.ra`: what each location holds at each point of an
//! allocation, as the symbolic checker sees it, with the first error marked
//! where it happens (or, when the checker finds none, the interpreter's
//! first divergence). The terminal view is here; [`html`] draws the same
//! rows as a grid.
//!
//! Both views read one model: the [`Row`]s of the function in program order
//! (a block header, each edit, each instruction), each with the location
//! writes the checker's [`trace`] reported there and the problems found
//! there.

pub mod html;

use allocator::ir::validate::Site;
use allocator::{Allocation, Block, Case, Function, Inst, InstPosition, Output, VReg};
use checker::symbolic::trace::{trace, Change, Trace, TracePoint};
use std::fmt::Write;

/// What to show.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Follow one value only.
    pub vreg: Option<VReg>,
    /// Show one block only.
    pub block: Option<Block>,
}

/// A line of the function: where a block starts, an edit, an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    Block(Block),
    Edit(usize),
    Inst(Inst),
}

/// A problem found at a row: the checker's message, or the interpreter's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The location it is about, when it names one.
    pub loc: Option<Allocation>,
    pub message: String,
}

/// One row and what happens there.
#[derive(Clone, Debug)]
pub struct Row {
    pub kind: RowKind,
    pub block: Block,
    /// `trace.changes[changes.0..changes.1]`.
    pub changes: (usize, usize),
    pub problems: Vec<Problem>,
}

/// The rows of an allocation with its trace.
pub struct Model<'a> {
    pub case: &'a Case,
    pub out: &'a Output,
    pub trace: Trace,
    pub rows: Vec<Row>,
    /// The first problem's row, if any.
    pub first_problem: Option<usize>,
    /// Whether the problems come from the interpreter (the checker found
    /// none).
    pub from_interp: bool,
}

/// The row an error site belongs to.
fn row_of_site(site: Site) -> Option<RowKind> {
    match site {
        Site::Alloc(i, _)
        | Site::Operand(i, _)
        | Site::Inst(i)
        | Site::Clobber(i, _)
        | Site::Target(i, _)
        | Site::BranchArg(i, _, _) => Some(RowKind::Inst(i)),
        Site::Edit(e) => Some(RowKind::Edit(e)),
        Site::Block(b) | Site::BlockParam(b, _) => Some(RowKind::Block(b)),
        _ => None,
    }
}

fn loc_of_site(out: &Output, f: &Function, site: Site) -> Option<Allocation> {
    match site {
        Site::Alloc(i, k) => out.allocs.get(f.inst_operand_range(i).start + k).copied(),
        Site::Edit(e) => out.edits.get(e).map(|m| m.1.to),
        _ => None,
    }
}

impl<'a> Model<'a> {
    /// Traces `out` on `case` and lays out the rows. Problems that belong to
    /// no row (a wrong operand count, say) go to the first row.
    pub fn new(case: &'a Case, out: &'a Output) -> Model<'a> {
        let f = &case.func;
        let trace = trace(f, &case.machine, out);
        let mut rows = Vec::new();
        let mut e = 0;
        let mut c = 0;
        let changes_at = |c: &mut usize, at: TracePoint| {
            let start = *c;
            while *c < trace.changes.len() && trace.changes[*c].at == at {
                *c += 1;
            }
            (start, *c)
        };
        for b in f.blocks() {
            rows.push(Row {
                kind: RowKind::Block(b),
                block: b,
                changes: (c, c),
                problems: Vec::new(),
            });
            for i in f.block_insts(b).iter() {
                for pos in [InstPosition::Before, InstPosition::After] {
                    while e < out.edits.len()
                        && out.edits[e].0.inst() == i
                        && out.edits[e].0.pos() == pos
                    {
                        rows.push(Row {
                            kind: RowKind::Edit(e),
                            block: b,
                            changes: changes_at(&mut c, TracePoint::Edit(e)),
                            problems: Vec::new(),
                        });
                        e += 1;
                    }
                    if pos == InstPosition::Before {
                        rows.push(Row {
                            kind: RowKind::Inst(i),
                            block: b,
                            changes: changes_at(&mut c, TracePoint::Inst(i)),
                            problems: Vec::new(),
                        });
                    }
                }
            }
        }
        let mut m = Model {
            case,
            out,
            trace,
            rows,
            first_problem: None,
            from_interp: false,
        };
        let errors: Vec<(Option<RowKind>, Problem)> = m
            .trace
            .errors
            .iter()
            .map(|err| {
                (
                    row_of_site(err.site),
                    Problem {
                        loc: loc_of_site(out, f, err.site),
                        message: err.message.clone(),
                    },
                )
            })
            .collect();
        if errors.is_empty() {
            if let Err(d) = checker::interp::run(f, &case.machine, out, 0, 100_000) {
                m.from_interp = true;
                m.place(
                    Some(RowKind::Inst(d.inst)),
                    Problem {
                        loc: Some(d.alloc),
                        message: d.to_string(),
                    },
                );
            }
        }
        for (kind, p) in errors {
            m.place(kind, p);
        }
        m
    }

    fn place(&mut self, kind: Option<RowKind>, p: Problem) {
        let r = kind
            .and_then(|k| self.rows.iter().position(|r| r.kind == k))
            .unwrap_or(0);
        if self.first_problem.is_none_or(|f| r < f) {
            self.first_problem = Some(r);
        }
        if let Some(row) = self.rows.get_mut(r) {
            row.problems.push(p);
        }
    }

    /// The writes of row `r`.
    pub fn changes(&self, r: usize) -> &[Change] {
        let (a, b) = self.rows[r].changes;
        &self.trace.changes[a..b]
    }

    /// The row's text as the case file writes it (without its allocation).
    pub fn row_text(&self, r: usize) -> String {
        let f = &self.case.func;
        let mut s = String::new();
        match self.rows[r].kind {
            RowKind::Block(b) => {
                let _ = write!(s, "{b}");
                let params = f.block_params(b);
                if !params.is_empty() {
                    let _ = write!(s, "({})", names(params, ""));
                }
                s.push(':');
            }
            RowKind::Edit(e) => {
                let (p, mv) = self.out.edits[e];
                let pos = match p.pos() {
                    InstPosition::Before => "before",
                    InstPosition::After => "after",
                };
                let _ = write!(s, "edit {pos} {}: {} -> {}", p.inst(), mv.from, mv.to);
            }
            RowKind::Inst(i) => {
                let _ = write!(s, "{i}: ");
                allocator::ir::text::print_inst(&mut s, f, i);
            }
        }
        s
    }

    /// Each operand of instruction `i` with its location: `use v3f in p0f`.
    pub fn operands(&self, i: Inst) -> Vec<(VReg, bool, Allocation)> {
        let f = &self.case.func;
        let base = f.inst_operand_range(i).start;
        f.inst_operands(i)
            .iter()
            .enumerate()
            .map(|(k, op)| {
                let a = self
                    .out
                    .allocs
                    .get(base + k)
                    .copied()
                    .unwrap_or(Allocation::None);
                (op.vreg(), op.is_def(), a)
            })
            .collect()
    }
}

/// `xs` named and comma-separated, or `none` when there are none.
fn names<T: std::fmt::Display>(xs: &[T], none: &str) -> String {
    if xs.is_empty() {
        return none.into();
    }
    let names: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    names.join(", ")
}

/// Names a set of vregs: `v1i, v4i`, or `nothing`.
pub fn describe(holds: &[VReg]) -> String {
    names(holds, "nothing")
}

/// The terminal view.
pub fn text(m: &Model, opts: &Options) -> String {
    let mut s = String::new();
    let n_err = m.trace.errors.len();
    let _ = writeln!(
        s,
        "# {}",
        match (n_err, m.from_interp) {
            (0, false) => "the checker and the interpreter accept this allocation".to_string(),
            (0, true) => "the checker accepts this allocation; the interpreter diverges".into(),
            (n, _) => format!("the checker reports {n} error(s); the first is marked >>>"),
        }
    );
    // Where the followed vreg is, as the rows go by.
    let mut places: Vec<Allocation> = Vec::new();
    for (r, row) in m.rows.iter().enumerate() {
        if opts.block.is_some_and(|b| b != row.block) {
            continue;
        }
        let mark = if m.first_problem == Some(r) {
            ">>> "
        } else {
            "    "
        };
        let indent = match row.kind {
            RowKind::Block(_) => "",
            _ => "  ",
        };
        let mut lines: Vec<String> = Vec::new();
        match row.kind {
            RowKind::Block(b) => match &m.trace.entry[b.index()] {
                None => lines.push("no path reaches this block".into()),
                Some(locs) => {
                    if let Some(v) = opts.vreg {
                        places = locs
                            .iter()
                            .filter(|(_, h)| h.contains(&v))
                            .map(|(l, _)| *l)
                            .collect();
                        lines.push(format!("{v} on entry: {}", list_locs(&places)));
                    } else {
                        let held: Vec<String> = locs
                            .iter()
                            .map(|(l, h)| format!("{l} = {}", describe(h)))
                            .collect();
                        lines.push(format!(
                            "on entry: {}",
                            if held.is_empty() {
                                "nothing".into()
                            } else {
                                held.join("; ")
                            }
                        ));
                    }
                }
            },
            RowKind::Inst(i) => {
                let ops: Vec<String> = m
                    .operands(i)
                    .iter()
                    .filter(|(v, _, _)| opts.vreg.is_none_or(|w| w == *v))
                    .map(|(v, def, a)| format!("{} {v} in {a}", if *def { "def" } else { "use" }))
                    .collect();
                if !ops.is_empty() {
                    lines.push(ops.join(", "));
                }
            }
            RowKind::Edit(_) => {}
        }
        let changes = m.changes(r);
        match opts.vreg {
            Some(v) => {
                let before = places.clone();
                for c in changes {
                    places.retain(|&l| l != c.loc);
                    if c.holds.contains(&v) {
                        places.push(c.loc);
                    }
                }
                if places != before && !matches!(row.kind, RowKind::Block(_)) {
                    lines.push(format!("{v} now: {}", list_locs(&places)));
                }
            }
            None => {
                let w: Vec<String> = changes
                    .iter()
                    .map(|c| format!("{} = {}", c.loc, describe(&c.holds)))
                    .collect();
                if !w.is_empty() {
                    lines.push(w.join("; "));
                }
            }
        }
        let involved = match (opts.vreg, row.kind) {
            (None, _) => true,
            (Some(_), RowKind::Block(_)) => true,
            (Some(_), _) => !lines.is_empty() || !row.problems.is_empty(),
        };
        if !involved {
            continue;
        }
        let _ = writeln!(s, "{mark}{indent}{}", m.row_text(r));
        for l in lines {
            let _ = writeln!(s, "    {indent}    {l}");
        }
        for p in &row.problems {
            let who = if m.from_interp {
                "interpreter"
            } else {
                "checker"
            };
            let _ = writeln!(s, "!!! {indent}    {who}: {}", p.message);
        }
    }
    s
}

fn list_locs(locs: &[Allocation]) -> String {
    names(locs, "nowhere")
}

#[cfg(test)]
mod tests {
    use super::*;
    use allocator::ir::text::parse_and_validate;

    /// inst2 reads v0i from p1i, which inst1 clobbered.
    const WRONG_FUNCTION: &str = "\
function
  block0:
    inst0: op def:v0i:reg
    inst1: op clobbers(p1i)
    inst2: op use:v0i:reg
    inst3: ret
end
allocation
  spillslots 0
  inst0: p1i
  inst2: p1i
end
";

    /// The case of [`WRONG_FUNCTION`] on the tests' two-register machine.
    fn wrong() -> String {
        allocator::fixtures::int_machine("p0i-p1i") + WRONG_FUNCTION
    }

    fn model_text(src: &str, opts: &Options) -> String {
        let (case, _) = parse_and_validate(src.as_bytes()).unwrap();
        let out = case.output.clone().unwrap();
        let m = Model::new(&case, &out);
        text(&m, opts)
    }

    #[test]
    fn marks_the_first_error_where_it_happens() {
        let t = model_text(&wrong(), &Options::default());
        let marked: Vec<&str> = t.lines().filter(|l| l.starts_with(">>>")).collect();
        assert_eq!(marked, vec![">>>   inst2: op use:v0i:reg"], "{t}");
        assert!(t.contains("p1i = nothing"), "{t}");
        assert!(t.contains("!!!       checker: inst2 operand 0"), "{t}");
        assert!(t.contains("p1i = v0i"), "{t}");
    }

    /// The interpreter's divergence is shown where the checker has none
    /// (only a checker bug makes that happen, so the problem is placed by
    /// hand here).
    #[test]
    fn an_interpreter_divergence_is_marked_as_the_interpreters() {
        let ok = wrong()
            .replace("inst0: p1i", "inst0: p0i")
            .replace("inst2: p1i", "inst2: p0i");
        let (case, _) = parse_and_validate(ok.as_bytes()).unwrap();
        let out = case.output.clone().unwrap();
        let mut m = Model::new(&case, &out);
        assert!(m.trace.errors.is_empty() && !m.from_interp);
        assert!(!text(&m, &Options::default()).contains(">>>"));
        m.from_interp = true;
        m.place(
            Some(RowKind::Inst(Inst::new(2))),
            Problem {
                loc: None,
                message: "diverges".into(),
            },
        );
        let t = text(&m, &Options::default());
        assert!(t.contains("the interpreter diverges"), "{t}");
        assert!(t.contains(">>>   inst2: op use:v0i:reg"), "{t}");
        assert!(t.contains("!!!       interpreter: diverges"), "{t}");
    }

    #[test]
    fn one_block_only() {
        let two = allocator::fixtures::int_machine("p0i-p1i")
            + "\
function
  block0:
    inst0: op def:v0i:reg
    inst1: branch -> block1(v0i)
  block1(v1i):
    inst2: ret use:v1i:reg
end
allocation
  spillslots 0
  inst0: p0i
  inst2: p0i
end
";
        let opts = Options {
            vreg: None,
            block: Some(Block::new(1)),
        };
        let t = model_text(&two, &opts);
        assert!(t.contains("block1(v1i):"), "{t}");
        assert!(t.contains("on entry: p0i = v0i, v1i"), "{t}");
        assert!(!t.contains("inst0"), "{t}");
    }

    #[test]
    fn follows_one_vreg() {
        let opts = Options {
            vreg: Some(VReg::new(0, allocator::RegClass::Int)),
            block: None,
        };
        let t = model_text(&wrong(), &opts);
        assert!(t.contains("v0i now: p1i"), "{t}");
        assert!(t.contains("v0i now: nowhere"), "{t}");
        assert!(!t.contains("inst3"), "{t}");
    }
}
