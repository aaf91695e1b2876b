//! Branches whose edge moves run before them. When a block's one successor
//! has several predecessors, the moves into that successor cannot go at its
//! top (they differ per predecessor) nor after the branch (nothing runs
//! there), so they run before the branch, and the branch then reads its
//! operands after the moves. Its operands are therefore placed apart from
//! the core allocation:
//!
//! - register operands get registers chosen up front by the exact search
//!   of [`crate::inst_regs`]; those registers, and the ones the branch
//!   clobbers, are reserved at the successor's entry point, so no value
//!   enters the successor there and the edge moves cannot overwrite them;
//! - `any` and `stack` reads use the value's entry location in the
//!   successor when it is live there, else a temporary spill slot that
//!   nothing else uses;
//! - a def whose value is live into the successor asks for its location
//!   there (a requirement at the successor's entry point), since that is
//!   where the branch writes it.
//!
//! The reads are filled by copies in the same parallel move set as the edge
//! moves, so they see the values as they were before the moves.

use super::operands::Record;
use super::points::{e, l, m, MovePrio, PendingMove, Point, NO_VALUE};
use super::requirement::{Masks, Req};
use crate::analysis::block_sets::BlockSets;
use crate::analysis::cfg;
use crate::inst_regs::{assign, RegSlot};
use crate::interface::AllocError;
use crate::ir::function::Function;
use crate::ir::index::{Block, Inst, PReg, RegClass};
use crate::ir::operand::{limit_mask, OperandConstraint, OperandPos};
use crate::ir::output::Allocation;

/// Where one operand of such a branch goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Reg(PReg),
    /// A read: the value's entry location if it is live into the
    /// successor and that location suits, else temporary slot `n`.
    EntryOr(u32),
    /// A def live into the successor: its entry location.
    Entry,
    /// Temporary slot `n` (a dead def).
    Temp(u32),
    /// The reused input of def operand `d` (same location).
    Reused(usize),
    NonAlloc(PReg),
}

struct Branch {
    inst: Inst,
    succ: Block,
    targets: Vec<Target>,
}

/// The plan for every such branch.
#[derive(Default)]
pub struct EdgeBranches {
    branches: Vec<Branch>,
    /// Per block: whether it ends in such a branch.
    pub is_edge_before: Vec<bool>,
    /// Requirements at block entry points, per block: `(value, req)`.
    pub entry_reqs: Vec<Vec<(u32, Req)>>,
    /// `(register, point)`: reserved at that point.
    pub blockers: Vec<(PReg, Point)>,
    /// Temporary slots any one branch needs.
    pub temps: u32,
}

/// Whether block `b`'s edge moves run before its branch.
pub fn moves_before_branch(f: &Function, b: Block) -> bool {
    cfg::join_successor(f, b).is_some()
}

impl EdgeBranches {
    pub fn plan(
        f: &Function,
        masks: &Masks,
        live_in: &BlockSets,
    ) -> Result<EdgeBranches, AllocError> {
        let mut p = EdgeBranches {
            is_edge_before: vec![false; f.num_blocks()],
            entry_reqs: vec![Vec::new(); f.num_blocks()],
            ..Default::default()
        };
        for b in f.blocks() {
            if !moves_before_branch(f, b) {
                continue;
            }
            p.is_edge_before[b.index()] = true;
            let i = f.block_insts(b).last();
            let s = f.block_succs(b)[0];
            let entry = m(f.block_insts(s).first());
            for &r in f.inst_clobbers(i) {
                p.blockers.push((r, entry));
            }
            let ops = f.inst_operands(i);
            if ops.is_empty() {
                continue;
            }
            let live = |v: usize| live_in.contains(s.index(), v);
            let mut reused_by = vec![usize::MAX; ops.len()];
            for (d, op) in ops.iter().enumerate() {
                if let OperandConstraint::Reuse(k) = op.constraint() {
                    if reused_by[k] != usize::MAX {
                        return Err(AllocError::Impossible(format!(
                            "{i}: two defs reuse operand {k}, so both would be written to one location"
                        )));
                    }
                    reused_by[k] = d;
                }
            }
            // Register operands, one search per class.
            let mut clob = [0u64; 3];
            for &r in f.inst_clobbers(i) {
                clob[r.class().index()] |= 1 << r.hw();
            }
            let mut slots: [Vec<(usize, RegSlot)>; 3] = Default::default();
            for (k, op) in ops.iter().enumerate() {
                if reused_by[k] != usize::MAX {
                    continue;
                }
                let c = op.class().index();
                let constraint = match op.constraint() {
                    OperandConstraint::Reuse(t) => ops[t].constraint(),
                    other => other,
                };
                let candidates = match constraint {
                    OperandConstraint::FixedReg(r) => 1u64 << r.hw(),
                    OperandConstraint::Reg => masks.alloc[c],
                    OperandConstraint::Limit(n) => masks.alloc[c] & limit_mask(n),
                    _ => continue,
                };
                let reuse = matches!(op.constraint(), OperandConstraint::Reuse(_));
                let (early, late) = if reuse {
                    (true, true)
                } else if op.is_use() {
                    (true, op.pos() == OperandPos::Late)
                } else {
                    (op.pos() == OperandPos::Early, true)
                };
                let candidates = if late {
                    candidates & !clob[c]
                } else {
                    candidates
                };
                slots[c].push((
                    k,
                    RegSlot {
                        candidates,
                        early,
                        late,
                        prefer: [0; 2],
                    },
                ));
            }
            let mut targets = vec![Target::Temp(0); ops.len()];
            for (c, list) in slots.iter().enumerate() {
                if list.is_empty() {
                    continue;
                }
                let want: Vec<RegSlot> = list.iter().map(|s| s.1).collect();
                let Some(hws) = assign(&want, 0, 0) else {
                    return Err(AllocError::Impossible(format!(
                        "{i}: its {} operands cannot all get registers at once",
                        RegClass::from_index(c)
                    )));
                };
                for (&(k, _), hw) in list.iter().zip(hws) {
                    targets[k] = Target::Reg(PReg::new(hw, RegClass::from_index(c)));
                }
            }
            let mut temps = 0;
            for (k, op) in ops.iter().enumerate() {
                let v = op.vreg().index();
                targets[k] = match (targets[k], op.constraint()) {
                    (_, OperandConstraint::NonAlloc(r)) => Target::NonAlloc(r),
                    _ if reused_by[k] != usize::MAX => Target::Reused(reused_by[k]),
                    (Target::Reg(r), _) if op.is_def() && live(v) => {
                        p.entry_reqs[s.index()].push((v as u32, Req::Fixed(r)));
                        Target::Reg(r)
                    }
                    (Target::Reg(r), _) => {
                        p.blockers.push((r, entry));
                        Target::Reg(r)
                    }
                    _ if op.is_def() && live(v) => {
                        let c = match op.constraint() {
                            OperandConstraint::Reuse(t) => ops[t].constraint(),
                            other => other,
                        };
                        let req = if c == OperandConstraint::Stack {
                            Req::Stack
                        } else {
                            Req::Any
                        };
                        p.entry_reqs[s.index()].push((v as u32, req));
                        Target::Entry
                    }
                    _ => {
                        temps += 1;
                        if op.is_def() {
                            Target::Temp(temps - 1)
                        } else {
                            Target::EntryOr(temps - 1)
                        }
                    }
                };
            }
            p.temps = p.temps.max(temps);
            p.branches.push(Branch {
                inst: i,
                succ: s,
                targets,
            });
        }
        Ok(p)
    }

