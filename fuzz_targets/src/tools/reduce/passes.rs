//! The reduction passes. Each pass sees a draft as a list of items (blocks,
//! instructions, operands, ...) enumerated in program order, and makes a
//! candidate by removing or weakening a contiguous range of them, so the
//! driver can try big ranges first and halve them, as delta debugging does.

use crate::edit::draft::{Draft, DraftInst};
use allocator::{Opcode, OperandConstraint, OperandKind, OperandPos, PRegRole, VReg};
use std::ops::Range;

/// One kind of reduction step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Remove blocks; edges into them go, branches left without targets
    /// become returns.
    Blocks,
    /// Route the edges into a block that ends in a jump straight to the
    /// jump's target, and remove the block.
    Bypass,
    /// Merge a block into its only predecessor when that one jumps to it.
    Merge,
    /// Make a later block the entry (its parameters go with their branch
    /// arguments); what it does not reach goes. A loop that does not
    /// contain the entry shrinks to the loop alone.
    Entry,
    /// Remove instructions other than terminators.
    Insts,
    /// Remove block parameters with their branch arguments.
    Params,
    /// Remove operands.
    Operands,
    /// Remove clobbers.
    Clobbers,
    /// Weaken constraints one step: fixed to reg (or stack for a fixed
    /// stack location), limit to reg, reg, stack and reuse to any.
    Weaken,
    /// Move late uses and early defs to their default position.
    Positions,
    /// Remove machine registers: allocatable ones, scratch, fixed stack.
    Machine,
}

