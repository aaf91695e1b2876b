//! What every phase of the coloring allocator reads about the function:
//! live-in and live-out sets per block, block frequencies from loop depth,
//! and the backward walk that hands each instruction the vregs live just
//! after it.
//!
//! Model (the same as [`crate::analysis::liveness`], with one addition):
//! a branch's arguments stay live across the branch, since the edge moves
//! that read them run at the top of a successor; a block parameter is
//! defined at the top of its block.

use crate::analysis::bitset::dense;
use crate::analysis::block_sets::BlockSets;
use crate::analysis::read::read_values;
use crate::analysis::{cfg, loops};
use crate::ir::function::Function;
use crate::ir::index::{Block, Inst, VReg};

/// A dense set of vregs, one bit each.
pub type Row = Vec<u64>;

/// Liveness and frequencies of one function.
pub struct Facts {
    /// Words per row (`⌈vregs / 64⌉`).
    pub words: usize,
    live_out: BlockSets,
    live_in: BlockSets,
    /// Execution frequency estimate per block: `4^depth`, depth capped at 5
    /// (the loop-weighted cost measure's cap).
    pub freq: Vec<f64>,
    /// The vregs some operand reads, or that are passed to a parameter in
    /// this row. In SSA a value is live just after its def exactly when it
    /// is read; a block parameter outside this row is dead, its edge moves
    /// are not made, and liveness counts no argument passed to it.
    read: Row,
}

impl Facts {
    pub fn new(f: &Function) -> Facts {
        let words = dense::words(f.num_vregs()).max(1);
        let freq = loops::loop_depths(f)
            .into_iter()
            .map(|d| 4f64.powi(d.min(5) as i32))
            .collect();
        let read = read_values(f);
        // What is passed only to parameters nothing reads is not live on
        // the way there.
        let (live_in, live_out) =
            BlockSets::liveness(f, &cfg::postorder(f), |p| dense::contains(&read, p.index()));
        Facts {
            words,
            live_out,
            live_in,
            freq,
            read,
        }
    }

    /// Whether anything reads `v` (see the `read` row).
    pub fn is_read(&self, v: VReg) -> bool {
        dense::contains(&self.read, v.index())
    }

    /// The vregs live out of `b`, as the nonzero words of a row.
    pub fn live_out(&self, b: Block) -> &[(u32, u64)] {
        self.live_out.of(b.index())
    }

    /// The vregs live into `b`, as the nonzero words of a row.
    pub fn live_in(&self, b: Block) -> &[(u32, u64)] {
        self.live_in.of(b.index())
    }

    /// Whether `v` is live into `b`.
    pub fn is_live_in(&self, b: Block, v: usize) -> bool {
        self.live_in.contains(b.index(), v)
    }

    /// Makes `live` a row of [`Facts::words`] words holding what is live
    /// out of `b`.
    pub fn load_live_out(&self, b: Block, live: &mut Row) {
        live.clear();
        live.resize(self.words, 0);
        self.live_out.or_into(b.index(), live);
    }

