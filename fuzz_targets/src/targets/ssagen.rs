//! `ssagen`: generate, validate (must be valid and feasible), print, parse,
//! compare (must be equal).

use allocator::text::{parse, print};
use allocator::validate::validate;
use ssagen::{feasibility, generate_from_bytes, Config};

pub fn run(data: &[u8]) {
    let case = generate_from_bytes(data, &Config::default());
    let errs = validate(&case.func, &case.machine);
    let text = print(&case);
    if let Some(e) = errs.first() {
        panic!(
            "ssagen: the generated case is invalid ({} errors; first at {:?}: {})\n{text}",
            errs.len(),
            e.site,
            e.message
        );
    }
    if let Err(e) = feasibility::check(&case.func, &case.machine) {
        panic!("ssagen: the generated case is infeasible: {e}\n{text}");
    }
    match parse(text.as_bytes()) {
        Ok((again, _)) if again == case => {}
        Ok((again, _)) => panic!(
            "ssagen: parse(print(case)) differs from the case\n--- printed\n{text}--- reprinted\n{}",
            print(&again)
        ),
        Err(e) => panic!("ssagen: the printed case does not parse: {e}\n{text}"),
    }
}
