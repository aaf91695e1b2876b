//! `spill_everywhere`: the simplest correct allocator, the baseline for
//! quality and the first subject of the oracles. Every vreg lives in its own
//! spill slot (slot = vreg index). Around each instruction, the uses whose
//! constraints need a register are loaded, defs that landed in a register are
//! stored back, and block parameters are passed slot to slot through the
//! move resolver.
//!
//! Edits at one program point run in phases: moves along an incoming edge
//! (they fill the parameters the instruction may read), then the loads of
//! the instruction's uses, then the moves along an outgoing edge placed
//! before a branch (after the loads, since the branch may read a parameter
//! of its own block that those moves overwrite).

use crate::inst_regs::{RegSlot, Search};
use crate::interface::{AllocError, Allocator};
use crate::ir::function::Function;
use crate::ir::index::{Inst, PReg, PRegSet, ProgPoint, RegClass, SpillSlot, VReg};
use crate::ir::machine::MachineEnv;
use crate::ir::operand::limit_mask;
use crate::ir::operand::{OperandConstraint, OperandPos};
use crate::ir::output::{Allocation, Output};
use crate::move_sets::EditQueue;
use crate::moves::{MoveContext, ParallelMove};

/// See the module documentation.
pub struct SpillEverywhere;

const PHASE_EDGE_IN: u8 = 0;
const PHASE_LOAD: u8 = 1;
const PHASE_EDGE_OUT: u8 = 2;

impl Allocator for SpillEverywhere {
    fn name(&self) -> &'static str {
        "spill_everywhere"
    }

    fn run(&self, f: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        crate::framing::around(f, env, |f| Ok((Run::new(f, env).run()?, ()))).map(|(out, ())| out)
    }
}

struct Run<'a> {
    f: &'a Function,
    env: &'a MachineEnv,
    allocs: Vec<Allocation>,
    /// The moves, gathered in `moves.set` and resolved per point and phase.
    moves: EditQueue,
    extra: [SpillSlot; 2],
    /// Slots `temp_base..temp_base + max_temps` hold the `any` and `stack`
    /// inputs that a def reuses (and then the def).
    temp_base: usize,
    max_temps: usize,
    alloc_mask: [u64; 3],
    allocatable: PRegSet,
    fixed_stack: PRegSet,
    // Per-instruction buffers, kept so that no instruction allocates.
    reused_input: Vec<bool>,
    /// Per class: (operand, slot) of the operands that need a register.
    want: [Vec<(usize, RegSlot)>; 3],
    slots: Vec<RegSlot>,
    search: Search,
    stores: Vec<ParallelMove>,
}

fn slot(v: VReg) -> Allocation {
    Allocation::Stack(SpillSlot::new(v.index()))
}

impl<'a> Run<'a> {
    fn new(f: &'a Function, env: &'a MachineEnv) -> Self {
        let alloc_mask = env.allocatable_set().class_masks();
        let nv = f.num_vregs();
        Run {
            f,
            env,
            allocs: vec![Allocation::None; f.num_operands()],
            moves: EditQueue::new(),
            extra: [SpillSlot::new(nv), SpillSlot::new(nv + 1)],
            temp_base: nv + 2,
            max_temps: 0,
            alloc_mask,
            allocatable: env.allocatable_set(),
            fixed_stack: env.fixed_stack_set(),
            reused_input: Vec::new(),
            want: Default::default(),
            slots: Vec::new(),
            search: Search::default(),
            stores: Vec::new(),
        }
    }

    fn run(mut self) -> Result<Output, AllocError> {
        for i in self.f.insts() {
            self.inst(i)?;
        }
        Ok(Output {
            allocs: self.allocs,
            edits: self.moves.into_edits(),
            num_spillslots: self.temp_base + self.max_temps,
        })
    }

    /// Resolves `self.moves.set` as one parallel move at `point`, in
    /// `phase`.
    fn flush(&mut self, point: ProgPoint, phase: u8, free: PRegSet) {
        let ctx = MoveContext {
            env: self.env,
            free,
            extra_slots: self.extra,
        };
        self.moves.flush(point, phase, &ctx);
    }

