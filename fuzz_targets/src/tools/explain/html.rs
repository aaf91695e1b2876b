//! `rafuzz explain --html OUT.html`: the rows of [`super::Model`] as one
//! self-contained page (inline style and script, nothing fetched). Rows are
//! program points, columns the registers and slots the allocation touches;
//! a cell is coloured by the value it holds, so a value's life reads as a
//! bar down its locations. An edit's destination is marked with an arrow
//! from its source, operands are outlined, and the cell of the first
//! problem is red with the message; hovering any cell names what it holds.
//! Clicking a vreg's name highlights that value everywhere.

use super::{describe, Model, RowKind};
use allocator::{Allocation, VReg};
use std::fmt::Write;

/// A column's sort key: registers by class and number, then slots.
fn column_key(a: Allocation) -> (u8, usize) {
    match a {
        Allocation::Reg(r) => (r.class().index() as u8, r.hw()),
        Allocation::Stack(s) => (3, s.index()),
        Allocation::None => (4, 0),
    }
}

/// Every location the page shows.
fn columns(m: &Model) -> Vec<Allocation> {
    let f = &m.case.func;
    let mut cols: Vec<Allocation> = m.out.allocs.clone();
    for (_, mv) in &m.out.edits {
        cols.push(mv.from);
        cols.push(mv.to);
    }
    for i in f.insts() {
        cols.extend(f.inst_clobbers(i).iter().map(|&r| Allocation::Reg(r)));
    }
    for locs in m.trace.entry.iter().flatten() {
        cols.extend(locs.iter().map(|(l, _)| *l));
    }
    cols.retain(|a| *a != Allocation::None);
    cols.sort_by_key(|&a| column_key(a));
    cols.dedup();
    cols
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A light colour per vreg, spread around the hue circle.
fn colour(v: VReg) -> String {
    let hue = (v.index() as u64 * 137 + v.class().index() as u64 * 53) % 360;
    format!("hsl({hue},70%,80%)")
}

/// The CSS class naming a vreg, for highlighting.
fn vclass(v: VReg) -> String {
    format!("v-{v}")
}

const STYLE: &str = "
body{font:13px monospace;margin:1em}
table{border-collapse:collapse}
td,th{border:1px solid #ddd;padding:1px 4px;white-space:nowrap;text-align:center}
th{position:sticky;top:0;background:#f4f4f4}
td.code{text-align:left}
tr.block td{background:#eef;font-weight:bold}
td.op{outline:2px solid #333;outline-offset:-2px}
td.mv{font-weight:bold}
td.err{background:#f33 !important;color:#fff;outline:3px solid #900}
td.cont{border-top-color:transparent}
tr.problem td{color:#900;text-align:left}
.hl{filter:brightness(0.75);outline:2px solid #06c}
span.v{cursor:pointer;text-decoration:underline dotted}
";

const SCRIPT: &str = "
document.querySelectorAll('span.v').forEach(function(s){
  s.addEventListener('click',function(){
    var c=s.dataset.v;
    document.querySelectorAll('.hl').forEach(function(e){e.classList.remove('hl')});
    document.querySelectorAll('td.'+c).forEach(function(e){e.classList.add('hl')});
  });
});
document.body.dataset.ready='1';
";

/// The page.
pub fn page(m: &Model, title: &str) -> String {
    let cols = columns(m);
    let col_of = |a: Allocation| cols.iter().position(|&c| c == a);
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(title)
    );
    let verdict = match (m.trace.errors.len(), m.from_interp) {
        (0, false) => "the checker and the interpreter accept this allocation".to_string(),
        (0, true) => "the checker accepts this allocation; the interpreter diverges".into(),
        (n, _) => format!("the checker reports {n} error(s); the first is in red"),
    };
    let _ = writeln!(s, "<h3>{}</h3><p>{}</p>", escape(title), escape(&verdict));
    s.push_str("<table><tr><th>point</th>");
    for c in &cols {
        let _ = write!(s, "<th>{c}</th>");
    }
    s.push_str("</tr>\n");
    // The state as the rows go by: per column, what it holds.
    let mut state: Vec<Vec<VReg>> = vec![Vec::new(); cols.len()];
    let mut prev: Vec<Vec<VReg>> = state.clone();
    for (r, row) in m.rows.iter().enumerate() {
        let mut marks: Vec<&str> = vec![""; cols.len()];
        let mut arrow: Vec<Option<Allocation>> = vec![None; cols.len()];
        match row.kind {
            RowKind::Block(b) => {
                for x in state.iter_mut() {
                    x.clear();
                }
                if let Some(locs) = &m.trace.entry[b.index()] {
                    for (l, h) in locs {
                        if let Some(k) = col_of(*l) {
                            state[k] = h.clone();
                        }
                    }
                }
                prev = state.clone();
            }
            RowKind::Edit(e) => {
                let mv = m.out.edits[e].1;
                if let Some(k) = col_of(mv.to) {
                    marks[k] = "mv";
                    arrow[k] = Some(mv.from);
                }
            }
            RowKind::Inst(i) => {
                for (_, _, a) in m.operands(i) {
                    if let Some(k) = col_of(a) {
                        marks[k] = "op";
                    }
                }
            }
        }
        for c in m.changes(r) {
            if let Some(k) = col_of(c.loc) {
                state[k] = c.holds.clone();
            }
        }
        let is_block = matches!(row.kind, RowKind::Block(_));
        let _ = write!(
            s,
            "<tr{}><td class=\"code\">{}</td>",
            if is_block { " class=\"block\"" } else { "" },
            linkify(&m.row_text(r))
        );
        for (k, c) in cols.iter().enumerate() {
            let held = &state[k];
            let problem = row
                .problems
                .iter()
                .find(|p| p.loc == Some(*c))
                .filter(|_| m.first_problem == Some(r));
            let mut classes: Vec<String> = held.iter().map(|&v| vclass(v)).collect();
            if !marks[k].is_empty() {
                classes.push(marks[k].into());
            }
            if problem.is_some() {
                classes.push("err".into());
            }
            if !held.is_empty() && *held == prev[k] && !is_block {
                classes.push("cont".into());
            }
            let mut tip = format!("{c} after this point: {}", describe(held));
            if let Some(p) = problem {
                tip = format!("{}\n{tip}", p.message);
            }
            let bg = held
                .first()
                .map(|&v| format!(" style=\"background:{}\"", colour(v)))
                .unwrap_or_default();
            let mut body = held
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(",");
            if let Some(from) = arrow[k] {
                body = format!("&larr;{from} {body}");
            }
            let _ = write!(
                s,
                "<td class=\"{}\" title=\"{}\"{bg}>{body}</td>",
                classes.join(" "),
                escape(&tip)
            );
        }
        s.push_str("</tr>\n");
        for p in &row.problems {
            let who = if m.from_interp {
                "interpreter"
            } else {
                "checker"
            };
            let _ = writeln!(
                s,
                "<tr class=\"problem\"><td colspan=\"{}\">{who}: {}</td></tr>",
                cols.len() + 1,
                escape(&p.message)
            );
        }
        prev = state.clone();
    }
    let _ = write!(s, "</table>\n<script>{SCRIPT}</script>\n</body></html>\n");
    s
}

/// The row's text with each vreg name clickable.
fn linkify(text: &str) -> String {
    let mut s = String::new();
    for (k, word) in text.split(' ').enumerate() {
        if k > 0 {
            s.push(' ');
        }
        let mut rest = word;
        // Operands read `use:v3f:reg`; block headers `block1(v5f):`.
        while let Some(at) = rest.find('v') {
            let tail = &rest[at + 1..];
            let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
            let class = tail.as_bytes().get(digits).copied();
            let is_vreg = digits > 0
                && matches!(class, Some(b'i' | b'f' | b'v'))
                && (at == 0 || !rest.as_bytes()[at - 1].is_ascii_alphanumeric());
            if is_vreg {
                let name = &rest[at..at + 2 + digits];
                s.push_str(&escape(&rest[..at]));
                let _ = write!(s, "<span class=\"v\" data-v=\"v-{name}\">{name}</span>");
                rest = &rest[at + 2 + digits..];
            } else {
                s.push_str(&escape(&rest[..at + 1]));
                rest = &rest[at + 1..];
            }
        }
        s.push_str(&escape(rest));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vreg_names_become_clickable_and_the_rest_is_escaped() {
        assert_eq!(
            linkify("inst2: op use:v10f:reg <x>"),
            "inst2: op use:<span class=\"v\" data-v=\"v-v10f\">v10f</span>:reg &lt;x&gt;"
        );
        assert_eq!(linkify("nonalloc(p3v) v1"), "nonalloc(p3v) v1");
        assert_eq!(
            linkify("block1(v5f):"),
            "block1(<span class=\"v\" data-v=\"v-v5f\">v5f</span>):"
        );
    }
}