impl Pass {
    /// Every pass, big cuts first.
    pub const ALL: [Pass; 11] = [
        Pass::Blocks,
        Pass::Bypass,
        Pass::Merge,
        Pass::Entry,
        Pass::Insts,
        Pass::Params,
        Pass::Operands,
        Pass::Clobbers,
        Pass::Weaken,
        Pass::Positions,
        Pass::Machine,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Pass::Blocks => "blocks",
            Pass::Bypass => "bypass",
            Pass::Merge => "merge",
            Pass::Entry => "entry",
            Pass::Insts => "insts",
            Pass::Params => "params",
            Pass::Operands => "operands",
            Pass::Clobbers => "clobbers",
            Pass::Weaken => "weaken",
            Pass::Positions => "positions",
            Pass::Machine => "machine",
        }
    }

    /// The items of this pass in `d`, as opaque positions.
    fn items(self, d: &Draft) -> Vec<Item> {
        let mut v = Vec::new();
        match self {
            Pass::Blocks => v.extend((1..d.blocks.len()).map(Item::Block)),
            Pass::Entry => {
                // A block that reaches the entry and has no parameters would
                // keep every block: no smaller.
                let entry_has_preds = d
                    .blocks
                    .iter()
                    .any(|b| b.insts.iter().any(|i| i.targets.iter().any(|t| t.0 == 0)));
                v.extend(
                    (1..d.blocks.len())
                        .filter(|&b| {
                            !entry_has_preds
                                || !d.blocks[b].params.is_empty()
                                || !d.reachable_from(b)[0]
                        })
                        .map(Item::Block),
                )
            }
            Pass::Bypass => v.extend(
                (1..d.blocks.len())
                    .filter(|&b| jump_target(d, b).is_some())
                    .map(Item::Block),
            ),
            Pass::Merge => v.extend(
                (1..d.blocks.len())
                    .filter(|&b| merge_pred(d, b).is_some())
                    .map(Item::Block),
            ),
            Pass::Params => {
                for (b, blk) in d.blocks.iter().enumerate() {
                    v.extend((0..blk.params.len()).map(|k| Item::Param(b, k)));
                }
            }
            Pass::Insts | Pass::Operands | Pass::Clobbers | Pass::Weaken | Pass::Positions => {
                for (b, blk) in d.blocks.iter().enumerate() {
                    for (k, i) in blk.insts.iter().enumerate() {
                        match self {
                            Pass::Insts if i.opcode == Opcode::Op => v.push(Item::Inst(b, k)),
                            Pass::Operands => {
                                v.extend((0..i.operands.len()).map(|j| Item::Operand(b, k, j)))
                            }
                            Pass::Clobbers => {
                                v.extend((0..i.clobbers.len()).map(|j| Item::Clobber(b, k, j)))
                            }
                            Pass::Weaken => v.extend(
                                (0..i.operands.len())
                                    .filter(|&j| weaker(d, i, j).is_some())
                                    .map(|j| Item::Operand(b, k, j)),
                            ),
                            Pass::Positions => v.extend(
                                (0..i.operands.len())
                                    .filter(|&j| {
                                        let o = i.operands[j];
                                        !o.has_default_pos()
                                            && !matches!(
                                                o.constraint(),
                                                OperandConstraint::Reuse(_)
                                            )
                                    })
                                    .map(|j| Item::Operand(b, k, j)),
                            ),
                            _ => {}
                        }
                    }
                }
            }
            Pass::Machine => {
                let m = &d.machine;
                for c in 0..3 {
                    v.extend((0..m.preferred[c].len()).map(|k| Item::Reg(c, 0, k)));
                    v.extend((0..m.nonpreferred[c].len()).map(|k| Item::Reg(c, 1, k)));
                    if m.scratch[c].is_some() {
                        v.push(Item::Reg(c, 2, 0));
                    }
                    v.extend((0..m.fixed_stack[c].len()).map(|k| Item::Reg(c, 3, k)));
                }
            }
        }
        v
    }

    /// Number of items of this pass in `d`.
    pub fn count(self, d: &Draft) -> usize {
        self.items(d).len()
    }

    /// `d` with the pass applied to items `r`, repaired (not yet
    /// renumbered); `None` when the range is empty.
    pub fn apply(self, d: &Draft, r: Range<usize>) -> Option<Draft> {
        let items = self.items(d);
        let chosen = items.get(r)?;
        if chosen.is_empty() {
            return None;
        }
        let mut n = d.clone();
        match self {
            Pass::Blocks => {
                let mut dead = vec![false; n.blocks.len()];
                for it in chosen {
                    if let Item::Block(b) = *it {
                        dead[b] = true;
                    }
                }
                n.remove_blocks(&dead);
            }
            Pass::Bypass => {
                for it in chosen {
                    if let Item::Block(b) = *it {
                        bypass(&mut n, b);
                    }
                }
            }
            Pass::Merge => {
                for it in chosen {
                    if let Item::Block(b) = *it {
                        if let Some(p) = merge_pred(&n, b) {
                            merge(&mut n, p, b);
                        }
                    }
                }
            }
            // One entry per candidate: the first of the range, so that
            // halving the range tries every block.
            Pass::Entry => {
                if let Item::Block(b) = chosen[0] {
                    n.reroot(b);
                }
            }
            // Removals go back to front, so earlier positions stay valid.
            Pass::Insts => {
                for it in chosen.iter().rev() {
                    if let Item::Inst(b, k) = *it {
                        n.blocks[b].insts.remove(k);
                    }
                }
            }
            Pass::Params => {
                for it in chosen.iter().rev() {
                    if let Item::Param(b, k) = *it {
                        n.remove_param(b, k);
                    }
                }
            }
            Pass::Operands => {
                for it in chosen.iter().rev() {
                    if let Item::Operand(b, k, j) = *it {
                        n.blocks[b].insts[k].remove_operand(j);
                    }
                }
            }
            Pass::Clobbers => {
                for it in chosen.iter().rev() {
                    if let Item::Clobber(b, k, j) = *it {
                        n.blocks[b].insts[k].clobbers.remove(j);
                    }
                }
            }
            Pass::Weaken => {
                for it in chosen {
                    if let Item::Operand(b, k, j) = *it {
                        let w = weaker(d, &d.blocks[b].insts[k], j)?;
                        let op = &mut n.blocks[b].insts[k].operands[j];
                        *op = op.with_constraint(w);
                    }
                }
            }
            Pass::Positions => {
                for it in chosen {
                    if let Item::Operand(b, k, j) = *it {
                        let op = &mut n.blocks[b].insts[k].operands[j];
                        let pos = match op.kind() {
                            OperandKind::Use => OperandPos::Early,
                            OperandKind::Def => OperandPos::Late,
                        };
                        *op = allocator::Operand::new(op.vreg(), op.kind(), pos, op.constraint());
                    }
                }
            }
            Pass::Machine => {
                for it in chosen.iter().rev() {
                    if let Item::Reg(c, list, k) = *it {
                        let m = &mut n.machine;
                        match list {
                            0 => drop(m.preferred[c].remove(k)),
                            1 => drop(m.nonpreferred[c].remove(k)),
                            2 => m.scratch[c] = None,
                            _ => drop(m.fixed_stack[c].remove(k)),
                        }
                    }
                }
                return Some(n);
            }
        }
        n.repair();
        Some(n)
    }
}