    fn inst(&mut self, i: Inst) -> Result<(), AllocError> {
        let f = self.f;
        let ops = f.inst_operands(i);
        let base = f.inst_operand_range(i).start;
        let clobbered = PRegSet::of(f.inst_clobbers(i)).class_masks();
        // Operands that need a register, per class: (operand, slot). A reuse
        // def rides on its input's slot, which then spans both points.
        let mut reused_input = std::mem::take(&mut self.reused_input);
        reused_input.clear();
        reused_input.resize(ops.len(), false);
        for op in ops {
            if let OperandConstraint::Reuse(k) = op.constraint() {
                reused_input[k] = true;
            }
        }
        let mut want = std::mem::take(&mut self.want);
        for w in &mut want {
            w.clear();
        }
        let mut temps = 0;
        // A branch whose outgoing edge moves run before it (one successor,
        // with several predecessors): those moves may overwrite the home slot
        // of a value the branch reads, so its memory uses read a copy.
        let edge_before = f.is_branch(i) && {
            let succs = f.block_succs(f.block_of(i));
            succs.len() == 1 && f.block_preds(succs[0]).len() > 1
        };
        for (k, op) in ops.iter().enumerate() {
            let c = op.class().index();
            let late_live = op.is_def() || op.pos() == OperandPos::Late || reused_input[k];
            let early = op.is_use() || op.pos() == OperandPos::Early;
            let candidates = match op.constraint() {
                OperandConstraint::NonAlloc(r) => {
                    self.allocs[base + k] = Allocation::Reg(r);
                    continue;
                }
                OperandConstraint::Reuse(_) => continue,
                OperandConstraint::FixedReg(r) if self.fixed_stack.contains(r) => {
                    self.allocs[base + k] = Allocation::Reg(r);
                    continue;
                }
                OperandConstraint::FixedReg(r) => 1u64 << r.hw(),
                OperandConstraint::Reg => self.alloc_mask[c],
                OperandConstraint::Limit(n) => self.alloc_mask[c] & limit_mask(n),
                OperandConstraint::Any | OperandConstraint::Stack
                    if reused_input[k] || (edge_before && op.is_use()) =>
                {
                    // The def will write here (or edge moves may overwrite
                    // the home slot before the branch reads it): a
                    // temporary slot per such operand.
                    self.allocs[base + k] =
                        Allocation::Stack(SpillSlot::new(self.temp_base + temps));
                    temps += 1;
                    self.max_temps = self.max_temps.max(temps);
                    continue;
                }
                OperandConstraint::Any | OperandConstraint::Stack => {
                    self.allocs[base + k] = slot(op.vreg());
                    continue;
                }
            };
            let candidates = if late_live {
                candidates & !clobbered[c]
            } else {
                candidates
            };
            want[c].push((
                k,
                RegSlot {
                    candidates,
                    early,
                    late: late_live,
                    prefer: [0; 2],
                },
            ));
        }
        self.reused_input = reused_input;
        for (c, w) in want.iter().enumerate() {
            if w.is_empty() {
                continue;
            }
            self.slots.clear();
            self.slots.extend(w.iter().map(|x| x.1));
            if !self.search.run(&self.slots, 0, 0) {
                return Err(AllocError::Impossible(format!(
                    "{i}: its {} operands cannot all get registers at once",
                    RegClass::from_index(c)
                )));
            }
            for (&(k, _), &hw) in w.iter().zip(&self.search.result) {
                self.allocs[base + k] = Allocation::Reg(PReg::new(hw, RegClass::from_index(c)));
            }
        }
        self.want = want;
        for (k, op) in ops.iter().enumerate() {
            if let OperandConstraint::Reuse(t) = op.constraint() {
                self.allocs[base + k] = self.allocs[base + t];
            }
        }
        // Loads before the instruction.
        let mut loaded = PRegSet::empty();
        for (k, op) in ops.iter().enumerate() {
            let a = self.allocs[base + k];
            if op.is_use() && a != slot(op.vreg()) {
                if let Allocation::Reg(r) = a {
                    loaded.insert(r);
                }
                self.moves.set.push(ParallelMove {
                    from: slot(op.vreg()),
                    to: a,
                    class: op.class(),
                });
            }
        }
        self.flush(ProgPoint::before(i), PHASE_LOAD, self.allocatable);
        // Defs written to a register go back to their slot: after the
        // instruction, or for a branch at the top of each successor.
        let mut stores = std::mem::take(&mut self.stores);
        stores.clear();
        for (k, op) in ops.iter().enumerate() {
            let a = self.allocs[base + k];
            if op.is_def() && a != slot(op.vreg()) {
                stores.push(ParallelMove {
                    from: a,
                    to: slot(op.vreg()),
                    class: op.class(),
                });
            }
        }
        let result = self.place_stores(i, &stores, loaded);
        self.stores = stores;
        result
    }

    /// Queues the stores of defs written to registers (and, at a branch,
    /// the moves of its edges) after instruction `i`; `loaded` are the
    /// registers its uses were loaded into.
    fn place_stores(
        &mut self,
        i: Inst,
        stores: &[ParallelMove],
        loaded: PRegSet,
    ) -> Result<(), AllocError> {
        let f = self.f;
        if f.is_ret(i) {
            return Ok(());
        }
        if !f.is_branch(i) {
            self.moves.set.extend_from_slice(stores);
            self.flush(ProgPoint::after(i), 0, self.allocatable);
            return Ok(());
        }
        let b = f.block_of(i);
        for (t, &s) in f.block_succs(b).iter().enumerate() {
            for (&a, &p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                self.moves.set.push(ParallelMove {
                    from: slot(a),
                    to: slot(p),
                    class: p.class(),
                });
            }
            if f.block_preds(s).len() == 1 {
                self.moves.set.extend_from_slice(stores);
                let first = f.block_insts(s).first();
                self.flush(ProgPoint::before(first), PHASE_EDGE_IN, self.allocatable);
            } else {
                if !stores.is_empty() {
                    return Err(AllocError::Unsupported(format!(
                        "{i}: a branch def in a register flows into {s}, which has several predecessors"
                    )));
                }
                let mut free = self.allocatable;
                for r in loaded.iter() {
                    free.remove(r);
                }
                self.flush(ProgPoint::before(i), PHASE_EDGE_OUT, free);
            }
        }
        Ok(())
    }
}
