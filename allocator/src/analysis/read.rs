//! Which values are read: by an operand, or by a branch passing them to a
//! block parameter that is itself read. A parameter outside this set is
//! dead: no operand reads it, nor any parameter it is passed on to. An
//! argument passed only to dead parameters need not reach the branch, so
//! an allocator that counts its branch read pays for a register, a reload
//! or an edge move that nothing uses (liveness takes the set as
//! [`crate::analysis::block_sets::BlockSets::liveness`]'s `param_read`).

use crate::analysis::bitset::dense;
use crate::counting_sort::counting_sorted;
use crate::ir::function::Function;

/// The read values of `f` as a dense row of `⌈vregs / 64⌉` words (at least
/// one). Linear in operands and branch arguments: the arguments passed to
/// each parameter are grouped once, and a parameter's arguments are marked
/// when it is first found read.
pub fn read_values(f: &Function) -> Vec<u64> {
    let nv = f.num_vregs();
    let mut read = vec![0u64; dense::words(nv).max(1)];
    let mut work: Vec<u32> = Vec::new();
    let mark = |read: &mut [u64], work: &mut Vec<u32>, v: usize| {
        if !dense::contains(read, v) {
            dense::insert(read, v);
            work.push(v as u32);
        }
    };
    for b in f.blocks() {
        for i in f.block_insts(b).iter() {
            for op in f.inst_operands(i).iter() {
                if op.is_use() && !op.is_nonalloc() {
                    mark(&mut read, &mut work, op.vreg().index());
                }
            }
        }
    }
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for b in f.blocks() {
        for (t, &s) in f.block_succs(b).iter().enumerate() {
            for (&a, &p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                pairs.push((p.index() as u32, a.index() as u32));
            }
        }
    }
    let (start, args) = counting_sorted(
        nv,
        pairs.len(),
        |k| Some(pairs[k].0 as usize),
        |k| pairs[k].1,
    );
    while let Some(p) = work.pop() {
        let p = p as usize;
        for &a in &args[start[p] as usize..start[p + 1] as usize] {
            mark(&mut read, &mut work, a as usize);
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_of(name: &str) -> Vec<usize> {
        let case = crate::fixtures::unit_case(name);
        dense::members(&read_values(&case.func)).collect()
    }

    #[test]
    fn a_parameter_read_only_by_the_branch_passing_back_to_it_is_dead() {
        assert_eq!(read_of("analysis_read/dead_cycle"), vec![0, 1]);
    }

    #[test]
    fn a_read_parameter_makes_what_is_passed_to_it_read_around_a_loop() {
        assert_eq!(
            read_of("analysis_read/cycle_read_at_exit"),
            vec![0, 1, 2, 3, 4]
        );
    }
}
