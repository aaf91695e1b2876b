//! The checker's state made visible: after the fixpoint, each block is run
//! once more from its final in-state and every location an edit or an
//! instruction writes is reported with the set it then holds. This is what
//! `rafuzz explain` shows; the verdict itself never needs it, so the
//! observer is a type parameter that the check compiles away.

use super::boundary::{pair_loc, pair_vreg};
use super::dataflow::{Checker, Ctx, Pruning, MAX_TRACKED_SLOTS};
use super::error::CheckError;
use super::observe::Observe;
pub use super::observe::TracePoint;
use allocator::{Allocation, Function, MachineEnv, Output, PReg, RegClass, SpillSlot, VReg};

/// A location written at a point, and the vregs it holds after it (empty:
/// nothing the program still needs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub at: TracePoint,
    pub loc: Allocation,
    pub holds: Vec<VReg>,
}

/// What each location holds at one point: `(location, vregs)` in location
/// order, locations that hold nothing left out.
pub type State = Vec<(Allocation, Vec<VReg>)>;

/// The symbolic state of a whole allocation, point by point.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Per block, what each location holds on entry (the meet over its
    /// predecessors, restricted to live values), in location order; `None`
    /// for a block no path reaches.
    pub entry: Vec<Option<State>>,
    /// Every write, in program order.
    pub changes: Vec<Change>,
    /// The checker's verdict, as [`super::check`] gives it.
    pub errors: Vec<CheckError>,
}

/// Collects the changes with vreg indices named by their class.
struct Recorder<'a> {
    class: &'a [RegClass],
    changes: Vec<Change>,
}

impl Observe for Recorder<'_> {
    const ON: bool = true;
    fn wrote(&mut self, at: TracePoint, loc: u32, set: &[u32]) {
        self.changes.push(Change {
            at,
            loc: location(loc),
            holds: set.iter().map(|&v| vreg(self.class, v)).collect(),
        });
    }
}

/// The location of a dense key.
fn location(l: u32) -> Allocation {
    let l = l as usize;
    if l < PReg::NUM_INDEX {
        Allocation::Reg(PReg::from_index(l))
    } else {
        Allocation::Stack(SpillSlot::new(l - PReg::NUM_INDEX))
    }
}

fn vreg(class: &[RegClass], v: u32) -> VReg {
    VReg::new(v as usize, class[v as usize])
}

/// Checks `out` and traces the symbolic state through it.
pub fn trace(f: &Function, env: &MachineEnv, out: &Output) -> Trace {
    let mut c = Checker::default();
    let errors = c.check_pruned(f, env, out, Pruning::Cheaper);
    if out.allocs.len() != f.num_operands() {
        return Trace {
            errors,
            ..Trace::default()
        };
    }
    let class = f.vreg_classes();
    let ctx = Ctx {
        f,
        out,
        nslots: out.num_spillslots.min(MAX_TRACKED_SLOTS),
        slots: env.slots,
        vclass: if env.slots.is_unit() { &[] } else { &class },
    };
    let mut rec = Recorder {
        class: &class,
        changes: Vec::new(),
    };
    let mut entry = Vec::with_capacity(f.num_blocks());
    let mut ignored = Vec::new();
    for b in f.blocks() {
        if !c.reached[b.index()] {
            entry.push(None);
            continue;
        }
        let mut locs: State = Vec::new();
        for &p in c.in_state(b.index()) {
            let l = location(pair_loc(p));
            let v = vreg(&class, pair_vreg(p));
            match locs.last_mut() {
                Some((last, set)) if *last == l => set.push(v),
                _ => locs.push((l, vec![v])),
            }
        }
        entry.push(Some(locs));
        c.cur = b.index();
        c.run_block(&ctx, b, &mut ignored, &mut rec);
        c.forget_writes();
    }
    Trace {
        entry,
        changes: rec.changes,
        errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allocator::fixtures::unit_case;
    use allocator::Inst;

    #[test]
    fn reports_every_write_and_block_entries() {
        let case = unit_case("checker_trace/reports_every_write_and_block_entries");
        let out = case.output.as_ref().unwrap();
        let t = trace(&case.func, &case.machine, out);
        assert!(t.errors.is_empty());
        let p = |hw| Allocation::Reg(PReg::new(hw, RegClass::Int));
        let s0 = Allocation::Stack(SpillSlot::new(0));
        let v = |i| VReg::new(i, RegClass::Int);
        let seen: Vec<(TracePoint, Allocation, Vec<VReg>)> = t
            .changes
            .iter()
            .map(|c| (c.at, c.loc, c.holds.clone()))
            .collect();
        assert_eq!(
            seen,
            vec![
                (TracePoint::Inst(Inst::new(0)), p(0), vec![v(0)]),
                (TracePoint::Edit(0), s0, vec![v(0)]),
                (TracePoint::Edit(1), p(1), vec![v(0), v(1)]),
                (TracePoint::Inst(Inst::new(2)), p(1), vec![]),
            ]
        );
        // block1 starts with v1i (the parameter) and v0i in the slot; p0i
        // keeps v0i too, which is live into block1 as its argument only.
        let b1 = t.entry[1].as_ref().unwrap();
        assert!(b1.contains(&(s0, vec![v(0), v(1)])));
        assert_eq!(t.entry[0], Some(vec![]));
    }
}
