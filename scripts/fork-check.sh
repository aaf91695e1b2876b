#!/usr/bin/env bash
# Fuzzing a regalloc2 fork, tested end to end: a copy of the regalloc2 release rafuzz
# pins (from cargo's registry cache), with one planted bug, replaces the pinned crate
# through cargo's `--config 'patch.crates-io.regalloc2.path="..."'`, the command the
# README documents, without editing any file of this repository; regalloc2_ion_checker
# must find the bug within SECONDS (default 60), on each seed given (default: the
# campaign's own). Two bugs can be planted:
# - wrong-move (the default): ion's redundant-move elimination forgets that an
#   instruction's clobbers overwrite registers, so a move after a call-like
#   instruction is dropped as if the register still held its value;
# - false-refusal: ion gives up with TooManyLiveRegs ("making allocation impossible")
#   on any instruction with a late use and two defs, feasible or not: a false refusal
#   of a shape the known one (too-many-live-regs, a tight instruction) does not cover,
#   which the default campaign must report as refused-feasible, with its proof.
#   scripts/fork-check.sh [SECONDS] [wrong-move|false-refusal] [SEED...]
# Exit status 1 when the planted bug is not found.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
plant=${2:-wrong-move}
shift $(( $# < 2 ? $# : 2 ))
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=("")
version=$(sed -n 's/^regalloc2 = { version = "=\([0-9.]*\)".*/\1/p' fuzz_targets/Cargo.toml)
manifest=$(cargo metadata --format-version 1 | grep -o "\"[^\"]*/regalloc2-$version/Cargo.toml\"" | head -n 1 | tr -d '"')
[ -f "$manifest" ] || { echo "regalloc2 $version not found in cargo's registry cache" >&2; exit 2; }
work=$(mktemp -d)
cp Cargo.lock "$work/Cargo.lock.orig"
trap 'cp "$work/Cargo.lock.orig" Cargo.lock; rm -rf "$work"' EXIT
fork="$work/regalloc2"
cp -r "$(dirname "$manifest")" "$fork"
chmod -R u+w "$fork"
case "$plant" in
wrong-move)
    moves="$fork/src/ion/moves.rs"
    sed -i '/for reg in this.func.inst_clobbers(inst) {/{n;s/redundant_moves.clear_alloc(Allocation::reg(reg));/let _ = reg;/}' "$moves"
    grep -q 'let _ = reg;' "$moves" || { echo "could not plant the bug in $moves" >&2; exit 2; }
    echo "== the fork: regalloc2 $version with redundant-move elimination blind to clobbers ($fork)"
    expect='^FOUND in regalloc2_ion_checker'
    ;;
false-refusal)
    ion="$fork/src/ion/mod.rs"
    python3 - "$ion" <<'PY'
import sys
path = sys.argv[1]
s = open(path).read()
anchor = "    ctx.cfginfo.init(func, &mut ctx.cfginfo_ctx)?;\n"
if s.count(anchor) != 1:
    sys.exit("the plant does not fit this regalloc2")
planted = anchor + '''    for i in 0..func.num_insts() {
        let ops = func.inst_operands(Inst::new(i));
        let late_use = ops
            .iter()
            .any(|o| o.kind() == OperandKind::Use && o.pos() == OperandPos::Late);
        let defs = ops.iter().filter(|o| o.kind() == OperandKind::Def).count();
        if late_use && defs >= 2 {
            return Err(RegAllocError::TooManyLiveRegs);
        }
    }
'''
s = s.replace(anchor, planted)
s = s.replace("use crate::{", "use crate::{Inst, OperandKind, OperandPos, ", 1)
open(path, "w").write(s)
PY
    echo "== the fork: regalloc2 $version whose ion refuses every instruction with a late use and two defs ($fork)"
    expect='^FOUND in regalloc2_ion_checker: regalloc2_ion: refused-feasible'
    ;;
*) echo "unknown plant $plant (wrong-move, false-refusal)" >&2; exit 2 ;;
esac
# The documented command, with its own target directory so that the patched build
# never replaces target/release/rafuzz.
export CARGO_TARGET_DIR="$work/target"
cargo build --release -q -p fuzz_targets --bin rafuzz \
    --config "patch.crates-io.regalloc2.path=\"$fork\""
for seed in "${seeds[@]}"; do
    rm -rf "$work/corpus" "$work/artifacts"
    out=$("$CARGO_TARGET_DIR/release/rafuzz" fuzz --target regalloc2_ion_checker --time "$secs" \
        ${seed:+--seed "$seed"} --corpus "$work/corpus" --artifacts "$work/artifacts" \
        --reduce-time 20 2>/dev/null || true)
    echo "${seed:+seed $seed: }$(echo "$out" | sed -n '/^FOUND/,/^  reduced/p')"
    reduced=$(ls "$work"/artifacts/regalloc2_ion_checker/*.reduced.ra 2>/dev/null | head -n 1)
    [ -z "$reduced" ] || grep -v '^#' "$reduced"
    if ! echo "$out" | grep -q "$expect"; then
        echo "the planted bug in the regalloc2 fork was not found within $secs s${seed:+ on seed $seed}" >&2
        exit 1
    fi
done
echo "fork check passed"