/// A position in a draft: a block, a block parameter, an instruction, an
/// operand or clobber of an instruction, or a machine register (class,
/// list: preferred, nonpreferred, scratch, fixed stack; index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Block(usize),
    Param(usize, usize),
    Inst(usize, usize),
    Operand(usize, usize, usize),
    Clobber(usize, usize, usize),
    Reg(usize, usize, usize),
}

/// The one step weaker constraint of operand `j`, if any.
fn weaker(d: &Draft, i: &DraftInst, j: usize) -> Option<OperandConstraint> {
    let op = i.operands[j];
    match op.constraint() {
        OperandConstraint::FixedReg(r) => {
            if d.machine.role(r) == PRegRole::FixedStack {
                Some(OperandConstraint::Stack)
            } else {
                Some(OperandConstraint::Reg)
            }
        }
        OperandConstraint::Limit(_) => Some(OperandConstraint::Reg),
        OperandConstraint::Reg | OperandConstraint::Stack | OperandConstraint::Reuse(_) => {
            Some(OperandConstraint::Any)
        }
        OperandConstraint::Any | OperandConstraint::NonAlloc(_) => None,
    }
}

/// The target of block `b`'s terminator when it is a jump (one target,
/// not `b` itself).
fn jump_target(d: &Draft, b: usize) -> Option<usize> {
    let t = d.blocks[b].insts.last()?;
    match (t.opcode, t.targets.as_slice()) {
        (Opcode::Branch, [(s, _)]) if *s != b => Some(*s),
        _ => None,
    }
}

/// Every edge into `b`: (block, instruction, target index).
fn edges_into(d: &Draft, b: usize) -> Vec<(usize, usize, usize)> {
    let mut v = Vec::new();
    for (p, blk) in d.blocks.iter().enumerate() {
        for (k, i) in blk.insts.iter().enumerate() {
            for (t, (to, _)) in i.targets.iter().enumerate() {
                if *to == b {
                    v.push((p, k, t));
                }
            }
        }
    }
    v
}

/// The block `b` can merge into: its only predecessor, when that one ends
/// in a jump to `b` that defines nothing.
fn merge_pred(d: &Draft, b: usize) -> Option<usize> {
    if b == 0 {
        return None;
    }
    let [(p, _, _)] = edges_into(d, b)[..] else {
        return None;
    };
    let term = d.blocks[p].insts.last()?;
    (p != b && jump_target(d, p) == Some(b) && term.defs().next().is_none()).then_some(p)
}

/// Appends block `b` to its predecessor `p`, whose jump goes; `b`'s
/// parameters become the jump's arguments, and `b` is left empty and
/// unreachable.
fn merge(d: &mut Draft, p: usize, b: usize) {
    let jump = d.blocks[p].insts.pop().expect("merge_pred saw a jump");
    let args = &jump.targets[0].1;
    let map: Vec<(VReg, VReg)> = d.blocks[b]
        .params
        .iter()
        .copied()
        .zip(args.iter().copied())
        .collect();
    let moved = std::mem::take(&mut d.blocks[b]);
    d.blocks[p].insts.extend(moved.insts);
    d.rename_uses(&map);
    // The emptied block needs a terminator to stay well formed until it is
    // pruned as unreachable.
    d.blocks[b].insts.push(DraftInst {
        opcode: Opcode::Ret,
        operands: Vec::new(),
        clobbers: Vec::new(),
        targets: Vec::new(),
    });
}

