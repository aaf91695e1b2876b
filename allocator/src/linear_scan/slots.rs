//! Spill slots: one per spilled value, except that the spilled members of
//! a group of block parameters and their arguments share a slot wherever
//! their lives do not meet. An edge from an argument in its slot to a
//! parameter in the same slot then needs no move: without sharing it is a
//! copy through a register, or the parameter takes a register and the edge
//! reloads it.
//!
//! A slot is written where its value is defined and, for a parameter, by the
//! edge moves into its block, which may run at the end of a predecessor.
//! Two members may share a slot when their live ranges are disjoint and no
//! write for one falls where the other is live: not its definition's
//! instruction (a def operand may be the slot itself), nor such an edge
//! write (unless the other is the very argument the edge passes: it writes
//! that value). Nor may two values one instruction defines share a slot:
//! each def operand may write it, and a value nothing reads (passed only to
//! dead parameters, see [`crate::analysis::read`]) is live nowhere to
//! conflict with.

use super::groups::HintGroups;
use super::layout::{Layout, Pos};
use super::ranges::Ranges;
use crate::counting_sort::counting_sorted;
use crate::ir::function::Function;

/// The slot of every spilled vreg (`u32::MAX` for the others) and how many
/// slots there are. Each spilled member of a group is offered the slots
/// its partners already have (the arguments passed to it, the parameters
/// it is passed to: sharing with them is what saves an edge's move), then
/// the [`RECENT_TRIED`] slots of its group opened last; it takes the first
/// that admits it ([`apart`] from each of its members), else a new one.
/// Offering it every slot of its group was quadratic: a group of thousands
/// of values live at once needs as many slots.
pub fn assign(
    f: &Function,
    layout: &Layout,
    r: &Ranges,
    groups: &mut HintGroups,
    spilled: &[bool],
) -> (Vec<u32>, u32) {
    let nv = f.num_vregs();
    let mut slot = vec![u32::MAX; nv];
    let root: Vec<u32> = (0..nv).map(|v| groups.find(v)).collect();
    let (start, members) = counting_sorted(
        nv,
        nv,
        |v| spilled[v].then_some(root[v] as usize),
        |v| v as u32,
    );
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for b in f.blocks() {
        for (t, &s) in f.block_succs(b).iter().enumerate() {
            for (&a, &p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                let (a, p) = (a.index(), p.index());
                if a != p && spilled[a] && spilled[p] {
                    pairs.push((a as u32, p as u32));
                    pairs.push((p as u32, a as u32));
                }
            }
        }
    }
    let (partners_of, partners) = counting_sorted(
        nv,
        pairs.len(),
        |k| Some(pairs[k].0 as usize),
        |k| pairs[k].1,
    );
    let mut count = 0u32;
    let mut open: Vec<Shared> = Vec::new();
    // Per open slot of the group: the member last offered it.
    let mut offered: Vec<u32> = Vec::new();
    let mut windows: Vec<(Pos, u32)> = Vec::new();
    for w in start.windows(2) {
        open.clear();
        offered.clear();
        let first = count;
        for &v in &members[w[0] as usize..w[1] as usize] {
            let v = v as usize;
            edge_windows(f, layout, r, v, &mut windows);
            let mut fits = |k: usize| {
                if offered[k] == v as u32 {
                    return false;
                }
                offered[k] = v as u32;
                let s = &open[k];
                let yes = s.admits(layout, r, v, &windows);
                debug_assert!(
                    s.members.len() > CHECKED
                        || yes
                            == s.members
                                .iter()
                                .all(|&u| apart(f, layout, r, v, u as usize))
                );
                yes
            };
            let of_partners = partners[partners_of[v] as usize..partners_of[v + 1] as usize]
                .iter()
                .filter(|&&u| slot[u as usize] != u32::MAX)
                .map(|&u| (slot[u as usize] - first) as usize);
            let recent = (0..open.len()).rev().take(RECENT_TRIED);
            let k = match of_partners.chain(recent).find(|&k| fits(k)) {
                Some(k) => k,
                None => {
                    open.push(Shared::new(count));
                    offered.push(v as u32);
                    count += 1;
                    open.len() - 1
                }
            };
            slot[v] = open[k].id;
            open[k].hold(layout, r, v, &windows);
        }
    }
    (slot, count)
}

