//! The validator: every rule of the format specification's "What a valid
//! case is", checked on the IR, with every error reported at a [`Site`]
//! (which a [`crate::ir::text::SourceMap`] turns into `LINE:COL`).
//!
//! Rules beyond the letter of the specification, chosen as a compiler
//! engineer would expect and documented in `docs/format.md`:
//! - a branch argument may be a value the branch itself defines only when
//!   the target has no other predecessor (the edge's moves then run at the
//!   top of the target, after the branch has written it);
//! - no def, early or late, is fixed to a register its instruction clobbers
//!   (an early def would be destroyed at the late point before any move could
//!   save it);
//! - `fixed` may not name the class's scratch register, which belongs to the
//!   allocator, and `nonalloc` may name only a register in no machine list;
//! - a register is clobbered at most once per instruction;
//! - `limit(n)` must admit at least one allocatable register of the class;
//! - `fixed(r)` may not name a register a `nonalloc` operand of the same
//!   instruction names (a def there would overwrite, say, the stack pointer).

use crate::analysis::bitset::dense;
use crate::analysis::cfg::effective_preds;
use crate::analysis::domtree::DomTree;
use crate::ir::function::{Function, Opcode};
use crate::ir::index::{Block, Inst, PRegSet, RegClass, VReg};
use crate::ir::machine::MachineEnv;
use error::err;
pub use error::{MachineList, Site, ValidationError};
use operands::{check_operands, MachineFacts};

mod error;
mod operands;

/// Checks the machine and the function; returns every error found (empty
/// when the case is valid). Never panics on a structurally sound function.
pub fn validate(f: &Function, env: &MachineEnv) -> Vec<ValidationError> {
    validate_numbered(f, env, Numbering::Dense)
}

/// [`validate`] for a function read from a compiler's own types rather
/// than from a case: every rule but dense vreg indices. Such a function
/// keeps the compiler's vreg numbers (Cranelift's start at 192, and
/// values it folds away leave gaps), so that what is said of it names the
/// vregs the compiler's own dumps name. Indices never mentioned only size
/// tables.
pub fn validate_as_read(f: &Function, env: &MachineEnv) -> Vec<ValidationError> {
    validate_numbered(f, env, Numbering::AsRead)
}

/// The function's rules of [`validate_as_read`] but three, for a caller
/// that has validated the machine ([`validate_machine`]) and proves the
/// three from facts of its own at less cost than a dominator tree and a
/// second walk over the uses: every block reachable from the entry, every
/// use defined, and every use dominated by its definition (so not read by
/// the instruction that defines it). Given the other rules (one definition
/// per vreg), the three hold exactly when a postorder from the entry holds
/// every block and no vreg is live into the entry: a use that a path from
/// the entry reaches without passing a definition makes its vreg live
/// there, and only such a use does. The symbolic checker, which computes
/// both, proves them so for its entry point over regalloc2's types.
///
/// Of the rules a use breaks, two are left: its class must be its
/// definition's, and a branch argument defined by the branch itself needs
/// a target with no other predecessor. The walk that records the
/// definitions notes each vreg's class where it is first named and whether
/// a branch passes a value it defines; only when a vreg is named with two
/// classes, or a branch passes its own def, are the uses walked again for
/// them.
pub fn validate_read_function_but_dominance(
    f: &Function,
    env: &MachineEnv,
) -> Vec<ValidationError> {
    Validator::new(env).read_function_but_dominance(f)
}

/// [`validate_read_function_but_dominance`] kept for one machine, for a
/// caller that validates one function after another on it (a checker
/// inside a compiler): what the rules ask of the machine is found once, and
/// the table of definitions keeps its storage from function to function.
pub struct Validator {
    env: MachineEnv,
    facts: MachineFacts,
    tables: Tables,
}

impl Validator {
    /// A validator of functions on `env`, which it keeps.
    pub fn new(env: &MachineEnv) -> Validator {
        Validator {
            env: env.clone(),
            facts: MachineFacts::new(env),
            tables: Tables::default(),
        }
    }

    /// The machine it validates functions on.
    pub fn env(&self) -> &MachineEnv {
        &self.env
    }