/// Routes every edge into `b` to `b`'s jump target, with `b`'s arguments
/// (its parameters replaced by what each edge passed); `b` is left
/// unreachable.
fn bypass(d: &mut Draft, b: usize) {
    let Some(s) = jump_target(d, b) else { return };
    let params = d.blocks[b].params.clone();
    let out_args = d.blocks[b].insts.last().expect("a jump").targets[0]
        .1
        .clone();
    for (p, k, t) in edges_into(d, b) {
        let in_args = d.blocks[p].insts[k].targets[t].1.clone();
        let args: Vec<VReg> = out_args
            .iter()
            .map(|a| match params.iter().position(|x| x == a) {
                Some(q) => in_args[q],
                None => *a,
            })
            .collect();
        d.blocks[p].insts[k].targets[t] = (s, args);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allocator::ir::text::{parse, print};

    fn machine() -> String {
        allocator::fixtures::machine([
            "p0i-p3i nonpreferred p4i scratch p5i fixed_stack p32i",
            "p0f",
            "p0v",
        ])
    }

    /// The draft of the unit case `name`.
    fn draft_of(name: &str) -> Draft {
        Draft::from_case(&allocator::fixtures::unit_case(name))
    }

    /// The draft of the blocks `body` on [`machine`], not validated: the
    /// reducer also meets cases the validator refuses.
    fn draft(body: &str) -> Draft {
        let src = format!("{}function\n{body}end\n", machine());
        Draft::from_case(&parse(src.as_bytes()).unwrap().0)
    }

    /// The function part of `d`, renumbered.
    fn text(mut d: Draft) -> String {
        d.renumber();
        let s = print(&d.to_case());
        s[s.find("function\n").unwrap() + 9..s.len() - 4].to_string()
    }

    fn apply_all(p: Pass, d: &Draft) -> String {
        text(p.apply(d, 0..p.count(d)).unwrap())
    }

    #[test]
    fn merge_joins_a_jump_to_its_only_successor() {
        let d = draft_of("reduce/merge_joins_a_jump_to_its_only_successor");
        assert_eq!(Pass::Merge.count(&d), 1);
        assert_eq!(
            apply_all(Pass::Merge, &d),
            "  block0:\n    inst0: op def:v0i:reg\n    inst1: ret use:v0i:reg\n"
        );
    }

    #[test]
    fn bypass_routes_edges_past_a_jump_block() {
        let d = draft_of("reduce/bypass_routes_edges_past_a_jump_block");
        // block1 and block2 end in jumps; block3 does not; block0 is the entry.
        assert_eq!(Pass::Bypass.count(&d), 2);
        let t = text(Pass::Bypass.apply(&d, 0..1).unwrap());
        assert!(t.contains("inst1: branch -> block2(v0i), block1()"), "{t}");
        // Bypassing both makes block0 target block3 twice: a critical edge
        // the validator will refuse, but the edit itself is well formed.
        let t = apply_all(Pass::Bypass, &d);
        assert!(t.contains("-> block1(v0i), block1(v0i)"), "{t}");
    }

    #[test]
    fn entry_shrinks_a_loop_away_from_the_entry_to_the_loop_alone() {
        let d = draft_of("reduce/entry_shrinks_a_loop_away_from_the_entry_to_the_loop_alone");
        assert_eq!(Pass::Entry.count(&d), 1);
        // The parameter goes with its arguments; its use, with nothing
        // left to stand in for it, goes too.
        assert_eq!(
            apply_all(Pass::Entry, &d),
            "  block0:\n    inst0: op def:v0i:reg\n    inst1: branch -> block0()\n"
        );
    }

    #[test]
    fn entry_is_offered_only_where_it_makes_the_case_smaller() {
        // block1 loops back to the entry and has no parameters: as the
        // entry it would keep every block. block2 reaches nothing.
        let d = draft_of("reduce/entry_is_offered_only_where_it_makes_the_case_smaller");
        assert_eq!(Pass::Entry.count(&d), 1);
        assert_eq!(Pass::Entry.name(), "entry");
        assert_eq!(
            text(Pass::Entry.apply(&d, 0..1).unwrap()),
            "  block0:\n    inst0: ret\n"
        );
    }

    #[test]
    fn entry_keeps_the_order_of_the_blocks_it_reaches() {
        let d = draft(
            "  block0:
    inst0: branch -> block1, block2
  block1:
    inst1: branch -> block3
  block2:
    inst2: op def:v0i:reg
    inst3: branch -> block3
  block3:
    inst4: branch -> block1, block4
  block4:
    inst5: ret
",
        );
        let t = text(Pass::Entry.apply(&d, 2..3).unwrap());
        assert_eq!(
            t,
            "  block0:\n    inst0: branch -> block1(), block2()\n  block1:\n    inst1: branch -> block0()\n  block2:\n    inst2: ret\n"
        );
    }

    #[test]
    fn weaken_steps_constraints_down_to_any() {
        let d = draft_of("reduce/weaken_steps_constraints_down_to_any");
        let once = Pass::Weaken.apply(&d, 0..Pass::Weaken.count(&d)).unwrap();
        assert_eq!(
            text(once.clone()),
            "  block0:\n    inst0: op def:v0i:reg def:v1i:stack def:v2i:reg\n    inst1: op def:v3i:any use:v0i:any use:v1i:any use:v2i:any\n    inst2: ret\n"
        );
        let twice = Pass::Weaken
            .apply(&once, 0..Pass::Weaken.count(&once))
            .unwrap();
        assert_eq!(Pass::Weaken.count(&twice), 0);
    }

    #[test]
    fn positions_and_machine_and_clobbers() {
        let d = draft_of("reduce/positions_and_machine_and_clobbers");
        assert_eq!(
            apply_all(Pass::Positions, &d),
            "  block0:\n    inst0: op def:v0i:any\n    inst1: op def:v1i:reg use:v0i:reg clobbers(p2i, p3i)\n    inst2: ret\n"
        );
        assert_eq!(Pass::Clobbers.count(&d), 2);
        assert!(!apply_all(Pass::Clobbers, &d).contains("clobbers"));
        // Five int registers, a scratch and a fixed stack slot, one each
        // for float and vector.
        assert_eq!(Pass::Machine.count(&d), 9);
        let m = Pass::Machine.apply(&d, 0..7).unwrap().machine;
        assert!(m.preferred[0].is_empty() && m.nonpreferred[0].is_empty());
        assert!(m.scratch[0].is_none() && m.fixed_stack[0].is_empty());
        assert_eq!(m.preferred[1].len(), 1);
    }

    #[test]
    fn every_pass_makes_generated_cases_strictly_smaller() {
        for seed in 0..30u8 {
            let bytes: Vec<u8> = (0..2048u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 ^ seed)
                .collect();
            let case = ssagen::generate_from_bytes(&bytes, &ssagen::Config::default());
            let d = Draft::from_case(&case);
            for p in Pass::ALL {
                let n = p.count(&d);
                for r in [0..n, 0..n / 2, n / 2..n, n.saturating_sub(1)..n] {
                    if let Some(mut c) = p.apply(&d, r.clone()) {
                        c.renumber();
                        assert!(
                            c.cost() < d.cost(),
                            "seed {seed}: {} on {r:?} did not shrink the case",
                            p.name()
                        );
                        // Every use names a value defined somewhere.
                        let f = c.to_function();
                        assert!(f.num_vregs() <= d.to_function().num_vregs());
                    }
                }
            }
        }
    }
}