/// How many of its group's slots opened last a member is offered after
/// its partners'.
const RECENT_TRIED: usize = 8;

/// One slot of a group: what its members' lives and writes cover, sorted,
/// so that a new member is checked against all of them at once by binary
/// search, where checking it against each member ([`apart`]) made a group
/// of thousands quadratic. A slot holds a few members, or many that come
/// in order: sorted vectors, filled mostly at their ends, are cheaper to
/// search than trees.
struct Shared {
    id: u32,
    members: Vec<u32>,
    /// The members' ranges `(start, end, vreg)`, sorted. Disjoint, as
    /// members' lives are.
    live: Vec<(Pos, Pos, u32)>,
    /// Where the members' definitions write the slot (their instructions'
    /// early points), sorted.
    defs: Vec<Pos>,
    /// The members' edge writes ([`edge_windows`]): where each begins, and
    /// the argument it passes, sorted.
    writes: Vec<(Pos, u32)>,
}

/// Up to this many members, debug builds check a slot's verdict against
/// each member's ([`apart`]).
const CHECKED: usize = 16;

/// How many positions an edge write spans: its branch's two.
const WINDOW: u32 = 2;

impl Shared {
    fn new(id: u32) -> Shared {
        Shared {
            id,
            members: Vec::new(),
            live: Vec::new(),
            defs: Vec::new(),
            writes: Vec::new(),
        }
    }

    /// The members live somewhere in `[s, e)`, each once per range.
    fn live_in(&self, s: Pos, e: Pos) -> impl Iterator<Item = u32> + '_ {
        let k = self.live.partition_point(|x| x.0 < e);
        self.live[..k]
            .iter()
            .rev()
            .take_while(move |x| x.1 > s)
            .map(|x| x.2)
    }

    /// Whether a member's definition writes somewhere in `[s, e)`.
    fn def_in(&self, s: Pos, e: Pos) -> bool {
        let k = self.defs.partition_point(|&d| d < s);
        self.defs.get(k).is_some_and(|&d| d < e)
    }

    /// The arguments of the members' edge writes that begin in `[s, e)`.
    fn writes_in(&self, s: Pos, e: Pos) -> impl Iterator<Item = u32> + '_ {
        let k = self.writes.partition_point(|x| x.0 < s);
        self.writes[k..]
            .iter()
            .take_while(move |x| x.0 < e)
            .map(|x| x.1)
    }

    /// Whether `v` may share this slot: [`apart`] from every member, with
    /// `windows` its edge writes.
    fn admits(&self, layout: &Layout, r: &Ranges, v: usize, windows: &[(Pos, u32)]) -> bool {
        let ranges = r.of(v);
        // Lives overlap, or a member's definition or edge write falls where
        // `v` is live.
        let meets = ranges.iter().any(|&(s, e)| {
            self.live_in(s, e).next().is_some()
                || self.def_in(back(s, WINDOW - 1), e)
                || self
                    .writes_in(back(s, WINDOW - 1), e)
                    .any(|arg| arg as usize != v)
        });
        if meets {
            return false;
        }
        // `v`'s definition or an edge write of its falls where a member is
        // live (the argument an edge passes excepted).
        let d = r.def_inst[v];
        if d.is_valid() {
            let at = layout.pos[d.index()];
            if self.def_in(at, at + 1) || self.live_in(at, at + WINDOW).next().is_some() {
                return false;
            }
        }
        windows
            .iter()
            .all(|&(at, arg)| self.live_in(at, at + WINDOW).all(|u| u == arg))
    }

    /// Makes `v` a member.
    fn hold(&mut self, layout: &Layout, r: &Ranges, v: usize, windows: &[(Pos, u32)]) {
        self.members.push(v as u32);
        for &(s, e) in r.of(v) {
            let k = self.live.partition_point(|x| x.0 < s);
            self.live.insert(k, (s, e, v as u32));
        }
        let d = r.def_inst[v];
        if d.is_valid() {
            let at = layout.pos[d.index()];
            let k = self.defs.partition_point(|&x| x < at);
            self.defs.insert(k, at);
        }
        for &w in windows {
            let k = self.writes.partition_point(|&x| x < w);
            self.writes.insert(k, w);
        }
    }
}