    /// [`validate_read_function_but_dominance`] of `f` on the machine.
    pub fn read_function_but_dominance(&mut self, f: &Function) -> Vec<ValidationError> {
        let mut errs = Vec::new();
        validate_function(
            f,
            &self.env,
            &self.facts,
            &mut self.tables,
            Numbering::AsRead,
            Dominance::LeftToCaller,
            &mut errs,
        );
        errs
    }
}

/// The storage of one validation of a function, which a [`Validator`]
/// reuses: where each vreg is defined, which vregs are mentioned, and (when
/// dominance is left to the caller) the class each vreg is first named
/// with.
#[derive(Default)]
struct Tables {
    defs: DefTable,
    mentioned: Vec<u64>,
    first_class: Vec<u8>,
}

/// In [`Tables`]' `first_class`: a vreg not named yet.
const UNNAMED: u8 = u8::MAX;

/// Whether vreg indices must be dense from 0.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Numbering {
    Dense,
    AsRead,
}

/// Whether reachability, definedness and dominance are checked here or by
/// the caller.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dominance {
    Checked,
    LeftToCaller,
}

fn validate_numbered(f: &Function, env: &MachineEnv, numbering: Numbering) -> Vec<ValidationError> {
    let mut errs = validate_machine(env);
    validate_function(
        f,
        env,
        &MachineFacts::new(env),
        &mut Tables::default(),
        numbering,
        Dominance::Checked,
        &mut errs,
    );
    errs
}

/// A class with no allocatable register (a machine that keeps vectors in
/// its float registers, as Cranelift's x86-64 and aarch64 backends do) is
/// valid as long as the function has no value of that class. The message
/// names the first vreg of the class among the block parameters, or else
/// among the operands, both noted during the walk.
#[derive(Default)]
struct ClassesUsed {
    first_param: [Option<VReg>; 3],
    first_operand: [Option<VReg>; 3],
}

impl ClassesUsed {
    fn param(&mut self, v: VReg) {
        self.first_param[v.class().index()].get_or_insert(v);
    }

    fn operand(&mut self, v: VReg) {
        self.first_operand[v.class().index()].get_or_insert(v);
    }

    fn report(&self, env: &MachineEnv, errs: &mut Vec<ValidationError>) {
        for class in RegClass::ALL {
            let c = class.index();
            let first = self.first_param[c].or(self.first_operand[c]);
            if let (Some(v), 0) = (first, env.num_allocatable(class)) {
                errs.push(err(
                    Site::MachineClass(class),
                    format!(
                        "class {class} has no allocatable register (preferred and nonpreferred are both empty), but the function has {v}"
                    ),
                ));
            }
        }
    }
}

/// The machine rules: registers of the line's class, each listed once.
pub fn validate_machine(env: &MachineEnv) -> Vec<ValidationError> {
    let mut errs = Vec::new();
    let mut seen = PRegSet::empty();
    for class in RegClass::ALL {
        let c = class.index();
        let scratch: Vec<_> = env.scratch[c].into_iter().collect();
        let lists = [
            (MachineList::Preferred, &env.preferred[c][..]),
            (MachineList::NonPreferred, &env.nonpreferred[c][..]),
            (MachineList::Scratch, &scratch[..]),
            (MachineList::FixedStack, &env.fixed_stack[c][..]),
        ];
        for (list, regs) in lists {
            for (index, &r) in regs.iter().enumerate() {
                let site = Site::MachineReg { class, list, index };
                if r.class() != class {
                    errs.push(err(
                        site,
                        format!("{r} is on the {class} line but is a {} register", r.class()),
                    ));
                }
                if seen.contains(r) {
                    errs.push(err(
                        site,
                        format!(
                            "{r} is listed more than once (a register belongs to at most one list)"
                        ),
                    ));
                }
                seen.insert(r);
            }
        }
    }
    errs
}

/// Where a vreg is defined.
#[derive(Clone, Copy, PartialEq, Eq)]
enum DefSite {
    None,
    Param(Block, usize),
    Op(Inst, usize),
}

impl DefSite {
    fn describe(self) -> String {
        match self {
            DefSite::None => "nowhere".into(),
            DefSite::Param(b, _) => format!("as a parameter of {b}"),
            DefSite::Op(i, _) => format!("by {i}"),
        }
    }
}

/// The definition site of every vreg in four bytes (a validator may face a
/// file naming vreg 16,777,215): an instruction index, or a block index with
/// the top bit set for a parameter; the operand or parameter slot is found
/// again by a scan when a message needs it.
#[derive(Default)]
struct DefTable {
    sites: Vec<u32>,
    /// The class each vreg's definition names it with.
    classes: Vec<RegClass>,
}

