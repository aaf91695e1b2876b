//! Live ranges from precise liveness: one backward pass over the blocks and
//! their instructions, keeping per value the end of its open range. Each
//! range lies inside one block and holds the use records that fall in it,
//! each weighted by the loop depth of its block.

use super::edge_branch::{entry_records, EdgeBranches};
use super::kept::reuse;
use super::operands::{plan_edge_branch, plan_inst, InstRecords, Record, Rewrites, Values};
use super::points::{e, l, m, Point};
use super::requirement::{Masks, Req};
use crate::analysis::block_sets::{members, BlockSets};
use crate::counting_sort::counting_sort;
use crate::interface::AllocError;
use crate::ir::function::Function;
use crate::ir::index::RegClass;

/// A use record inside a range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Use {
    pub point: Point,
    pub slot: u32,
    pub req: Req,
    /// Spill weight: how much keeping this use in a register is worth.
    pub weight: u32,
}

/// `[from, to)` of one value, with its uses `uses.0..uses.1` (sorted by
/// point) in [`Ranges::uses`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveRange {
    pub from: Point,
    pub to: Point,
    pub value: u32,
    pub uses: (u32, u32),
}

/// Every live range of every value.
pub struct Ranges {
    pub ranges: Vec<LiveRange>,
    pub uses: Vec<Use>,
    pub values: Values,
    /// Per value `v`, its ranges as built, before any split:
    /// `extents[value_start[v]..value_start[v + 1]]`, sorted. Range `k` of
    /// that list is range `k` of [`Ranges::ranges`] before splitting.
    pub value_start: Vec<u32>,
    pub extents: Vec<(Point, Point)>,
}

const CLOSED: u32 = u32::MAX;

/// Use weight: what keeping the use in a register saves, times four per
/// loop level (up to depth 5). A register read or write saves a reload or a
/// store; an `any` use only spares a memory operand, and a use that asks
/// nothing (a read by a move) saves nothing.
fn weight(depth: u32, rec: &Record, is_def: bool) -> u32 {
    let base = match rec.req {
        Req::Regs(_) | Req::Fixed(_) | Req::Pinned(_) => {
            1000 + if is_def { 500 } else { 0 }
                + if matches!(rec.req, Req::Regs(_)) {
                    0
                } else {
                    500
                }
        }
        Req::Any => ANY_WEIGHT,
        _ => 0,
    };
    base << (2 * depth.min(5))
}

/// Weight of an `any` use (see [`weight`]).
const ANY_WEIGHT: u32 = 1500;

/// [`build`]'s storage kept from one allocation to the next: its
/// temporaries, and the vectors of an earlier [`Ranges`] given back by
/// [`Spare::keep`]. A build refills them whatever they hold.
#[derive(Default)]
pub struct Spare {
    raw: Vec<(u32, Point, Point)>,
    recs: Vec<(Record, u32)>,
    open: Vec<u32>,
    open_list: Vec<u32>,
    order: Vec<u32>,
    rec_start: Vec<u32>,
    rec_order: Vec<u32>,
    buf: Vec<Use>,
    ir: InstRecords,
    ranges: Vec<LiveRange>,
    uses: Vec<Use>,
    class: Vec<RegClass>,
    value_start: Vec<u32>,
    extents: Vec<(Point, Point)>,
}

impl Spare {
    /// Takes back the vectors of `r`, and `ranges` (its ranges as the main
    /// loop handed them on).
    pub fn keep(&mut self, r: Ranges, ranges: Vec<LiveRange>) {
        self.ranges = ranges;
        self.uses = r.uses;
        self.class = r.values.class;
        self.value_start = r.value_start;
        self.extents = r.extents;
    }
}

