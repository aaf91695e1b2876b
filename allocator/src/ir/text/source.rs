//! Where things are in a case's source text, and what is reported there:
//! positions, parse errors, located diagnostics and the map from IR
//! entities back to the text they were read from.

use crate::ir::index::Inst;
use crate::ir::validate::Site;
use std::fmt;

/// A 1-based line and column (columns count bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A syntax error, or a structural one the IR cannot represent (numbering,
/// an allocation line that does not fit its instruction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub pos: Pos,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Where each entity of a parsed case was written, so that errors found on
/// the IR (by the validator, the checker) can be reported at a line.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub machine: Pos,
    pub machine_class: [Pos; 3],
    /// Per class, per [`MachineList`](crate::ir::validate::MachineList),
    /// one position per register (a range gives each of its registers the
    /// range's position).
    pub machine_regs: [[Vec<Pos>; 4]; 3],
    pub function: Pos,
    pub blocks: Vec<Pos>,
    pub block_params: Vec<Vec<Pos>>,
    pub insts: Vec<Pos>,
    pub operands: Vec<Vec<Pos>>,
    pub clobbers: Vec<Vec<Pos>>,
    /// Per instruction, per target: the position of the target's block name.
    pub targets: Vec<Vec<Pos>>,
    pub branch_args: Vec<Vec<Vec<Pos>>>,
    /// The `allocation` keyword, when there is a section.
    pub allocation: Option<Pos>,
    /// Per instruction: its allocation line, when it has one.
    pub alloc_lines: Vec<Option<Pos>>,
    /// Per instruction, per operand: the position of its allocation.
    pub allocs: Vec<Vec<Pos>>,
    /// One per edit, in order.
    pub edits: Vec<Pos>,
}

impl SourceMap {
    /// The position of `site`, falling back to the enclosing entity (and
    /// finally to 1:1) when the map has nothing finer.
    pub fn locate(&self, site: Site) -> Pos {
        let inst = |i: Inst| self.insts.get(i.index()).copied();
        let found = match site {
            Site::Machine => Some(self.machine),
            Site::MachineClass(c) => Some(self.machine_class[c.index()]),
            Site::MachineReg { class, list, index } => self.machine_regs[class.index()]
                [list as usize]
                .get(index)
                .copied()
                .or(Some(self.machine_class[class.index()])),
            Site::Function => Some(self.function),
            Site::Block(b) => self.blocks.get(b.index()).copied(),
            Site::BlockParam(b, k) => self
                .block_params
                .get(b.index())
                .and_then(|v| v.get(k))
                .copied()
                .or_else(|| self.blocks.get(b.index()).copied()),
            Site::Inst(i) => inst(i),
            Site::Operand(i, k) => self
                .operands
                .get(i.index())
                .and_then(|v| v.get(k))
                .copied()
                .or_else(|| inst(i)),
            Site::Clobber(i, k) => self
                .clobbers
                .get(i.index())
                .and_then(|v| v.get(k))
                .copied()
                .or_else(|| inst(i)),
            Site::Target(i, t) => self
                .targets
                .get(i.index())
                .and_then(|v| v.get(t))
                .copied()
                .or_else(|| inst(i)),
            Site::BranchArg(i, t, k) => self
                .branch_args
                .get(i.index())
                .and_then(|v| v.get(t))
                .and_then(|v| v.get(k))
                .copied()
                .or_else(|| inst(i)),
            Site::Alloc(i, k) => self
                .allocs
                .get(i.index())
                .and_then(|v| v.get(k))
                .copied()
                .or_else(|| self.alloc_lines.get(i.index()).copied().flatten())
                .or(self.allocation),
            Site::Edit(e) => self.edits.get(e).copied().or(self.allocation),
        };
        found.unwrap_or(Pos { line: 1, col: 1 })
    }
}

/// A located message: `LINE:COL: message`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    pub pos: Pos,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}
