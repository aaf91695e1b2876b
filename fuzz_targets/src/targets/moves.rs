//! `moves`: random parallel move sets over registers, fixed stack locations
//! and spill slots of several classes (long cycles, chains, fan-out,
//! self-moves, memory-to-memory), with or without a scratch register and
//! with 0, 1 or several free registers; the resolver's sequence must pass
//! the abstract interpreter.

use super::target::Input;
use crate::books::context::Context;
use crate::judging::failure::{Failure, Oracle, Signature};
use allocator::moves::{MoveContext, MoveResolver, ParallelMove};
use allocator::{Allocation, MachineEnv, PReg, PRegSet, RegClass, SpillSlot};
use arbitrary::Unstructured;
use checker::moves::check_resolution;
use ssagen::Choices;

pub fn check(input: &Input, _: &Context) -> Result<(), Failure> {
    let Input::Bytes(data) = *input else {
        panic!("moves runs on bytes");
    };
    let mut u = Unstructured::new(data);
    let mut c = Choices::new(&mut u);
    // The machine: per class 1..8 registers, maybe a scratch, maybe fixed
    // stack locations.
    let mut env = MachineEnv::default();
    for class in RegClass::ALL {
        let i = class.index();
        let n = c.int(1, 8);
        env.preferred[i] = (0..n).map(|hw| PReg::new(hw, class)).collect();
        if c.chance(1, 2) {
            env.scratch[i] = Some(PReg::new(20, class));
        }
        if c.chance(1, 3) {
            env.fixed_stack[i] = (48..48 + c.int(1, 2))
                .map(|hw| PReg::new(hw, class))
                .collect();
        }
    }
    let nslots = c.int(0, 6) as u32;
    let classes = c.int(1, 3);
    // Candidate locations per class: its registers and fixed stack
    // locations, and the spill slots (shared by all classes).
    let pool = |class: RegClass| -> Vec<Allocation> {
        let i = class.index();
        env.preferred[i]
            .iter()
            .chain(&env.fixed_stack[i])
            .map(|&r| Allocation::Reg(r))
            .chain((0..nslots).map(|s| Allocation::Stack(SpillSlot(s))))
            .collect()
    };
    let mut moves: Vec<ParallelMove> = Vec::new();
    let mut taken_dst: Vec<Allocation> = Vec::new();
    for &class in &RegClass::ALL[..classes] {
        let locs = pool(class);
        let shape = c.int(0, 4);
        let k = c.int(0, locs.len());
        // The first k locations in a drawn rotation.
        let start = c.int(0, locs.len() - 1);
        let chosen: Vec<Allocation> = (0..k).map(|j| locs[(start + j) % locs.len()]).collect();
        for (j, &dst) in chosen.iter().enumerate() {
            if taken_dst.contains(&dst) {
                continue;
            }
            let from = match shape {
                // One cycle through every chosen location.
                0 => chosen[(j + 1) % chosen.len()],
                // A chain ending where it started from outside.
                1 if j + 1 < chosen.len() => chosen[j + 1],
                // Fan-out from the first location.
                2 => chosen[0],
                // Anything, self-moves included.
                _ => locs[c.int(0, locs.len() - 1)],
            };
            taken_dst.push(dst);
            moves.push(ParallelMove {
                from,
                to: dst,
                class,
            });
        }
    }
    // Free registers: none, one or several, never a source.
    let mut free = PRegSet::empty();
    for _ in 0..c.int(0, 4) {
        let class = RegClass::from_index(c.int(0, 2));
        let r = PReg::new(c.int(0, 9), class);
        if !moves.iter().any(|m| m.from == Allocation::Reg(r)) && env.scratch[class] != Some(r) {
            free.insert(r);
            if !env.preferred[class].contains(&r) && !env.fixed_stack[class].contains(&r) {
                env.nonpreferred[class].push(r);
            }
        }
    }
    drop(c);
    let ctx = MoveContext {
        env: &env,
        free,
        extra_slots: [SpillSlot(100), SpillSlot(101)],
    };
    let mut out = Vec::new();
    let st = MoveResolver::new().resolve(&moves, &ctx, &mut out);
    {
        use crate::books::features::{note, note_bucket};
        note_bucket("moves", moves.len() as u64);
        note_bucket("cycles", st.cycles as u64);
        note(
            "scratch",
            (st.scratch_dedicated > 0) as u64
                | ((st.scratch_free > 0) as u64) << 1
                | ((st.scratch_stack > 0) as u64) << 2
                | ((st.scratch_borrowed > 0) as u64) << 3,
        );
        note_bucket("mem_to_mem", st.mem_to_mem as u64);
        note_bucket("mem_to_mem_borrowed", st.mem_to_mem_borrowed as u64);
        note_bucket("emitted", out.len() as u64);
    }
    check_resolution(&moves, &ctx, &out).map_err(|e| {
        Failure::new(
            Signature::new(None, Oracle::Resolver, ""),
            format!("the resolved sequence is wrong: {e}\nparallel set: {moves:?}\nmachine: {env:?}\nfree: {free:?}\nemitted: {out:?}"),
        )
    })
}
