//! From parallel move sets at program points to an output's edits: the glue
//! every allocator puts around the shared [`MoveResolver`]. An allocator
//! either gathers and resolves one set at a time while it walks the
//! instructions ([`EditQueue`]), or lists every move with its instruction
//! and phase first and has each group resolved at the end
//! ([`resolve_grouped`]). Either way, sets at one point come out ordered by
//! phase, and the moves of each set in the resolver's order.

use crate::counting_sort::counting_sorted;
use crate::ir::index::{Inst, PRegSet, ProgPoint};
use crate::ir::output::Move;
use crate::moves::{MoveContext, MoveResolver, ParallelMove};

/// Parallel move sets resolved one at a time, each at a program point and
/// in a phase (an allocator's own order of the sets at one point); the
/// edits are sorted by point, then phase, then the order they were
/// resolved in. Keeps its buffers, so a set allocates nothing once they
/// have grown.
#[derive(Default)]
pub struct EditQueue {
    /// The set being gathered, resolved and emptied by [`EditQueue::flush`].
    pub set: Vec<ParallelMove>,
    resolver: MoveResolver,
    out: Vec<Move>,
    /// `(point, phase, sequence, move)`.
    edits: Vec<(ProgPoint, u8, u32, Move)>,
}

impl EditQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Resolves [`EditQueue::set`], when it holds any move, as one parallel
    /// move at `point` in `phase`, and empties it.
    pub fn flush(&mut self, point: ProgPoint, phase: u8, ctx: &MoveContext) {
        if self.set.is_empty() {
            return;
        }
        self.out.clear();
        self.resolver.resolve(&self.set, ctx, &mut self.out);
        for &m in &self.out {
            let seq = self.edits.len() as u32;
            self.edits.push((point, phase, seq, m));
        }
        self.set.clear();
    }

    /// The edits resolved so far, by point, then phase, then sequence.
    pub fn into_edits(mut self) -> Vec<(ProgPoint, Move)> {
        self.edits.sort_by_key(|e| (e.0, e.1, e.2));
        self.edits.into_iter().map(|e| (e.0, e.3)).collect()
    }
}

/// Resolves pending moves listed in any order, each with the instruction
/// before which it runs and its phase (`< phases`) there, as `at` says:
/// each group of one instruction and phase, by instruction and then phase
/// (a counting sort, keeping the list's order within a group), is one
/// parallel set at `before(instruction)`. `gather` fills the (cleared) set
/// from the group's moves and returns the registers free around them; an
/// empty set is skipped. `ctx` gives the machine and the resolver's slots.
pub fn resolve_grouped<T: Copy>(
    mut ctx: MoveContext,
    num_insts: usize,
    phases: usize,
    moves: &[T],
    at: impl Fn(&T) -> (Inst, usize),
    mut gather: impl FnMut(Inst, &[T], &mut Vec<ParallelMove>) -> PRegSet,
) -> Vec<(ProgPoint, Move)> {
    let (start, sorted) = counting_sorted(
        num_insts * phases,
        moves.len(),
        |k| {
            let (i, phase) = at(&moves[k]);
            Some(i.index() * phases + phase)
        },
        |k| moves[k],
    );
    let mut resolver = MoveResolver::new();
    let mut edits = Vec::with_capacity(moves.len());
    let mut set = Vec::new();
    let mut out = Vec::new();
    for w in start.windows(2) {
        let group = &sorted[w[0] as usize..w[1] as usize];
        let Some(first) = group.first() else {
            continue;
        };
        let i = at(first).0;
        set.clear();
        ctx.free = gather(i, group, &mut set);
        if set.is_empty() {
            continue;
        }
        out.clear();
        resolver.resolve(&set, &ctx, &mut out);
        edits.extend(out.iter().map(|&m| (ProgPoint::before(i), m)));
    }
    edits
}
