//! The text format of a case (machine, function, optional allocation), as
//! fixed by the project's format specification: a parser that reports
//! `LINE:COL: message` and never panics, and a canonical printer.
//! `parse(print(c)) == c` for every case.

mod lexer;
mod parser;
mod printer;
mod source;

pub use parser::{parse, parse_vreg};
pub use printer::{print, print_allocation, print_function, print_inst, print_machine};
pub use source::{Diagnostic, ParseError, Pos, SourceMap};

use crate::ir::case::Case;

/// Parses and validates a case file: the case and its source map, or every
/// error, located and sorted by position (a syntax error stops parsing, so it
/// is then the only one).
pub fn parse_and_validate(src: &[u8]) -> Result<(Case, SourceMap), Vec<Diagnostic>> {
    let (case, map) = parse(src).map_err(|e| {
        vec![Diagnostic {
            pos: e.pos,
            message: e.message,
        }]
    })?;
    let errs = crate::ir::validate::validate(&case.func, &case.machine);
    if errs.is_empty() {
        return Ok((case, map));
    }
    let mut diags: Vec<Diagnostic> = errs
        .into_iter()
        .map(|e| Diagnostic {
            pos: map.locate(e.site),
            message: e.message,
        })
        .collect();
    // Stable: errors at one position keep the validator's order.
    diags.sort_by_key(|d| d.pos);
    Err(diags)
}