impl DefTable {
    const NONE: u32 = u32::MAX;
    const PARAM: u32 = 1 << 31;

    fn get(&self, f: &Function, v: VReg) -> DefSite {
        let s = self.sites[v.index()];
        if s == Self::NONE {
            DefSite::None
        } else if s & Self::PARAM != 0 {
            let b = Block(s & !Self::PARAM);
            let k = f
                .block_params(b)
                .iter()
                .position(|p| p.index() == v.index());
            DefSite::Param(b, k.unwrap_or(0))
        } else {
            let i = Inst(s);
            let k = f
                .inst_operands(i)
                .iter()
                .position(|op| op.is_def() && op.vreg().index() == v.index());
            DefSite::Op(i, k.unwrap_or(0))
        }
    }

    /// The vreg as its definition names it (with its class).
    fn defining_vreg(&self, f: &Function, v: VReg) -> Option<VReg> {
        match self.get(f, v) {
            DefSite::None => None,
            DefSite::Param(b, k) => Some(f.block_params(b)[k]),
            DefSite::Op(i, k) => Some(f.inst_operands(i)[k].vreg()),
        }
    }
}

/// The function's rules in two walks over its blocks: every rule but
/// dominance in the first, which also records each vreg's definition;
/// every use against that record in the second. Each rule's errors are
/// kept apart and reported rule by rule, each in program order.
fn validate_function(
    f: &Function,
    env: &MachineEnv,
    facts: &MachineFacts,
    tables: &mut Tables,
    numbering: Numbering,
    dominance: Dominance,
    errs: &mut Vec<ValidationError>,
) {
    if f.num_blocks() == 0 {
        errs.push(err(Site::Function, "the function has no blocks".into()));
        return;
    }
    let mut classes = ClassesUsed::default();
    let (mut blocks, mut edges, mut ssa, mut operands) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let n = f.num_vregs();
    let Tables {
        defs,
        mentioned,
        first_class,
    } = tables;
    defs.sites.clear();
    defs.sites.resize(n, DefTable::NONE);
    defs.classes.clear();
    defs.classes.resize(n, RegClass::Int);
    mentioned.clear();
    let dense_numbering = numbering == Numbering::Dense;
    if dense_numbering {
        mentioned.resize(dense::words(n), 0);
    }
    // With dominance left to the caller, the uses are walked again only
    // when a vreg is named with two classes or a branch passes its own def
    // (see [`validate_read_function_but_dominance`]).
    let caller_proves = dominance == Dominance::LeftToCaller;
    first_class.clear();
    if caller_proves {
        first_class.resize(n, UNNAMED);
    }
    let mut uses_to_walk = !caller_proves;
    let mut name = |v: VReg, uses_to_walk: &mut bool| {
        if caller_proves {
            let c = &mut first_class[v.index()];
            if *c == UNNAMED {
                *c = v.class() as u8;
            } else if *c != v.class() as u8 {
                *uses_to_walk = true;
            }
        }
    };
    // Records a definition of `v` (packed as the table stores it), or
    // reports the second one at `at`.
    let mut define = |v: VReg, packed: u32, at: Site, ssa: &mut Vec<ValidationError>| {
        if dense_numbering {
            dense::insert(mentioned, v.index());
        }
        if defs.sites[v.index()] != DefTable::NONE {
            ssa.push(defined_twice(f, defs, v, at));
        } else {
            defs.sites[v.index()] = packed;
            defs.classes[v.index()] = v.class();
        }
    };
    if !f.block_params(Block(0)).is_empty() {
        blocks.push(err(
            Site::BlockParam(Block(0), 0),
            "block0 is the entry and cannot have parameters".into(),
        ));
    }
    for b in f.blocks() {
        for (k, &v) in f.block_params(b).iter().enumerate() {
            classes.param(v);
            name(v, &mut uses_to_walk);
            define(v, DefTable::PARAM | b.0, Site::BlockParam(b, k), &mut ssa);
        }
        let insts = f.block_insts(b);
        if insts.is_empty() {
            blocks.push(err(
                Site::Block(b),
                format!("{b} has no instructions (a block ends with a branch or ret)"),
            ));
            continue;
        }
        for i in insts.iter() {
            check_terminator(f, b, i, i == insts.last(), &mut blocks);
            check_targets(f, b, i, i == insts.last(), &mut edges);
            let ops = f.inst_operands(i);
            let mut defines = false;
            for (k, op) in ops.iter().enumerate() {
                if op.is_nonalloc() {
                    continue;
                }
                classes.operand(op.vreg());
                name(op.vreg(), &mut uses_to_walk);
                if op.is_def() {
                    defines = true;
                    define(op.vreg(), i.0, Site::Operand(i, k), &mut ssa);
                }
            }
            if caller_proves {
                // A branch with defs of its own (a jump table's temporary)
                // passes one of them only rarely.
                let own = |a: VReg| ops.iter().any(|op| op.is_def() && op.vreg() == a);
                for t in 0..f.num_targets(i) {
                    for &a in f.target(i, t).1 {
                        name(a, &mut uses_to_walk);
                        uses_to_walk |= defines && own(a);
                    }
                }
            }
            check_operands(f, facts, env, i, &mut operands);
        }
    }
    classes.report(env, errs);
    errs.append(&mut blocks);
    let dom = (dominance == Dominance::Checked).then(|| DomTree::new(f));
    for b in f.blocks() {
        if dom.as_ref().is_some_and(|dom| !dom.is_reachable(b)) {
            errs.push(err(
                Site::Block(b),
                format!("{b} is not reachable from block0"),
            ));
        }
    }
    errs.append(&mut edges);
    if uses_to_walk {
        check_uses(f, dom.as_ref(), caller_proves, defs, mentioned, &mut ssa);
    }
    if dense_numbering {
        check_dense(mentioned, n, &mut ssa);
    }
    errs.append(&mut ssa);
    errs.append(&mut operands);
}