/// Builds the ranges. `live_out` is per block.
pub fn build(
    f: &Function,
    masks: &Masks,
    live_out: &BlockSets,
    depth: &[u32],
    edges: &EdgeBranches,
    rw: &mut Rewrites,
    spare: &mut Spare,
) -> Result<Ranges, AllocError> {
    let nv = f.num_vregs();
    let mut values = Values {
        class: reuse(&mut spare.class),
    };
    values.class.resize(nv, RegClass::Int);
    for b in f.blocks() {
        for v in f.block_params(b) {
            values.class[v.index()] = v.class();
        }
    }
    for i in f.insts() {
        for op in f.inst_operands(i) {
            if !op.is_nonalloc() {
                values.class[op.vreg().index()] = op.class();
            }
        }
    }
    // Built backwards: `raw` ranges and `recs` in decreasing point order.
    let mut raw = reuse(&mut spare.raw);
    raw.reserve(nv * 2);
    let mut recs = reuse(&mut spare.recs);
    recs.reserve(f.num_operands() + nv);
    let mut open = reuse(&mut spare.open);
    open.resize(nv, CLOSED);
    let mut open_list = reuse(&mut spare.open_list);
    let mut ir = std::mem::take(&mut spare.ir);
    for b in f.blocks().rev() {
        let insts = f.block_insts(b);
        let (start, end) = (m(insts.first()), m(insts.last()) + 3);
        let d = depth[b.index()];
        let mut live_at_end = |v: usize, open: &mut Vec<u32>| {
            if open[v] == CLOSED {
                open[v] = end;
                open_list.push(v as u32);
            }
        };
        for v in members(live_out.of(b.index()), None) {
            live_at_end(v, &mut open);
        }
        for k in 0..f.block_succs(b).len() {
            for a in f.branch_args(b, k) {
                live_at_end(a.index(), &mut open);
            }
        }
        for i in insts.iter().rev() {
            if i == insts.last() && edges.is_edge_before[b.index()] {
                plan_edge_branch(f, i, &mut ir, rw);
            } else {
                let open_now = &open;
                plan_inst(
                    f,
                    i,
                    masks,
                    |v| open_now[v as usize] != CLOSED,
                    &mut values,
                    &mut ir,
                    rw,
                )?;
            }
            for r in &ir.defs {
                let v = r.value as usize;
                let mut to = if open[v] == CLOSED {
                    r.point + 1
                } else {
                    open[v]
                };
                if r.point == e(i) {
                    to = to.max(l(i) + 1);
                }
                raw.push((r.value, r.point, to));
                recs.push((*r, weight(d, r, true)));
                open[v] = CLOSED;
            }
            for r in &ir.uses {
                let v = r.value as usize;
                if open[v] == CLOSED {
                    open[v] = r.point + 1;
                    open_list.push(r.value);
                } else {
                    open[v] = open[v].max(r.point + 1);
                }
                recs.push((*r, weight(d, r, false)));
            }
            for &(c, _, r) in &ir.copies {
                raw.push((c, e(i), r.point + 1));
                recs.push((r, weight(d, &r, false)));
            }
        }
        for r in entry_records(edges, f, b) {
            recs.push((r, weight(d, &r, false)));
        }
        // What is still open (block parameters among it) starts here.
        for &v in &open_list {
            if open[v as usize] != CLOSED {
                raw.push((v, start, open[v as usize]));
                open[v as usize] = CLOSED;
            }
        }
        open_list.clear();
    }
    let n_values = values.class.len();
    // Group ranges and records per value; reversing a value's ranges makes
    // them ascending; its records are sorted by point.
    let mut value_start = reuse(&mut spare.value_start);
    let mut order = reuse(&mut spare.order);
    let last = raw.len().wrapping_sub(1);
    counting_sort(
        n_values,
        raw.len(),
        |k| Some(raw[last - k].0 as usize),
        |k| (last - k) as u32,
        &mut value_start,
        &mut order,
    );
    let mut rec_start = reuse(&mut spare.rec_start);
    let mut rec_order = reuse(&mut spare.rec_order);
    counting_sort(
        n_values,
        recs.len(),
        |k| Some(recs[k].0.value as usize),
        |k| k as u32,
        &mut rec_start,
        &mut rec_order,
    );
    let mut ranges = reuse(&mut spare.ranges);
    ranges.reserve(raw.len());
    let mut uses = reuse(&mut spare.uses);
    uses.reserve(recs.len());
    let mut extents = reuse(&mut spare.extents);
    extents.reserve(raw.len());
    let mut buf = reuse(&mut spare.buf);
    for v in 0..n_values {
        buf.clear();
        buf.extend(
            rec_order[rec_start[v] as usize..rec_start[v + 1] as usize]
                .iter()
                .map(|&k| {
                    let (r, w) = recs[k as usize];
                    Use {
                        point: r.point,
                        slot: r.slot,
                        req: r.req,
                        weight: w,
                    }
                }),
        );
        buf.sort_by_key(|u| u.point);
        let mut next = 0;
        let rs = &order[value_start[v] as usize..value_start[v + 1] as usize];
        for &k in rs {
            let (_, from, to) = raw[k as usize];
            let u0 = uses.len() as u32;
            while next < buf.len() && buf[next].point < to {
                debug_assert!(buf[next].point >= from, "use outside its range");
                uses.push(buf[next]);
                next += 1;
            }
            extents.push((from, to));
            ranges.push(LiveRange {
                from,
                to,
                value: v as u32,
                uses: (u0, uses.len() as u32),
            });
        }
        debug_assert_eq!(next, buf.len(), "a use of value {v} in no range");
    }
    (spare.raw, spare.recs, spare.open, spare.open_list) = (raw, recs, open, open_list);
    (spare.order, spare.rec_start, spare.rec_order, spare.buf) = (order, rec_start, rec_order, buf);
    spare.ir = ir;
    Ok(Ranges {
        ranges,
        uses,
        values,
        value_start,
        extents,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::index::{PReg, RegClass};

    #[test]
    fn use_weights_by_requirement_and_loop_depth() {
        let p0 = PReg::new(0, RegClass::Int);
        let w = |depth, req, is_def| {
            let rec = Record {
                value: 0,
                point: 0,
                slot: 0,
                req,
            };
            weight(depth, &rec, is_def)
        };
        assert_eq!(w(0, Req::Regs(3), false), 1000);
        assert_eq!(w(0, Req::Regs(3), true), 1500);
        assert_eq!(w(0, Req::Fixed(p0), false), 1500);
        assert_eq!(w(0, Req::Pinned(p0), true), 2000);
        assert_eq!(w(0, Req::Any, false), ANY_WEIGHT);
        assert_eq!(w(0, Req::Stack, true), 0);
        assert_eq!(w(0, Req::Top, false), 0);
        assert_eq!(w(1, Req::Regs(3), false), 4000);
        assert_eq!(w(2, Req::Any, false), 16 * ANY_WEIGHT);
        assert_eq!(w(9, Req::Regs(3), false), 1000 << 10);
    }
}
