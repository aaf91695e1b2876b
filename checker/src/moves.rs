//! An abstract interpreter for the move resolver: every location starts
//! holding its own symbol; after the emitted sequence every destination of
//! the parallel set must hold its source's symbol, and every other location
//! must be unchanged, except the locations the resolver was given to use
//! (the dedicated scratch registers, the registers offered as free, the two
//! extra spill slots). No emitted move may go from memory to memory.

use allocator::moves::{MoveContext, ParallelMove};
use allocator::{Allocation, Move, PReg, PRegSet, SpillSlot};

fn key(a: Allocation) -> Option<usize> {
    match a {
        Allocation::Reg(r) => Some(r.index()),
        Allocation::Stack(s) => Some(PReg::NUM_INDEX + s.index()),
        Allocation::None => None,
    }
}

fn loc(k: usize) -> Allocation {
    if k < PReg::NUM_INDEX {
        Allocation::Reg(PReg::from_index(k))
    } else {
        Allocation::Stack(SpillSlot::new(k - PReg::NUM_INDEX))
    }
}

/// Runs `out` from the initial state and checks it against `input`; the
/// error names the first offending move or location.
pub fn check_resolution(
    input: &[ParallelMove],
    ctx: &MoveContext,
    out: &[Move],
) -> Result<(), String> {
    let fixed_stack = ctx.env.fixed_stack_set();
    let is_mem = |a: Allocation| match a {
        Allocation::Stack(_) => true,
        Allocation::Reg(r) => fixed_stack.contains(r),
        Allocation::None => false,
    };
    let all = input
        .iter()
        .flat_map(|m| [m.from, m.to])
        .chain(out.iter().flat_map(|m| [m.from, m.to]))
        .chain(ctx.extra_slots.iter().map(|&s| Allocation::Stack(s)));
    let size = all
        .filter_map(key)
        .map(|k| k + 1)
        .fold(PReg::NUM_INDEX, usize::max);
    let mut state: Vec<usize> = (0..size).collect();
    for (n, m) in out.iter().enumerate() {
        let (Some(f), Some(t)) = (key(m.from), key(m.to)) else {
            return Err(format!("move {n} ({} -> {}) names `none`", m.from, m.to));
        };
        if is_mem(m.from) && is_mem(m.to) {
            return Err(format!(
                "move {n} ({} -> {}) goes from memory to memory",
                m.from, m.to
            ));
        }
        state[t] = state[f];
    }
    let mut exempt = ctx.free;
    for s in ctx.env.scratch.iter().flatten() {
        exempt.insert(*s);
    }
    let mut written = PRegSet::empty();
    let mut written_slots = Vec::new();
    for m in input {
        let (Some(f), Some(t)) = (key(m.from), key(m.to)) else {
            return Err(format!(
                "the parallel move {} -> {} names `none`",
                m.from, m.to
            ));
        };
        if state[t] != f {
            return Err(format!(
                "{} should hold the value of {} after the moves, but holds the value of {}",
                m.to,
                m.from,
                loc(state[t])
            ));
        }
        match m.to {
            Allocation::Reg(r) => written.insert(r),
            _ => written_slots.push(t),
        }
    }
    for (k, &sym) in state.iter().enumerate() {
        if sym == k {
            continue;
        }
        let a = loc(k);
        let allowed = match a {
            Allocation::Reg(r) => written.contains(r) || exempt.contains(r),
            Allocation::Stack(s) => written_slots.contains(&k) || ctx.extra_slots.contains(&s),
            Allocation::None => false,
        };
        if !allowed {
            return Err(format!(
                "{a} is not a destination, nor scratch, free or an extra slot, but now holds the value of {}",
                loc(sym)
            ));
        }
    }
    Ok(())
}