/// The error for a second definition of `v`, at `at`.
#[cold]
fn defined_twice(f: &Function, defs: &DefTable, v: VReg, at: Site) -> ValidationError {
    let first = defs.get(f, v).describe();
    err(at, format!("{v} is defined twice (first {first})"))
}

/// Terminators: every block ends with exactly one `branch` or `ret`;
/// targets only on branches.
fn check_terminator(f: &Function, b: Block, i: Inst, last: bool, errs: &mut Vec<ValidationError>) {
    let op = f.opcode(i);
    if last {
        if !op.is_terminator() {
            errs.push(err(
                Site::Inst(i),
                format!("{b} does not end with a branch or ret ({i} is its last instruction)"),
            ));
        }
    } else if op.is_terminator() {
        errs.push(err(
            Site::Inst(i),
            format!("{i} is a {op} but not the last instruction of {b}"),
        ));
    }
    match (op, f.num_targets(i)) {
        (Opcode::Branch, 0) => errs.push(err(
            Site::Inst(i),
            format!("{i} is a branch without targets"),
        )),
        (Opcode::Op | Opcode::Ret, n) if n > 0 => errs.push(err(
            Site::Inst(i),
            format!("{i} is a {op} with targets (only a branch has targets)"),
        )),
        _ => {}
    }
}

/// Critical edges (from `b`'s terminator, when `last`), and arguments that
/// do not fit the target's parameters.
fn check_targets(f: &Function, b: Block, i: Inst, last: bool, errs: &mut Vec<ValidationError>) {
    let nt = f.num_targets(i);
    let is_block_end = last && f.is_branch(i);
    for t in 0..nt {
        let (to, args) = f.target(i, t);
        if is_block_end && nt > 1 && effective_preds(f, to) > 1 {
            let entry = if to == f.entry_block() {
                ", counting the function's entry"
            } else {
                ""
            };
            errs.push(err(
                Site::Target(i, t),
                format!(
                    "the edge {b} -> {to} is critical: {b} has {nt} successors and {to} has {} predecessors{entry} (split the edge with a block of its own)",
                    effective_preds(f, to)
                ),
            ));
        }
        let params = f.block_params(to);
        if params.len() != args.len() {
            errs.push(err(
                Site::Target(i, t),
                format!(
                    "{to} has {} parameter{} but is passed {} argument{}",
                    params.len(),
                    if params.len() == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "" } else { "s" },
                ),
            ));
            continue;
        }
        for (k, (a, p)) in args.iter().zip(params).enumerate() {
            if a.class() != p.class() {
                errs.push(err(
                    Site::BranchArg(i, t, k),
                    format!(
                        "argument {a} is of class {}, but parameter {p} of {to} is of class {}",
                        a.class(),
                        p.class()
                    ),
                ));
            }
        }
    }
}

