//! The program's half of the protocol: `rafuzz serve` answers cases on its
//! input with this repository's allocators, an example of such a program
//! and the way CI tests the client half end to end.

use allocator::ir::text::parse_and_validate;
use allocator::Allocator;
use std::io::Write;

/// `rafuzz serve --allocator NAME`: an allocator of this repository, `a`,
/// behind the outside-program protocol of [`crate::outside::external`], an
/// example of such a program. Reads cases from `input` (each ends with the
/// function's `end` line, the second `end` of the case) and answers each
/// with its allocation section, `unsupported: REASON` or `error: REASON`,
/// flushed. Status 0 at the end of the input, 3 when the input cannot be
/// read or the output written.
pub fn serve(a: &dyn Allocator, input: &mut dyn std::io::BufRead, out: &mut dyn Write) -> i32 {
    let mut case_text = String::new();
    let mut line = String::new();
    let mut ends = 0;
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => return 0,
            Ok(_) => {}
            Err(e) => {
                eprintln!("rafuzz serve: cannot read the input: {e}");
                return 3;
            }
        }
        case_text.push_str(&line);
        ends += usize::from(line.trim() == "end");
        if ends < 2 {
            continue;
        }
        let one_line = |s: String| s.replace('\n', " ");
        let reply = match parse_and_validate(case_text.as_bytes()) {
            Err(d) => format!(
                "error: {}\n",
                one_line(format!("the case is not valid: {}", d[0]))
            ),
            Ok((case, _)) => match a.run(&case.func, &case.machine) {
                Ok(o) => {
                    let mut s = String::new();
                    allocator::ir::text::print_allocation(&mut s, &case.func, &o);
                    s
                }
                // The protocol has no word for a suppressed known bug: the
                // client counts it apart as unsupported, with the reason.
                Err(allocator::AllocError::Unsupported(m)) => {
                    format!("unsupported: {}\n", one_line(m))
                }
                Err(allocator::AllocError::Suppressed(m)) => {
                    format!("unsupported: suppressed known bug: {}\n", one_line(m))
                }
                Err(e) => format!("error: {}\n", one_line(e.to_string())),
            },
        };
        if out
            .write_all(reply.as_bytes())
            .and_then(|_| out.flush())
            .is_err()
        {
            return 3;
        }
        case_text.clear();
        ends = 0;
    }
}
