use super::*;
use crate::ir::function::FunctionBuilder;
use crate::ir::operand::Operand;

fn messages(f: &Function) -> Vec<String> {
    validate(f, &MachineEnv::simple(2))
        .into_iter()
        .map(|e| e.to_string())
        .collect()
}

/// Rules the text format cannot break (its parser refuses the input),
/// but a program building functions can.
#[test]
fn builder_only_terminator_rules() {
    // A branch without targets, and a ret with one.
    let mut b = FunctionBuilder::new();
    b.block(&[]);
    b.inst(Opcode::Branch, &[], &[], &[]);
    b.block(&[]);
    b.inst(Opcode::Ret, &[], &[], &[(Block(1), &[])]);
    let f = b.finish().unwrap();
    let m = messages(&f);
    assert!(
        m.contains(&"inst0 is a branch without targets".to_string()),
        "{m:?}"
    );
    assert!(
        m.contains(&"inst1 is a ret with targets (only a branch has targets)".to_string()),
        "{m:?}"
    );
    assert!(
        m.contains(&"block1 is not reachable from block0".to_string()),
        "{m:?}"
    );
}

/// A function read from a compiler keeps its vreg numbers: gaps are
/// no error there, and every other rule still holds.
#[test]
fn a_function_as_read_may_leave_vreg_indices_unused() {
    let any = crate::OperandConstraint::Any;
    let read = |uses: u32| {
        let (v, w) = (
            VReg::new(192, RegClass::Int),
            VReg::new(uses as usize, RegClass::Int),
        );
        let mut b = FunctionBuilder::new();
        b.block(&[]);
        b.inst(Opcode::Op, &[Operand::def(v, any)], &[], &[]);
        b.inst(Opcode::Ret, &[Operand::use_(w, any)], &[], &[]);
        b.finish().unwrap()
    };
    let env = MachineEnv::simple(2);
    let dense: Vec<_> = validate(&read(192), &env)
        .into_iter()
        .map(|e| e.message)
        .collect();
    assert_eq!(
        dense,
        ["vregs 0 to 191 are never defined (vreg indices must be dense from 0)"]
    );
    assert_eq!(validate_as_read(&read(192), &env), []);
    let undefined: Vec<_> = validate_as_read(&read(193), &env)
        .into_iter()
        .map(|e| e.message)
        .collect();
    assert_eq!(undefined, ["v193i is used but never defined"]);
}

#[test]
fn a_branch_in_the_middle_of_a_block_is_not_an_edge() {
    // inst0 branches mid-block to block1 and block2; only the
    // terminator's targets are edges, so the critical edge reported is
    // the terminator's (block1 has two predecessors), not inst0's.
    let mut b = FunctionBuilder::new();
    b.block(&[]);
    b.inst(
        Opcode::Branch,
        &[],
        &[],
        &[(Block(1), &[]), (Block(2), &[])],
    );
    b.inst(
        Opcode::Branch,
        &[],
        &[],
        &[(Block(1), &[]), (Block(2), &[])],
    );
    b.block(&[]);
    b.inst(Opcode::Ret, &[], &[], &[]);
    b.block(&[]);
    b.inst(Opcode::Branch, &[], &[], &[(Block(1), &[])]);
    let f = b.finish().unwrap();
    let errs = validate(&f, &MachineEnv::simple(2));
    let sites: Vec<Site> = errs.iter().map(|e| e.site).collect();
    assert_eq!(
        sites,
        vec![Site::Inst(crate::Inst(0)), Site::Target(crate::Inst(1), 0)],
        "{errs:?}"
    );
    assert_eq!(
        errs[0].message,
        "inst0 is a branch but not the last instruction of block0"
    );
    assert!(errs[1]
        .message
        .starts_with("the edge block0 -> block1 is critical"));
}

#[test]
fn errors_display_as_their_message() {
    let mut b = FunctionBuilder::new();
    b.block(&[]);
    let v = crate::VReg::new(0, crate::RegClass::Int);
    b.inst(
        Opcode::Ret,
        &[Operand::use_(v, crate::OperandConstraint::Any)],
        &[],
        &[],
    );
    let f = b.finish().unwrap();
    let errs = validate(&f, &MachineEnv::simple(1));
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].to_string(), "v0i is used but never defined");
    assert_eq!(errs[0].site, Site::Operand(crate::Inst(0), 0));
}