    /// Fills the operand allocations of every such branch and pushes the
    /// copies that feed its reads. `loc(value, point)` is where a value
    /// lives; temporary slot `n` is spill slot `temp_base + n`.
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        &self,
        f: &Function,
        live_in: &BlockSets,
        loc: impl Fn(u32, Point) -> Allocation,
        is_memory: impl Fn(Allocation) -> bool,
        is_allocatable: impl Fn(Allocation) -> bool,
        temp_base: u32,
        allocs: &mut [Allocation],
        moves: &mut Vec<PendingMove>,
    ) {
        for br in &self.branches {
            let ops = f.inst_operands(br.inst);
            let base = f.inst_operand_range(br.inst).start;
            let entry = m(f.block_insts(br.succ).first());
            let temp = |n: u32| Allocation::Stack(crate::ir::index::SpillSlot(temp_base + n));
            for pass in 0..2 {
                for (k, op) in ops.iter().enumerate() {
                    let v = op.vreg().index() as u32;
                    // Reused inputs take their def's location, so they go
                    // second.
                    let reused = matches!(br.targets[k], Target::Reused(_));
                    if reused != (pass == 1) {
                        continue;
                    }
                    let a = match br.targets[k] {
                        Target::Reg(r) | Target::NonAlloc(r) => Allocation::Reg(r),
                        Target::Entry => loc(v, entry),
                        Target::Temp(n) => temp(n),
                        Target::Reused(d) => allocs[base + d],
                        Target::EntryOr(n) => {
                            let there = if live_in.contains(br.succ.index(), v as usize) {
                                loc(v, entry)
                            } else {
                                Allocation::None
                            };
                            let fits = match op.constraint() {
                                OperandConstraint::Any => is_allocatable(there) || is_memory(there),
                                _ => is_memory(there),
                            };
                            if fits {
                                there
                            } else {
                                temp(n)
                            }
                        }
                    };
                    allocs[base + k] = a;
                    let copy = op.is_use()
                        && !matches!(br.targets[k], Target::NonAlloc(_))
                        && !(matches!(br.targets[k], Target::EntryOr(_))
                            && a == loc(v, entry)
                            && live_in.contains(br.succ.index(), v as usize));
                    if copy {
                        let at = if op.pos() == OperandPos::Early {
                            e(br.inst)
                        } else {
                            l(br.inst)
                        };
                        moves.push((
                            br.inst,
                            MovePrio::OutEdge,
                            loc(v, at),
                            a,
                            op.class(),
                            NO_VALUE,
                        ));
                    }
                }
            }
        }
    }
}

/// The entry requirements of block `b` as records at its first point.
pub fn entry_records<'a>(
    p: &'a EdgeBranches,
    f: &Function,
    b: Block,
) -> impl Iterator<Item = Record> + 'a {
    let at = m(f.block_insts(b).first());
    p.entry_reqs[b.index()]
        .iter()
        .map(move |&(value, req)| Record {
            value,
            point: at,
            slot: super::operands::GHOST,
            req,
        })
}
