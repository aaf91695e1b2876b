//! Cross-examination of the two symbolic checkers: ours
//! ([`checker::check`]) and regalloc2's (`regalloc2::checker`), which
//! implement the same definition independently. On any allocation of any
//! allocator they must give the same verdict, except where ours checks
//! more (the [`OURS_ONLY`] kinds): then ours may reject what regalloc2's
//! accepts, never the reverse.

use super::adapt;
use crate::books::context::{bump, VerdictCounts};
use crate::judging::failure::{Failure, Oracle, Signature};
use allocator::ir::validate::Site;
use allocator::{Case, OperandConstraint, OperandPos, Output};
use checker::ErrorKind;
use regalloc2 as ra2;

/// Error kinds of ours that regalloc2's checker does not look for. An
/// allocation ours rejects only for these may pass regalloc2's.
///
/// - `interference`: two values live at one point of an instruction in one
///   location. regalloc2's checker follows values through locations but
///   does not compare an instruction's operands with each other, so an
///   early def sharing a register with a use it outlives passes.
/// - `clobbered-def`: a def placed in a register the instruction clobbers.
///   regalloc2's checker applies the def, then empties clobbered registers
///   only when no def is there.
/// - `constraint`, for `reg` and `limit` pointing at a register the machine
///   does not allocate (the scratch, a non-allocatable register): regalloc2
///   checks only that the location is a register.
/// - `not-in-machine`: a location outside the machine's registers.
/// - `none-allocation` on a move: regalloc2's checker applies a move
///   without looking at its locations (a `none` operand it does reject).
///
/// Two more places are not kinds of their own, both `wrong-value` (see
/// [`ours_only`]).
pub const OURS_ONLY: &[ErrorKind] = &[
    ErrorKind::Interference,
    ErrorKind::ClobberedDef,
    ErrorKind::Constraint,
    ErrorKind::NotInMachine,
    ErrorKind::NoneAllocation,
];

/// Error kinds that mean the output is malformed as data (counts, order,
/// placement, class). regalloc2's checker assumes well-formed output and
/// indexes out of bounds on it, so it is not run on such output.
pub const MALFORMED: &[ErrorKind] = &[
    ErrorKind::AllocCount,
    ErrorKind::WrongClass,
    ErrorKind::SpillSlotRange,
    ErrorKind::EditPlacement,
    ErrorKind::EditOrder,
];

/// Whether our error `e` on `case` is one regalloc2's checker is
/// documented not to find: an [`OURS_ONLY`] kind, or a `wrong-value`
/// - where the location holds no live value (`read_nothing`): regalloc2's checker treats a
///   move from a location that holds no value as no move at all (on
///   purpose: its move resolver saves and restores registers that may hold
///   nothing), so the destination keeps its old value; ours, like the
///   machine, overwrites it with garbage;
/// - of a late use in an instruction with a `reuse` def: regalloc2's
///   checker skips every late use of such an instruction.
pub fn ours_only(case: &Case, e: &checker::CheckError) -> bool {
    if OURS_ONLY.contains(&e.kind) {
        return true;
    }
    if e.kind != ErrorKind::WrongValue {
        return false;
    }
    if e.read_nothing {
        return true;
    }
    match e.site {
        Site::Alloc(i, k) | Site::Operand(i, k) => {
            let ops = case.func.inst_operands(i);
            ops.get(k)
                .is_some_and(|o| o.is_use() && o.pos() == OperandPos::Late)
                && ops
                    .iter()
                    .any(|o| matches!(o.constraint(), OperandConstraint::Reuse(_)))
        }
        _ => false,
    }
}

/// regalloc2's checker on `out`: `Ok` when it accepts, else its first
/// error (as Debug text) and the number of errors. A panic inside it is
/// returned as an error too.
pub fn theirs(case: &Case, out: &Output) -> Result<(), (String, usize)> {
    let adapted = adapt::Adapted::new(&case.func, &case.machine.slots);
    let env = adapt::machine(&case.machine);
    let ra2_out = adapt::output(&case.func, out);
    let r = crate::judging::panics::catch(|| {
        let mut c = ra2::checker::Checker::new(&adapted, &env);
        c.prepare(&ra2_out);
        c.run().map_err(|e| format!("{e:?}"))
    });
    match r {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => {
            let n = e.matches("inst:").count().max(1);
            Err((e, n))
        }
        Err(panic) => Err((format!("panic: {panic}"), 1)),
    }
}

/// The name of the first error in regalloc2's Debug text of its errors.
fn first_kind(text: &str) -> &str {
    let t = text
        .trim_start_matches("CheckerErrors { errors: [")
        .trim_start();
    let end = t
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(t.len());
    &t[..end]
}