/// Every use defined, with its definition's class, and dominated by it
/// when `dom` is given (`defs` holds every definition); with `caller_proves`,
/// definedness is the caller's too, and only a defined use's class and a
/// branch argument the branch defines are judged. `mentioned` is marked
/// when it has room (dense numbering).
fn check_uses(
    f: &Function,
    dom: Option<&DomTree>,
    caller_proves: bool,
    defs: &DefTable,
    mentioned: &mut [u64],
    errs: &mut Vec<ValidationError>,
) {
    // A use at instruction `ui` of block `ub`; a branch argument (`arg`
    // names its target) is read at the end of its edge.
    let mut check_use = |v: VReg,
                         ui: Inst,
                         ub: Block,
                         arg: Option<Block>,
                         at: Site,
                         errs: &mut Vec<ValidationError>| {
        if !mentioned.is_empty() {
            dense::insert(mentioned, v.index());
        }
        let site = defs.sites[v.index()];
        if site == DefTable::NONE {
            if !caller_proves {
                errs.push(err(at, format!("{v} is used but never defined")));
            }
            return;
        }
        if defs.classes[v.index()] != v.class() {
            if let Some(dv) = defs.defining_vreg(f, v) {
                errs.push(err(
                    at,
                    format!(
                        "{v} names vreg {} as {}, but it is defined as {dv} ({})",
                        v.index(),
                        v.class(),
                        dv.class()
                    ),
                ));
            }
        }
        if dom.is_some_and(|dom| !dom.is_reachable(ub)) {
            return; // the block is reported as unreachable
        }
        if site == ui.0 {
            let msg = match arg {
                None if caller_proves => return,
                None => format!("{v} is used by {ui}, which defines it"),
                Some(t) if t == f.entry_block() || f.block_preds(t).len() != 1 => format!(
                    "branch argument {v} is defined by the branch itself, but {t} has \
                     other predecessors (the edge's moves could run neither before \
                     the branch nor at the top of {t})"
                ),
                Some(_) => return,
            };
            errs.push(err(at, msg));
            return;
        }
        let Some(dom) = dom else {
            return; // the caller proves dominance
        };
        let ok = if site & DefTable::PARAM != 0 {
            dom.dominates(Block(site & !DefTable::PARAM), ub)
        } else {
            let (di, db) = (Inst(site), f.block_of(Inst(site)));
            if db == ub {
                di < ui
            } else {
                dom.dominates(db, ub)
            }
        };
        if !ok {
            errs.push(err(
                at,
                format!(
                    "the use of {v} in {ui} is not dominated by its definition ({})",
                    defs.get(f, v).describe()
                ),
            ));
        }
    };
    for b in f.blocks() {
        for i in f.block_insts(b).iter() {
            for (k, op) in f.inst_operands(i).iter().enumerate() {
                if op.is_use() {
                    check_use(op.vreg(), i, b, None, Site::Operand(i, k), errs);
                }
            }
            for t in 0..f.num_targets(i) {
                let (to, args) = f.target(i, t);
                for (k, &a) in args.iter().enumerate() {
                    check_use(a, i, b, Some(to), Site::BranchArg(i, t, k), errs);
                }
            }
        }
    }
}

/// Vreg indices dense from 0: the indices below `n` never mentioned,
/// reported as ranges so that one huge index gives one line.
fn check_dense(mentioned: &[u64], n: usize, errs: &mut Vec<ValidationError>) {
    let is_mentioned = |v: usize| dense::contains(mentioned, v);
    let mut v = 0;
    while v < n {
        if is_mentioned(v) {
            v += 1;
            continue;
        }
        let start = v;
        while v < n && !is_mentioned(v) {
            v += 1;
        }
        let what = if v - start == 1 {
            format!("vreg {start} is never defined")
        } else {
            format!("vregs {start} to {} are never defined", v - 1)
        };
        errs.push(err(
            Site::Function,
            format!("{what} (vreg indices must be dense from 0)"),
        ));
    }
}

#[cfg(test)]
mod tests;