/// `p - k`, or the first position.
fn back(p: Pos, k: u32) -> Pos {
    if p >= Pos::early(0) + k {
        p - k
    } else {
        Pos::early(0)
    }
}

/// Where an edge move into parameter `p` may write its slot, into
/// `windows` (cleared first; empty unless `p` is a parameter): over the
/// branch of each predecessor, with the argument that edge passes.
fn edge_windows(
    f: &Function,
    layout: &Layout,
    r: &Ranges,
    p: usize,
    windows: &mut Vec<(Pos, u32)>,
) {
    windows.clear();
    let (b, i) = r.params[p];
    if !b.is_valid() {
        return;
    }
    for &pred in f.block_preds(b) {
        let last = f.block_insts(pred).last();
        let at = layout.pos[last.index()];
        debug_assert_eq!(layout.span[pred.index()].1, at + WINDOW);
        for (k, &s) in f.block_succs(pred).iter().enumerate() {
            if s == b {
                windows.push((at, f.branch_args(pred, k)[i as usize].index() as u32));
            }
        }
    }
}

/// Whether `v` and `u` may share a slot (see the module documentation).
fn apart(f: &Function, layout: &Layout, r: &Ranges, v: usize, u: usize) -> bool {
    let one_def = r.def_inst[v].is_valid() && r.def_inst[v] == r.def_inst[u];
    !one_def
        && !overlap(r.of(v), r.of(u))
        && !def_write_meets(layout, r, v, u)
        && !def_write_meets(layout, r, u, v)
        && !edge_write_meets(f, layout, r, v, u)
        && !edge_write_meets(f, layout, r, u, v)
}

/// Whether `v`'s definition may write the slot where `u` is live: a def
/// operand in the slot is written at its instruction, before the value's
/// range begins after it.
fn def_write_meets(layout: &Layout, r: &Ranges, v: usize, u: usize) -> bool {
    let d = r.def_inst[v];
    d.is_valid() && {
        let at = layout.pos[d.index()];
        r.first_live(u, at, at + 2).is_some()
    }
}

/// Whether two sorted lists of disjoint ranges overlap.
fn overlap(a: &[(Pos, Pos)], b: &[(Pos, Pos)]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].1 <= b[j].0 {
            i += 1;
        } else if b[j].1 <= a[i].0 {
            j += 1;
        } else {
            return true;
        }
    }
    false
}

/// Whether an edge move into parameter `p` may write the slot where `u`
/// is live: at the end of a predecessor, over its branch, with `u` not the
/// argument that edge passes.
fn edge_write_meets(f: &Function, layout: &Layout, r: &Ranges, p: usize, u: usize) -> bool {
    let (b, i) = r.params[p];
    if !b.is_valid() {
        return false;
    }
    f.block_preds(b).iter().any(|&pred| {
        let last = f.block_insts(pred).last();
        let (from, until) = (layout.pos[last.index()], layout.span[pred.index()].1);
        f.block_succs(pred).iter().enumerate().any(|(k, &s)| {
            s == b
                && f.branch_args(pred, k)[i as usize].index() != u
                && r.first_live(u, from, until).is_some()
        })
    })
}
