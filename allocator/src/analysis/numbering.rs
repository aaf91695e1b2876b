//! Block numbering: the order a function's blocks (and so its instructions)
//! are numbered in. The format takes any numbering with the entry first;
//! producers differ. The generator numbers in preorder of the dominator
//! tree, Cranelift hands regalloc2 a reverse postorder, and an edited case
//! may number a block after blocks it dominates. Allocators and checkers that
//! walk blocks by index may depend on which, so the numbering is a property
//! of a case that can be drawn, told, and changed without changing the
//! function: [`renumbered`] permutes the blocks of a case, allocation
//! included.

use crate::analysis::cfg::reverse_postorder;
use crate::analysis::domtree::DomTree;
use crate::ir::case::Case;
use crate::ir::function::{Function, FunctionBuilder};
use crate::ir::index::{Block, Inst, ProgPoint};
use crate::ir::output::Output;

/// The three numberings a case may be drawn with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Numbering {
    /// Preorder of the dominator tree, children in the generator's order:
    /// every block after its dominators, each subtree contiguous.
    #[default]
    DomPreorder,
    /// Reverse postorder of a depth-first walk that visits successors in
    /// their listed order: every block after its dominators, and after the
    /// predecessor the walk reached it from. Told by those two properties
    /// ([`classify`]), which Cranelift's lowered order (a reverse postorder
    /// with each critical edge's block right after its source) keeps too.
    ReversePostorder,
    /// Any order with the entry first: a block may come before blocks that
    /// dominate it.
    Free,
}

impl Numbering {
    pub const ALL: [Numbering; 3] = [
        Numbering::DomPreorder,
        Numbering::ReversePostorder,
        Numbering::Free,
    ];
}

/// A set of [`Numbering`]s: those a profile's cases may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Numberings(u8);

impl Numberings {
    pub const ALL: Numberings = Numberings(0b111);
    /// The numberings in which every block comes after its dominators.
    pub const DOMINATORS_FIRST: Numberings = Numberings(0b011);

    pub const fn only(n: Numbering) -> Numberings {
        Numberings(1 << n as u8)
    }

    pub const fn contains(self, n: Numbering) -> bool {
        self.0 & (1 << n as u8) != 0
    }

    /// The set without `n`; never empty: without its last member, a set
    /// keeps dominator-tree preorder, every block after its dominators.
    pub const fn without(self, n: Numbering) -> Numberings {
        match self.0 & !(1 << n as u8) {
            0 => Numberings::only(Numbering::DomPreorder),
            m => Numberings(m),
        }
    }

    /// The members in [`Numbering::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Numbering> {
        Numbering::ALL
            .into_iter()
            .filter(move |&n| self.contains(n))
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `f`'s numbering keeps what every member of the set
    /// promises, the properties allocators and checkers rely on: with
    /// `Free`, anything; otherwise every block after its dominators, and
    /// besides, with preorder alone a dominator-tree preorder, with reverse
    /// postorder alone every block after one of its predecessors (as
    /// Cranelift's lowered order, a reverse postorder with each edge block
    /// right after its source, keeps).
    pub fn admits(self, f: &Function) -> bool {
        if self.contains(Numbering::Free) {
            return true;
        }
        let dom = DomTree::new(f);
        if !dominators_first(f, &dom) {
            return false;
        }
        match (
            self.contains(Numbering::DomPreorder),
            self.contains(Numbering::ReversePostorder),
        ) {
            (true, false) => is_dom_preorder(f, &dom),
            (false, true) => block_before_its_preds(f).is_none(),
            _ => true,
        }
    }
}

/// `f` with its blocks renumbered: block `order[k]` of `f` becomes block
/// `k`. `order` is a permutation of `f`'s blocks with the entry first.
pub fn renumber_function(f: &Function, order: &[Block]) -> Function {
    debug_assert!(is_permutation(order, f.num_blocks()) && order.first() == Some(&Block(0)));
    let new_of = inverse(order);
    let mut b = FunctionBuilder::with_capacity(f.num_blocks(), f.num_insts(), f.num_operands());
    let mut targets: Vec<(Block, &[crate::ir::index::VReg])> = Vec::new();
    for &old in order {
        b.block(f.block_params(old));
        for i in f.block_insts(old).iter() {
            targets.clear();
            for t in 0..f.num_targets(i) {
                let (blk, args) = f.target(i, t);
                targets.push((Block::new(new_of[blk.index()]), args));
            }
            b.inst(
                f.opcode(i),
                f.inst_operands(i),
                f.inst_clobbers(i),
                &targets,
            );
        }
    }
    b.finish()
        .expect("a permutation of existing blocks names only existing blocks")
}

