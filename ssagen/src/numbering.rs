//! The case's block numbering, drawn last: the function is generated in
//! dominator-tree preorder (values flow down the tree as blocks are drawn),
//! then renumbered into the numbering drawn from the config's set. Drawn
//! from the input's last bytes, after everything else, so an input decodes
//! to the same function whatever numbering it gets, and an input whose
//! bytes ran out keeps the preorder it always had.

use crate::choices::Choices;
use allocator::analysis::numbering::{renumber_function, rpo_order, Numbering, Numberings};
use allocator::{Block, Function};

/// `func`, generated in dominator-tree preorder, in a numbering drawn from
/// `allowed`: with one member, that one without a draw; otherwise one
/// member (the first once the bytes run out).
pub fn draw(c: &mut Choices, allowed: Numberings, func: Function) -> Function {
    let numbering = match allowed.len() {
        0 | 1 => allowed.iter().next().unwrap_or(Numbering::DomPreorder),
        n => allowed
            .iter()
            .nth(c.int(0, n - 1))
            .expect("the draw is within the set"),
    };
    match numbering {
        Numbering::DomPreorder => func,
        Numbering::ReversePostorder => renumber_function(&func, &rpo_order(&func)),
        Numbering::Free => {
            // A shuffle of the blocks after the entry (Fisher-Yates, each
            // position drawn; an exhausted input leaves the rest in place).
            let n = func.num_blocks();
            let mut order: Vec<Block> = func.blocks().collect();
            for k in 1..n.saturating_sub(1) {
                order.swap(k, c.int(k, n - 1));
            }
            renumber_function(&func, &order)
        }
    }
}