/// `validate_read_function_but_dominance` leaves reachability,
/// definedness and dominance to its caller and keeps every other rule, the
/// two a use breaks of its own included: its class, and a branch argument
/// the branch defines. Those are judged by a second walk over the uses
/// only when the first saw a vreg named with two classes or a branch that
/// defines a value.
#[test]
fn but_dominance_leaves_only_reachability_definedness_and_dominance_out() {
    let any = crate::OperandConstraint::Any;
    let (v, w) = (
        crate::VReg::new(0, RegClass::Int),
        crate::VReg::new(1, RegClass::Int),
    );
    // block0 -> block1; block2 unreachable. `use_first` reads v before
    // its definition; `own` reads w at the instruction that defines it;
    // `undefined` reads a vreg nothing defines; `float` reads v as a float.
    let build = |use_first: bool, own: bool, undefined: bool, float: bool| {
        let mut b = FunctionBuilder::new();
        b.block(&[]);
        if use_first {
            b.inst(Opcode::Op, &[Operand::use_(v, any)], &[], &[]);
        }
        b.inst(Opcode::Op, &[Operand::def(v, any)], &[], &[]);
        let mut ops = vec![Operand::def(w, any)];
        if own {
            ops.push(Operand::use_(w, any));
        }
        if undefined {
            ops.push(Operand::use_(crate::VReg::new(2, RegClass::Int), any));
        }
        b.inst(Opcode::Op, &ops, &[], &[]);
        b.inst(Opcode::Branch, &[], &[], &[(Block(1), &[])]);
        b.block(&[]);
        let read = if float {
            crate::VReg::new(0, RegClass::Float)
        } else {
            v
        };
        b.inst(Opcode::Ret, &[Operand::use_(read, any)], &[], &[]);
        b.block(&[]);
        b.inst(Opcode::Ret, &[], &[], &[]);
        b.finish().unwrap()
    };
    let env = MachineEnv::simple(2);
    let messages = |errs: Vec<ValidationError>| -> Vec<String> {
        errs.into_iter().map(|e| e.message).collect()
    };
    let none: [String; 0] = [];
    for (f, full) in [
        (
            build(true, false, false, false),
            &[
                "block2 is not reachable from block0",
                "the use of v0i in inst0 is not dominated by its definition (by inst1)",
            ][..],
        ),
        (
            build(false, true, false, false),
            &[
                "block2 is not reachable from block0",
                "v1i is used by inst1, which defines it",
            ],
        ),
        (
            build(false, false, true, false),
            &[
                "block2 is not reachable from block0",
                "v2i is used but never defined",
            ],
        ),
    ] {
        assert_eq!(messages(validate_as_read(&f, &env)), full);
        assert_eq!(
            messages(validate_read_function_but_dominance(&f, &env)),
            none
        );
    }
    // A use of another class than its definition's is judged here, even
    // beside an undefined use; the same function reading v as defined is
    // the one just outside.
    let class = "v0f names vreg 0 as float, but it is defined as v0i (int)";
    let f = build(false, false, true, true);
    assert_eq!(
        messages(validate_read_function_but_dominance(&f, &env)),
        [class]
    );
    let f = build(false, false, false, false);
    assert_eq!(
        messages(validate_read_function_but_dominance(&f, &env)),
        none
    );
    // The hand-written cases of the two rules, as the text format gives
    // them.
    for (name, message) in [
        ("validator_use_wrong_class", class),
        (
            "validator_branch_arg_own_def",
            "branch argument v1i is defined by the branch itself, but block3 has other predecessors (the edge's moves could run neither before the branch nor at the top of block3)",
        ),
    ] {
        let path = crate::fixtures::repo_root().join(format!("tests/cases/invalid/{name}.ra"));
        let (case, _) = crate::ir::text::parse(&std::fs::read(path).unwrap()).unwrap();
        assert_eq!(
            messages(validate_read_function_but_dominance(&case.func, &case.machine)),
            [message],
            "{name}"
        );
    }
}

/// A validator kept for one machine judges each function as a fresh one
/// does, whatever it judged before: functions of more and fewer vregs,
/// valid and not, one after another.
#[test]
fn a_kept_validator_judges_as_a_fresh_one() {
    let any = crate::OperandConstraint::Any;
    // `n` vregs defined in block0 and read by its ret; `twice` defines v0
    // a second time.
    let build = |n: usize, twice: bool| {
        let vs: Vec<_> = (0..n).map(|k| crate::VReg::new(k, RegClass::Int)).collect();
        let mut b = FunctionBuilder::new();
        b.block(&[]);
        for &v in &vs {
            b.inst(Opcode::Op, &[Operand::def(v, any)], &[], &[]);
        }
        if twice {
            b.inst(Opcode::Op, &[Operand::def(vs[0], any)], &[], &[]);
        }
        let uses: Vec<_> = vs.iter().map(|&v| Operand::use_(v, any)).collect();
        b.inst(Opcode::Ret, &uses, &[], &[]);
        b.finish().unwrap()
    };
    let env = MachineEnv::simple(2);
    let mut kept = Validator::new(&env);
    assert_eq!(kept.env(), &env);
    let mut invalid = 0;
    for (n, twice) in [(5, false), (5, true), (2, false), (7, true), (5, false)] {
        let f = build(n, twice);
        let fresh = validate_read_function_but_dominance(&f, &env);
        invalid += usize::from(!fresh.is_empty());
        assert_eq!(kept.read_function_but_dominance(&f), fresh, "{n} {twice}");
    }
    assert_eq!(invalid, 2);
}