/// `case` with its blocks renumbered as by [`renumber_function`], its
/// allocation (if any) carried along: each operand keeps its location and
/// each edit its instruction and position, so the renumbered case is
/// allocated exactly as the original is.
pub fn renumbered(case: &Case, order: &[Block]) -> Case {
    let f = &case.func;
    let func = renumber_function(f, order);
    let output = case.output.as_ref().map(|out| {
        // New index of every old instruction, and the old instructions in
        // new order.
        let mut new_inst = vec![0u32; f.num_insts()];
        let mut allocs = Vec::with_capacity(out.allocs.len());
        let mut k = 0u32;
        for &old in order {
            for i in f.block_insts(old).iter() {
                new_inst[i.index()] = k;
                k += 1;
                allocs.extend_from_slice(out.inst_allocs(f, i));
            }
        }
        let mut edits: Vec<(ProgPoint, crate::ir::output::Move)> = out
            .edits
            .iter()
            .map(|&(p, m)| {
                let i = Inst::new(new_inst[p.inst().index()] as usize);
                (ProgPoint::new(i, p.pos()), m)
            })
            .collect();
        // Stable: moves at one point keep their order.
        edits.sort_by_key(|e| e.0.to_index());
        Output {
            allocs,
            edits,
            num_spillslots: out.num_spillslots,
        }
    });
    Case {
        machine: case.machine.clone(),
        func,
        output,
    }
}

/// The reachable blocks of `f` in reverse postorder followed by the
/// unreachable ones in block order: a renumbering order for
/// [`renumber_function`] that makes `f` a reverse postorder.
pub fn rpo_order(f: &Function) -> Vec<Block> {
    let mut order = reverse_postorder(f);
    let mut seen = vec![false; f.num_blocks()];
    for b in &order {
        seen[b.index()] = true;
    }
    order.extend(f.blocks().filter(|b| !seen[b.index()]));
    order
}

/// Whether every reachable block is numbered after its immediate dominator
/// (and so after all its dominators): true of both dominator-tree preorder
/// and reverse postorder.
pub fn dominators_first(f: &Function, dom: &DomTree) -> bool {
    f.blocks()
        .skip(1)
        .all(|b| dom.idom(b).is_none_or(|d| d.index() < b.index()))
}

/// The first reachable block other than the entry that has successors and
/// no predecessor numbered before it, if any. A reverse postorder has none
/// (the walk reached each block from an earlier one); a dominator-tree
/// preorder or a free numbering may (a join reached only from blocks after
/// it). Checkers that visit blocks in index order and start from each
/// block's predecessors meet such a block before anything flows into it.
pub fn block_before_its_preds(f: &Function) -> Option<Block> {
    let reachable = crate::analysis::cfg::reachable(f);
    f.blocks().skip(1).find(|&b| {
        reachable[b.index()]
            && !f.block_succs(b).is_empty()
            && f.block_preds(b).iter().all(|p| p.index() >= b.index())
    })
}

/// Which of the three numberings `f` has, by what each promises, the most
/// specific first: a dominator-tree preorder; else every block after its
/// dominators and after one of its predecessors (a reverse postorder, or
/// Cranelift's lowered order, which puts each edge block right after its
/// source); else free. (A straight line is all three; it is named a
/// preorder.)
pub fn classify(f: &Function) -> Numbering {
    let dom = DomTree::new(f);
    if is_dom_preorder(f, &dom) {
        Numbering::DomPreorder
    } else if dominators_first(f, &dom) && block_before_its_preds(f).is_none() {
        Numbering::ReversePostorder
    } else {
        Numbering::Free
    }
}

/// Whether the reachable blocks are numbered in a preorder of the dominator
/// tree (any order of children): every block after its immediate dominator,
/// and each block's subtree a contiguous run of numbers.
fn is_dom_preorder(f: &Function, dom: &DomTree) -> bool {
    if !dominators_first(f, dom) {
        return false;
    }
    // With dominators first, the numbering is a preorder exactly when, for
    // each block in number order, its immediate dominator is on the path
    // of the blocks still open (the stack of the walk).
    let mut path: Vec<Block> = Vec::with_capacity(f.num_blocks());
    for b in f.blocks() {
        if b.index() == 0 {
            path.push(b);
            continue;
        }
        let Some(d) = dom.idom(b) else {
            continue;
        };
        while path.last().is_some_and(|&top| top != d) {
            path.pop();
        }
        if path.is_empty() {
            return false;
        }
        path.push(b);
    }
    true
}

fn inverse(order: &[Block]) -> Vec<usize> {
    let mut new_of = vec![0usize; order.len()];
    for (k, b) in order.iter().enumerate() {
        new_of[b.index()] = k;
    }
    new_of
}

fn is_permutation(order: &[Block], n: usize) -> bool {
    let mut seen = vec![false; n];
    order.len() == n
        && order
            .iter()
            .all(|b| b.index() < n && !std::mem::replace(&mut seen[b.index()], true))
}