    /// Calls `visit(i, live)` for each instruction of `b`, last to first,
    /// with `live` the vregs live just after `i` (its defs included when
    /// something reads them later); `live` ends as the block's live-in set
    /// plus its parameters that are read.
    pub fn walk(
        &self,
        f: &Function,
        b: Block,
        live: &mut Row,
        mut visit: impl FnMut(Inst, &[u64]),
    ) {
        self.load_live_out(b, live);
        for (t, &s) in f.block_succs(b).iter().enumerate() {
            for (&a, &p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                if self.is_read(p) {
                    dense::insert(live, a.index());
                }
            }
        }
        for i in f.block_insts(b).iter().rev() {
            visit(i, live);
            let ops = f.inst_operands(i);
            for op in ops.iter().filter(|o| o.is_def() && !o.is_nonalloc()) {
                dense::remove(live, op.vreg().index());
            }
            for op in ops.iter().filter(|o| o.is_use() && !o.is_nonalloc()) {
                dense::insert(live, op.vreg().index());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::block_sets::members;

    /// Frequencies stop growing at depth 5, as the loop-weighted cost
    /// measure's do: six nested loops, each a header, a block that loops or
    /// leaves, and a latch.
    #[test]
    fn frequency_is_four_to_the_depth_capped_at_five() {
        let d = 6;
        // Blocks: block0, then per level k (1..=d) header 3k-2, test 3k-1,
        // latch 3k.
        let header = |k: usize| 3 * k - 2;
        let mut src = crate::fixtures::machine(["p0i", "p0f", "p0v"])
            + "function
  block0:
    inst0: branch -> block1()
";
        let mut inst = 1;
        let mut line = |src: &mut String, b: usize, body: String| {
            *src += &format!("  block{b}:\n    inst{inst}: {body}\n");
            inst += 1;
        };
        for k in 1..=d {
            let inner = if k < d { header(k + 1) } else { header(k) + 1 };
            line(&mut src, header(k), format!("branch -> block{inner}()"));
            // The test block: round again, or leave to the outer level's
            // test block (or the function's end).
            let out = if k > 1 { header(k - 1) + 1 } else { 3 * d + 1 };
            line(
                &mut src,
                header(k) + 1,
                format!("branch -> block{}(), block{out}()", header(k) + 2),
            );
            line(
                &mut src,
                header(k) + 2,
                format!("branch -> block{}()", header(k)),
            );
        }
        line(&mut src, 3 * d + 1, "ret".into());
        src += "end\n";
        let (case, _) = crate::ir::text::parse_and_validate(src.as_bytes()).unwrap();
        let facts = Facts::new(&case.func);
        for k in 1..=d {
            let want = 4f64.powi(k.min(5) as i32);
            assert_eq!(facts.freq[header(k)], want, "level {k}");
        }
        assert_eq!(facts.freq[0], 1.0);
    }

    /// More vregs than one row word holds, over two blocks: rows are read
    /// per block and per word.
    #[test]
    fn rows_of_several_words_per_block() {
        let n = 70;
        let mut src = crate::fixtures::int_machine("p0i");
        src += "function\n  block0:\n";
        for v in 0..n {
            src += &format!("    inst{v}: op def:v{v}i:any\n");
        }
        src += &format!(
            "    inst{n}: branch -> block1()\n  block1:\n    inst{}: ret",
            n + 1
        );
        for v in 0..n {
            src += &format!(" use:v{v}i:any");
        }
        src += " nonalloc(p63i)\nend\n";
        let (case, _) = crate::ir::text::parse_and_validate(src.as_bytes()).unwrap();
        let f = &case.func;
        let facts = Facts::new(f);
        assert_eq!(facts.words, 2);
        let all: Vec<usize> = (0..n).collect();
        let b0 = Block::new(0);
        let b1 = Block::new(1);
        assert_eq!(members(facts.live_out(b0), None).collect::<Vec<_>>(), all);
        assert_eq!(members(facts.live_in(b1), None).collect::<Vec<_>>(), all);
        assert_eq!(members(facts.live_in(b0), None).count(), 0);
        assert_eq!(members(facts.live_out(b1), None).count(), 0);
        assert!(facts.is_live_in(b1, 69) && !facts.is_live_in(b0, 69));
        // Walking block0 backwards: after inst k, v0..=vk are live (each
        // is read in block1; the branch has them all), and the walk ends
        // with nothing live.
        let mut live = Vec::new();
        let mut seen = Vec::new();
        facts.walk(f, b0, &mut live, |i, live| {
            let k = i.index();
            assert_eq!(dense::members(live).count(), (k + 1).min(n), "{i}");
            if k < n {
                assert!(
                    dense::contains(live, k) && !dense::contains(live, k + 1),
                    "{i}"
                );
            }
            seen.push(i.index());
        });
        assert_eq!(dense::members(&live).count(), 0);
        assert_eq!(seen, (0..=n).rev().collect::<Vec<_>>());
        // Block1 reads them all (a nonalloc operand names no vreg).
        facts.walk(f, b1, &mut live, |_, live| {
            assert_eq!(dense::members(live).count(), 0);
        });
        assert_eq!(dense::members(&live).collect::<Vec<_>>(), all);
    }
}