/// Both checkers on `out`, an allocation of `case` by `name`: a failure
/// when their verdicts disagree outside the documented places.
pub fn cross_check(
    name: &'static str,
    case: &Case,
    out: &Output,
    counts: &VerdictCounts,
) -> Result<(), Failure> {
    let ours = checker::check(&case.func, &case.machine, out);
    if ours.iter().any(|e| MALFORMED.contains(&e.kind)) {
        bump(&counts.not_run, 1);
        return Ok(());
    }
    compare(name, case, out, &ours, theirs(case, out), counts)
}

/// Whether regalloc2's rejection of `out` is its checker's dependence on
/// block numbering (docs/regalloc2.md, "Block numbering"): the function
/// has a block with successors none of whose predecessors comes before it
/// (regalloc2's checker, visiting blocks in index order, meets it before
/// anything flows into it and treats it as a second entry), and the same
/// allocation with the blocks renumbered in reverse postorder, where every
/// block has an earlier predecessor, is accepted. Any other rejection, and
/// any rejection that survives the renumbering, is a finding.
pub fn order_false_alarm(case: &Case, out: &Output) -> bool {
    use allocator::analysis::numbering;
    if numbering::block_before_its_preds(&case.func).is_none() {
        return false;
    }
    let allocated = Case {
        machine: case.machine.clone(),
        func: case.func.clone(),
        output: Some(out.clone()),
    };
    let rpo = numbering::renumbered(&allocated, &numbering::rpo_order(&case.func));
    debug_assert!(numbering::block_before_its_preds(&rpo.func).is_none());
    theirs(&rpo, rpo.output.as_ref().expect("carried along")).is_ok()
}

