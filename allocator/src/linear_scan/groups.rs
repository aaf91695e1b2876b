//! Hint groups: the vregs joined by block parameters (a parameter and every
//! argument passed to it), kept as a union-find, and the register the group
//! got first. Members prefer that register, so an edge between them usually
//! needs no move.

use crate::ir::function::Function;
use crate::ir::index::PReg;

pub struct HintGroups {
    /// Union-find parent per vreg.
    parent: Vec<u32>,
    /// Per group root: the register its first allocated member got.
    reg: Vec<Option<PReg>>,
}

impl HintGroups {
    pub fn new(f: &Function) -> HintGroups {
        let nv = f.num_vregs();
        let mut g = HintGroups {
            parent: (0..nv as u32).collect(),
            reg: vec![None; nv],
        };
        for b in f.blocks() {
            for (t, &s) in f.block_succs(b).iter().enumerate() {
                for (&a, &p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                    let (x, y) = (g.find(a.index()), g.find(p.index()));
                    g.parent[x as usize] = y;
                }
            }
        }
        g
    }

    /// The root of `v`'s group (halving the path on the way): one number
    /// per group.
    pub fn find(&mut self, v: usize) -> u32 {
        let mut x = v as u32;
        while self.parent[x as usize] != x {
            let up = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = up;
            x = up;
        }
        x
    }

    /// The register `v`'s group prefers, if a member has one.
    pub fn reg(&mut self, v: usize) -> Option<PReg> {
        let g = self.find(v) as usize;
        self.reg[g]
    }

    /// Notes that `v` got `r`: the group's register, unless it has one.
    pub fn claim(&mut self, v: usize, r: PReg) {
        let g = self.find(v) as usize;
        self.reg[g].get_or_insert(r);
    }
}