/// The verdicts of both checkers compared: ours (its errors, first first)
/// and regalloc2's (as [`theirs`] returns it).
fn compare(
    name: &'static str,
    case: &Case,
    out: &Output,
    ours: &[checker::CheckError],
    theirs: Result<(), (String, usize)>,
    counts: &VerdictCounts,
) -> Result<(), Failure> {
    match (ours.first(), theirs) {
        (None, Ok(())) => {
            bump(&counts.both_accept, 1);
            Ok(())
        }
        (Some(_), Err(_)) => {
            bump(&counts.both_reject, 1);
            Ok(())
        }
        (None, Err(_)) if order_false_alarm(case, out) => {
            bump(&counts.order_false_alarm, 1);
            Ok(())
        }
        (None, Err((e, n))) => Err(Failure::new(
            Signature::new(
                Some(name),
                Oracle::CrossCheck,
                &format!("theirs rejects: {}", first_kind(&e)),
            ),
            format!(
                "regalloc2's checker rejects {name}'s allocation, ours accepts it ({n} errors): {e}"
            ),
        )),
        (Some(first), Ok(())) => {
            // After an interference or a clobbered def the two dataflows
            // part ways (regalloc2 applies an instruction's defs in operand
            // order, early or late), so later wrong values are not compared.
            let diverged = ours
                .iter()
                .any(|e| matches!(e.kind, ErrorKind::Interference | ErrorKind::ClobberedDef));
            match ours.iter().find(|e| !diverged && !ours_only(case, e)) {
                None => {
                    bump(&counts.ours_stricter, 1);
                    Ok(())
                }
                Some(e) => Err(Failure::new(
                    Signature::new(
                        Some(name),
                        Oracle::CrossCheck,
                        &format!("ours rejects: {}", e.kind.name()),
                    ),
                    format!(
                        "our checker rejects {name}'s allocation, regalloc2's accepts it: {} [{}] (first error: {})",
                        e.message,
                        e.kind.name(),
                        first.message
                    ),
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allocator::ir::text::parse_and_validate;
    use checker::CheckError;

    /// inst0 defines v0; inst1 reads v0 early and late and defines v1
    /// reusing its first use; inst2 reads v0 late with no reuse def.
    fn case() -> Case {
        let src = format!(
            "{}function
  block0:
    inst0: op def:v0i:reg
    inst1: op def:v1i:reuse(1) use:v0i:reg use:v0i:reg:late
    inst2: op use:v0i:reg:late use:v1i:reg
    inst3: ret
end
",
            allocator::fixtures::machine(["p0i-p3i", "p0f", "p0v"])
        );
        parse_and_validate(src.as_bytes()).unwrap().0
    }

    fn err(kind: ErrorKind, site: Site, message: &str) -> CheckError {
        CheckError {
            kind,
            site,
            message: message.into(),
            read_nothing: false,
        }
    }

    fn wrong_value_at(i: usize, k: usize) -> CheckError {
        let site = Site::Operand(allocator::Inst::new(i), k);
        err(ErrorKind::WrongValue, site, "reads v7i, not v0i")
    }

    #[test]
    fn ours_only_covers_exactly_the_documented_places() {
        let c = case();
        for &kind in OURS_ONLY {
            assert!(ours_only(&c, &err(kind, Site::Function, "x")), "{kind:?}");
        }
        for kind in [ErrorKind::WrongValue, ErrorKind::StackToStack] {
            assert!(!ours_only(&c, &err(kind, Site::Function, "x")), "{kind:?}");
        }
        // A read of a location that holds nothing: exempt by the checker's
        // own flag; the same words without it are not.
        let words = err(
            ErrorKind::WrongValue,
            Site::Function,
            "p1i holds no live value",
        );
        assert!(!ours_only(&c, &words));
        let empty = CheckError {
            read_nothing: true,
            ..words
        };
        assert!(ours_only(&c, &empty));
        // Late use in an instruction with a reuse def: exempt.
        assert!(ours_only(&c, &wrong_value_at(1, 2)));
        let alloc_site = Site::Alloc(allocator::Inst::new(1), 2);
        assert!(ours_only(&c, &err(ErrorKind::WrongValue, alloc_site, "x")));
        // Its early use, a late use without a reuse def, a def, an operand
        // index out of range: not exempt.
        assert!(!ours_only(&c, &wrong_value_at(1, 1)));
        assert!(!ours_only(&c, &wrong_value_at(2, 0)));
        assert!(!ours_only(&c, &wrong_value_at(1, 0)));
        assert!(!ours_only(&c, &wrong_value_at(1, 9)));
    }

    #[test]
    fn first_kind_names_the_first_error() {
        let text = "CheckerErrors { errors: [ConflictedValueInStackmap { inst: Inst(3) }, \
                    MissingAllocation { inst: Inst(4) }] }";
        assert_eq!(first_kind(text), "ConflictedValueInStackmap");
        assert_eq!(
            first_kind("UnknownValueInAllocation"),
            "UnknownValueInAllocation"
        );
        assert_eq!(first_kind("Some_kind(x)"), "Some_kind");
    }

    #[test]
    fn disagreements_are_findings_outside_the_documented_places() {
        let c = case();
        let o = Output::default();
        let theirs_err = || {
            Err((
                "CheckerErrors { errors: [Foo { inst: Inst(1) }] }".into(),
                1,
            ))
        };
        let counts = VerdictCounts::default();
        compare("x", &c, &o, &[], Ok(()), &counts).unwrap();
        compare("x", &c, &o, &[wrong_value_at(2, 0)], theirs_err(), &counts).unwrap();
        assert_eq!(
            counts.report(),
            "both_accept=1 both_reject=1 only_ours_rejects=0 malformed_not_cross_checked=0 \
             theirs_order_false_alarm=0"
        );
        let f = compare("x", &c, &o, &[], theirs_err(), &VerdictCounts::default()).unwrap_err();
        assert!(
            f.signature.to_string().contains("theirs rejects: Foo"),
            "{f}"
        );
        let f = compare(
            "x",
            &c,
            &o,
            &[wrong_value_at(2, 0)],
            Ok(()),
            &VerdictCounts::default(),
        )
        .unwrap_err();
        assert!(
            f.signature
                .to_string()
                .contains("ours rejects: wrong-value"),
            "{f}"
        );
        // Only documented kinds: fine.
        let stricter = [
            err(ErrorKind::Constraint, Site::Function, "x"),
            wrong_value_at(1, 2),
        ];
        compare("x", &c, &o, &stricter, Ok(()), &VerdictCounts::default()).unwrap();
        // After an interference, later wrong values are not compared.
        let diverged = [
            err(ErrorKind::Interference, Site::Function, "x"),
            wrong_value_at(2, 0),
        ];
        compare("x", &c, &o, &diverged, Ok(()), &VerdictCounts::default()).unwrap();
        // But a wrong value alone is compared, whichever error comes first.
        let mixed = [
            err(ErrorKind::Constraint, Site::Function, "x"),
            wrong_value_at(2, 0),
        ];
        compare("x", &c, &o, &mixed, Ok(()), &VerdictCounts::default()).unwrap_err();
    }

    #[test]
    fn stats_counts_each_verdict() {
        let s = VerdictCounts::default().report();
        for key in [
            "both_accept=",
            "both_reject=",
            "only_ours_rejects=",
            "malformed_not_cross_checked=",
            "theirs_order_false_alarm=",
        ] {
            assert!(s.contains(key), "{s}");
        }
    }

    #[test]
    fn malformed_output_is_not_given_to_regalloc2() {
        let c = case();
        let out = Output::default();
        let counts = VerdictCounts::default();
        cross_check("x", &c, &out, &counts).unwrap();
        assert_eq!(counts.not_run.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}
