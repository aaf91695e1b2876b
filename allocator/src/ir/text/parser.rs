//! Recursive-descent parser over the token stream. It stops at the first
//! syntax error; semantic rules are the validator's.

use super::lexer::{lex, Tok, Token};
use super::source::{ParseError, Pos, SourceMap};
use crate::ir::case::Case;
use crate::ir::function::{BuildError, FunctionBuilder, Opcode};
use crate::ir::index::{Block, Inst, InstPosition, PReg, ProgPoint, RegClass, SpillSlot, VReg};
use crate::ir::machine::{MachineEnv, SlotGeometry};
use crate::ir::operand::{Operand, OperandConstraint, OperandKind, OperandPos};
use crate::ir::output::{Allocation, Move, Output};
use crate::ir::validate::MachineList;

/// Largest spill slot index, block or instruction number the parser accepts.
const MAX_INDEX: u64 = (1 << 24) - 1;

/// Parses one case. Never panics, whatever the bytes.
pub fn parse(src: &[u8]) -> Result<(Case, SourceMap), ParseError> {
    let toks = lex(src)?;
    let mut p = Parser {
        toks,
        at: 0,
        map: SourceMap::default(),
    };
    let case = p.case()?;
    Ok((case, p.map))
}

struct Parser<'a> {
    toks: Vec<Token<'a>>,
    at: usize,
    map: SourceMap,
}

type Res<T> = Result<T, ParseError>;

/// Splits `word` as `<prefix><digits><suffix>`; returns the number
/// (saturated at `u64::MAX`) and the suffix.
fn split_indexed<'w>(word: &'w str, prefix: &str) -> Option<(u64, &'w str)> {
    let rest = word.strip_prefix(prefix)?;
    let ndig = rest.bytes().take_while(u8::is_ascii_digit).count();
    if ndig == 0 {
        return None;
    }
    let (digits, suffix) = rest.split_at(ndig);
    Some((digits.parse::<u64>().unwrap_or(u64::MAX), suffix))
}

/// The digits of an over-large number, as written (a saturated value would
/// print as `u64::MAX`).
fn digits_of<'w>(word: &'w str, prefix: &str) -> &'w str {
    let rest = &word[prefix.len()..];
    &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()]
}

/// `v<index><class>`.
/// A vreg as the format writes it (`v7i`); `None` for anything else.
pub fn parse_vreg(word: &str) -> Option<VReg> {
    vreg_of(word)
        .and_then(Result::ok)
        .filter(|v| v.to_string() == word)
}

fn vreg_of(word: &str) -> Option<Result<VReg, String>> {
    let (n, suffix) = split_indexed(word, "v")?;
    let class = class_of_suffix(suffix)?;
    if n > VReg::MAX_INDEX as u64 {
        return Some(Err(format!(
            "vreg index {} is too large (at most {})",
            digits_of(word, "v"),
            VReg::MAX_INDEX
        )));
    }
    Some(Ok(VReg::new(n as usize, class)))
}

/// `p<hw><class>`.
fn preg_of(word: &str) -> Option<Result<PReg, String>> {
    let (n, suffix) = split_indexed(word, "p")?;
    let class = class_of_suffix(suffix)?;
    if n > PReg::MAX_HW as u64 {
        return Some(Err(format!(
            "register number {} is too large (at most {})",
            digits_of(word, "p"),
            PReg::MAX_HW
        )));
    }
    Some(Ok(PReg::new(n as usize, class)))
}

fn class_of_suffix(s: &str) -> Option<RegClass> {
    let mut it = s.chars();
    let c = it.next()?;
    if it.next().is_some() {
        return None;
    }
    RegClass::from_suffix(c)
}

/// `<prefix><index>` with nothing after the digits.
fn index_of(word: &str, prefix: &str) -> Option<Result<u64, String>> {
    match split_indexed(word, prefix)? {
        (n, "") if n > MAX_INDEX => Some(Err(format!(
            "the number in `{word}` is too large (at most {MAX_INDEX})"
        ))),
        (n, "") => Some(Ok(n)),
        _ => None,
    }
}

/// `"1 operand"`, `"2 operands"`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Tok<'a> {
        self.toks[self.at].tok
    }

    fn pos(&self) -> Pos {
        self.toks[self.at].pos
    }

    fn bump(&mut self) -> Token<'a> {
        let t = self.toks[self.at];
        if t.tok != Tok::Eof {
            self.at += 1;
        }
        t
    }

    fn err<T>(&self, pos: Pos, message: impl Into<String>) -> Res<T> {
        Err(ParseError {
            pos,
            message: message.into(),
        })
    }

    fn expected<T>(&self, what: &str) -> Res<T> {
        self.err(
            self.pos(),
            format!("expected {what}, found {}", self.peek().describe()),
        )
    }

    fn is_word(&self, w: &str) -> bool {
        self.peek() == Tok::Word(w)
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_word(&mut self, w: &str) -> Res<Pos> {
        if self.is_word(w) {
            Ok(self.bump().pos)
        } else {
            self.expected(&format!("`{w}`"))
        }
    }

    fn eat(&mut self, t: Tok<'_>) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: Tok<'_>) -> Res<Pos> {
        if self.peek() == t {
            Ok(self.bump().pos)
        } else {
            self.expected(&t.describe())
        }
    }

    /// A word that `f` recognizes; `what` names it in the error otherwise.
    fn word_as<T>(
        &mut self,
        what: &str,
        f: impl Fn(&str) -> Option<Result<T, String>>,
    ) -> Res<(T, Pos)> {
        let pos = self.pos();
        if let Tok::Word(w) = self.peek() {
            match f(w) {
                Some(Ok(x)) => {
                    self.bump();
                    return Ok((x, pos));
                }
                Some(Err(msg)) => return self.err(pos, msg),
                None => {}
            }
        }
        self.expected(what)
    }

    fn vreg(&mut self) -> Res<(VReg, Pos)> {
        self.word_as("a vreg like `v3i`", vreg_of)
    }

    fn preg(&mut self) -> Res<(PReg, Pos)> {
        self.word_as("a physical register like `p3i`", preg_of)
    }

    fn number(&mut self) -> Res<(u64, Pos)> {
        self.word_as("a number", |w| {
            if !w.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            Some(
                w.parse::<u64>()
                    .ok()
                    .filter(|&n| n <= MAX_INDEX)
                    .ok_or_else(|| format!("the number `{w}` is too large (at most {MAX_INDEX})")),
            )
        })
    }

    fn case(&mut self) -> Res<Case> {
        let machine = self.machine()?;
        let func = self.function()?;
        let output = if self.is_word("allocation") {
            Some(self.allocation(&func)?)
        } else {
            None
        };
        if self.peek() != Tok::Eof {
            return self.expected("`allocation` or the end of the file");
        }
        Ok(Case {
            machine,
            func,
            output,
        })
    }

    // ---- machine ----

    fn machine(&mut self) -> Res<MachineEnv> {
        self.map.machine = self.expect_word("machine")?;
        let mut env = MachineEnv::default();
        let mut seen = [false; 3];
        let mut seen_names = false;
        loop {
            let pos = self.pos();
            let class = match self.peek() {
                Tok::Word("slot_names") => {
                    if std::mem::replace(&mut seen_names, true) {
                        return self.err(pos, "a second `slot_names` line");
                    }
                    self.bump();
                    env.slots.named_by_last = if self.eat_word("last") {
                        true
                    } else if self.eat_word("first") {
                        false
                    } else {
                        return self.expected("`first` or `last`");
                    };
                    continue;
                }
                Tok::Word("int") => RegClass::Int,
                Tok::Word("float") => RegClass::Float,
                Tok::Word("vector") => RegClass::Vector,
                Tok::Word("end") => {
                    if let Some(c) = (0..3).find(|&c| !seen[c]) {
                        return self.err(
                            pos,
                            format!(
                                "the machine has no `{}` line (all three classes are required)",
                                RegClass::from_index(c)
                            ),
                        );
                    }
                    self.bump();
                    return Ok(env);
                }
                _ => return self.expected("`int`, `float`, `vector`, `slot_names` or `end`"),
            };
            if seen[class.index()] {
                return self.err(pos, format!("a second `{class}` line"));
            }
            seen[class.index()] = true;
            self.bump();
            self.map.machine_class[class.index()] = pos;
            self.class_line(class, &mut env)?;
        }
    }

    fn class_line(&mut self, class: RegClass, env: &mut MachineEnv) -> Res<()> {
        let mut seen = [false; 4];
        let mut seen_size = false;
        loop {
            let pos = self.pos();
            let list = match self.peek() {
                Tok::Word("slot_size") => {
                    if std::mem::replace(&mut seen_size, true) {
                        return self.err(pos, "`slot_size` given twice");
                    }
                    self.bump();
                    let (n, at) = self.number()?;
                    let n = n as usize;
                    if !n.is_power_of_two() || n > SlotGeometry::MAX_SIZE {
                        return self.err(
                            at,
                            format!(
                                "slot_size {n}: a power of two from 1 to {}",
                                SlotGeometry::MAX_SIZE
                            ),
                        );
                    }
                    env.slots.set_size(class, n);
                    continue;
                }
                Tok::Word("preferred") => MachineList::Preferred,
                Tok::Word("nonpreferred") => MachineList::NonPreferred,
                Tok::Word("scratch") => MachineList::Scratch,
                Tok::Word("fixed_stack") => MachineList::FixedStack,
                _ => return Ok(()),
            };
            if seen[list as usize] {
                return self.err(pos, format!("`{}` given twice", list_keyword(list)));
            }
            seen[list as usize] = true;
            self.bump();
            let c = class.index();
            if list == MachineList::Scratch {
                if self.eat_word("none") {
                    continue;
                }
                let (r, p) = self.preg()?;
                env.scratch[c] = Some(r);
                self.map.machine_regs[c][list as usize].push(p);
                continue;
            }
            let mut regs = Vec::new();
            let mut poss = Vec::new();
            if !self.eat_word("none") {
                self.reg_list(&mut regs, &mut poss)?;
            }
            self.map.machine_regs[c][list as usize] = poss;
            match list {
                MachineList::Preferred => env.preferred[c] = regs,
                MachineList::NonPreferred => env.nonpreferred[c] = regs,
                _ => env.fixed_stack[c] = regs,
            }
        }
    }

    /// One or more registers or ranges `pA-pB`, separated by white space or
    /// commas.
    fn reg_list(&mut self, regs: &mut Vec<PReg>, poss: &mut Vec<Pos>) -> Res<()> {
        loop {
            let pos = self.pos();
            let Tok::Word(w) = self.peek() else {
                return self.expected("a physical register or a range like `p0i-p7i`");
            };
            if let Some((lo, hi)) = w.split_once('-') {
                let (Some(lo), Some(hi)) = (preg_of(lo), preg_of(hi)) else {
                    return self.expected("a physical register or a range like `p0i-p7i`");
                };
                let (lo, hi) = (
                    lo.or_else(|m| self.err(pos, m))?,
                    hi.or_else(|m| self.err(pos, m))?,
                );
                if lo.class() != hi.class() || lo.hw() > hi.hw() {
                    return self.err(
                        pos,
                        format!("`{w}` is not a range: its ends must be of one class, low to high"),
                    );
                }
                self.bump();
                for hw in lo.hw()..=hi.hw() {
                    regs.push(PReg::new(hw, lo.class()));
                    poss.push(pos);
                }
            } else {
                let (r, p) = self.preg()?;
                regs.push(r);
                poss.push(p);
            }
            let comma = self.eat(Tok::Comma);
            let more = matches!(self.peek(), Tok::Word(w) if w.starts_with('p'));
            if !more {
                if comma {
                    return self.expected("a physical register after `,`");
                }
                return Ok(());
            }
        }
    }

    // ---- function ----

    fn function(&mut self) -> Res<crate::ir::function::Function> {
        self.map.function = self.expect_word("function")?;
        let mut b = FunctionBuilder::new();
        let mut target_pos: Vec<(Inst, usize, Pos)> = Vec::new();
        while !self.is_word("end") {
            self.block(&mut b, &mut target_pos)?;
        }
        let end = self.bump().pos;
        if b.num_blocks() == 0 {
            return self.err(end, "the function has no blocks (block0 is required)");
        }
        match b.finish() {
            Ok(f) => Ok(f),
            Err(BuildError::NoSuchBlock {
                inst,
                target,
                block,
            }) => {
                let pos = target_pos
                    .iter()
                    .find(|t| t.0 == inst && t.1 == target)
                    .map_or(end, |t| t.2);
                self.err(pos, format!("{block} does not exist"))
            }
            Err(e) => self.err(end, e.to_string()),
        }
    }

    fn block(
        &mut self,
        b: &mut FunctionBuilder,
        target_pos: &mut Vec<(Inst, usize, Pos)>,
    ) -> Res<()> {
        let expect = b.num_blocks();
        let (n, pos) = self.word_as(&format!("`block{expect}` or `end`"), |w| {
            index_of(w, "block")
        })?;
        if n != expect as u64 {
            return self.err(
                pos,
                format!("expected block{expect} here (blocks are numbered densely, in order), found block{n}"),
            );
        }
        let mut params = Vec::new();
        let mut param_pos = Vec::new();
        if self.eat(Tok::LParen) {
            self.vreg_list(&mut params, &mut param_pos)?;
        }
        self.expect(Tok::Colon)?;
        self.map.blocks.push(pos);
        self.map.block_params.push(param_pos);
        b.block(&params);
        while let Tok::Word(w) = self.peek() {
            if !w.starts_with("inst") {
                break;
            }
            self.inst(b, target_pos)?;
        }
        Ok(())
    }

    /// Vregs separated by commas, up to and including `)`.
    fn vreg_list(&mut self, out: &mut Vec<VReg>, poss: &mut Vec<Pos>) -> Res<()> {
        if self.eat(Tok::RParen) {
            return Ok(());
        }
        loop {
            let (v, p) = self.vreg()?;
            out.push(v);
            poss.push(p);
            if self.eat(Tok::RParen) {
                return Ok(());
            }
            if !self.eat(Tok::Comma) {
                return self.expected("`,` or `)`");
            }
        }
    }

    fn inst(
        &mut self,
        b: &mut FunctionBuilder,
        target_pos: &mut Vec<(Inst, usize, Pos)>,
    ) -> Res<()> {
        let expect = self.map.insts.len();
        let (n, pos) = self.word_as("an instruction", |w| index_of(w, "inst"))?;
        if n != expect as u64 {
            return self.err(
                pos,
                format!(
                    "expected inst{expect} here (instructions are numbered densely across the function, in order), found inst{n}"
                ),
            );
        }
        self.expect(Tok::Colon)?;
        let opcode = match self.peek() {
            Tok::Word("op") => Opcode::Op,
            Tok::Word("branch") => Opcode::Branch,
            Tok::Word("ret") => Opcode::Ret,
            _ => return self.expected("an opcode (`op`, `branch` or `ret`)"),
        };
        let opcode_pos = self.bump().pos;
        let mut operands = Vec::new();
        let mut op_pos = Vec::new();
        loop {
            let p = self.pos();
            match self.peek() {
                Tok::Word("def") | Tok::Word("use") => operands.push(self.operand()?),
                Tok::Word("nonalloc") => {
                    self.bump();
                    self.expect(Tok::LParen)?;
                    let (r, _) = self.preg()?;
                    self.expect(Tok::RParen)?;
                    operands.push(Operand::nonalloc(r));
                }
                _ => break,
            }
            op_pos.push(p);
        }
        let mut clobbers = Vec::new();
        let mut clob_pos = Vec::new();
        if self.eat_word("clobbers") {
            self.expect(Tok::LParen)?;
            if !self.eat(Tok::RParen) {
                loop {
                    let (r, p) = self.preg()?;
                    clobbers.push(r);
                    clob_pos.push(p);
                    if self.eat(Tok::RParen) {
                        break;
                    }
                    if !self.eat(Tok::Comma) {
                        return self.expected("`,` or `)`");
                    }
                }
            }
        }
        let mut targets: Vec<(Block, Vec<VReg>)> = Vec::new();
        let mut tpos = Vec::new();
        let mut apos = Vec::new();
        if self.peek() == Tok::Arrow {
            if opcode != Opcode::Branch {
                return self.err(
                    self.pos(),
                    format!("only a `branch` has targets, not `{opcode}`"),
                );
            }
            self.bump();
            loop {
                let (bn, p) = self.word_as("a target block like `block1(v2i)`", |w| {
                    index_of(w, "block")
                })?;
                let mut args = Vec::new();
                let mut arg_pos = Vec::new();
                if self.eat(Tok::LParen) {
                    self.vreg_list(&mut args, &mut arg_pos)?;
                }
                target_pos.push((Inst::new(expect), targets.len(), p));
                targets.push((Block::new(bn as usize), args));
                tpos.push(p);
                apos.push(arg_pos);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        } else if opcode == Opcode::Branch {
            return self.err(
                opcode_pos,
                "a `branch` needs at least one target (`-> blockN(args)`)",
            );
        }
        let tref: Vec<(Block, &[VReg])> =
            targets.iter().map(|(bl, a)| (*bl, a.as_slice())).collect();
        b.inst(opcode, &operands, &clobbers, &tref);
        self.map.insts.push(pos);
        self.map.operands.push(op_pos);
        self.map.clobbers.push(clob_pos);
        self.map.targets.push(tpos);
        self.map.branch_args.push(apos);
        Ok(())
    }

    /// `def|use : vreg : constraint [: early|late]`.
    fn operand(&mut self) -> Res<Operand> {
        let kind = if self.eat_word("def") {
            OperandKind::Def
        } else {
            self.expect_word("use")?;
            OperandKind::Use
        };
        self.expect(Tok::Colon)?;
        let (vreg, _) = self.vreg()?;
        self.expect(Tok::Colon)?;
        let cpos = self.pos();
        let constraint =
            match self.peek() {
                Tok::Word("any") => {
                    self.bump();
                    OperandConstraint::Any
                }
                Tok::Word("reg") => {
                    self.bump();
                    OperandConstraint::Reg
                }
                Tok::Word("stack") => {
                    self.bump();
                    OperandConstraint::Stack
                }
                Tok::Word("fixed") => {
                    self.bump();
                    self.expect(Tok::LParen)?;
                    let (r, _) = self.preg()?;
                    self.expect(Tok::RParen)?;
                    OperandConstraint::FixedReg(r)
                }
                Tok::Word("reuse") => {
                    self.bump();
                    self.expect(Tok::LParen)?;
                    let (k, p) = self.number()?;
                    self.expect(Tok::RParen)?;
                    if k > Operand::MAX_REUSE as u64 {
                        return self.err(
                            p,
                            format!(
                                "reuse({k}): operand index too large (at most {})",
                                Operand::MAX_REUSE
                            ),
                        );
                    }
                    OperandConstraint::Reuse(k as usize)
                }
                Tok::Word("limit") => {
                    self.bump();
                    self.expect(Tok::LParen)?;
                    let (n, p) = self.number()?;
                    self.expect(Tok::RParen)?;
                    if !(n.is_power_of_two() && n <= 64) {
                        return self.err(
                            p,
                            format!("limit({n}): the bound must be a power of two from 1 to 64"),
                        );
                    }
                    OperandConstraint::Limit(n as u8)
                }
                _ => return self.expected(
                    "a constraint (`any`, `reg`, `stack`, `fixed(preg)`, `reuse(k)` or `limit(n)`)",
                ),
            };
        let mut pos = match kind {
            OperandKind::Use => OperandPos::Early,
            OperandKind::Def => OperandPos::Late,
        };
        if self.eat(Tok::Colon) {
            pos = if self.eat_word("early") {
                OperandPos::Early
            } else if self.eat_word("late") {
                OperandPos::Late
            } else {
                return self.expected("`early` or `late`");
            };
        }
        if kind == OperandKind::Use && matches!(constraint, OperandConstraint::Reuse(_)) {
            return self.err(cpos, "`reuse` is for defs only");
        }
        Ok(Operand::new(vreg, kind, pos, constraint))
    }

    // ---- allocation ----

    fn alloc_word(w: &str) -> Option<Result<Allocation, String>> {
        if w == "none" {
            return Some(Ok(Allocation::None));
        }
        if let Some(r) = preg_of(w) {
            return Some(r.map(Allocation::Reg));
        }
        index_of(w, "stack").map(|r| r.map(|n| Allocation::Stack(SpillSlot(n as u32))))
    }

    fn allocation(&mut self, func: &crate::ir::function::Function) -> Res<Output> {
        let section = self.expect_word("allocation")?;
        self.map.allocation = Some(section);
        self.expect_word("spillslots")?;
        let (num_spillslots, _) = self.number()?;
        let n = func.num_insts();
        let mut out = Output {
            allocs: vec![Allocation::None; func.num_operands()],
            edits: Vec::new(),
            num_spillslots: num_spillslots as usize,
        };
        self.map.alloc_lines = vec![None; n];
        self.map.allocs = vec![Vec::new(); n];
        let inst_ref = |w: &str| {
            index_of(w, "inst").map(|r| {
                r.and_then(|i| {
                    if (i as usize) < n {
                        Ok(Inst::new(i as usize))
                    } else {
                        Err(format!(
                            "inst{i} does not exist (the function has {n} instructions)"
                        ))
                    }
                })
            })
        };
        loop {
            let pos = self.pos();
            if self.eat_word("end") {
                break;
            }
            if self.eat_word("edit") {
                let at = if self.eat_word("before") {
                    InstPosition::Before
                } else if self.eat_word("after") {
                    InstPosition::After
                } else {
                    return self.expected("`before` or `after`");
                };
                let (inst, _) = self.word_as("an instruction", inst_ref)?;
                self.expect(Tok::Colon)?;
                let (from, _) = self.word_as("an allocation", Self::alloc_word)?;
                self.expect(Tok::Arrow)?;
                let (to, _) = self.word_as("an allocation", Self::alloc_word)?;
                let point = ProgPoint::new(inst, at);
                if let Some(&(last, _)) = out.edits.last() {
                    if point < last {
                        return self.err(
                            pos,
                            format!("edit {point} comes after an edit {last}: edits must be listed in program order"),
                        );
                    }
                }
                out.edits.push((point, Move { from, to }));
                self.map.edits.push(pos);
                continue;
            }
            let (inst, _) =
                self.word_as("an allocation line `instN:`, an `edit` or `end`", inst_ref)?;
            if self.map.alloc_lines[inst.index()].is_some() {
                return self.err(pos, format!("a second allocation line for {inst}"));
            }
            self.expect(Tok::Colon)?;
            self.map.alloc_lines[inst.index()] = Some(pos);
            let range = func.inst_operand_range(inst);
            let mut got = Vec::new();
            let mut poss = Vec::new();
            while let Tok::Word(w) = self.peek() {
                match Self::alloc_word(w) {
                    Some(Ok(a)) => {
                        poss.push(self.bump().pos);
                        got.push(a);
                    }
                    Some(Err(m)) => return self.err(self.pos(), m),
                    None => break,
                }
            }
            if got.len() != range.len() {
                return self.err(
                    pos,
                    format!(
                        "{inst} has {}, but its allocation line lists {}",
                        count(range.len(), "operand"),
                        count(got.len(), "allocation")
                    ),
                );
            }
            out.allocs[range].copy_from_slice(&got);
            self.map.allocs[inst.index()] = poss;
        }
        if let Some(i) = func.insts().find(|&i| {
            !func.inst_operands(i).is_empty() && self.map.alloc_lines[i.index()].is_none()
        }) {
            return self.err(section, format!("{i} has operands but no allocation line"));
        }
        Ok(out)
    }
}

/// The text-format keyword of a machine list.
fn list_keyword(l: MachineList) -> &'static str {
    match l {
        MachineList::Preferred => "preferred",
        MachineList::NonPreferred => "nonpreferred",
        MachineList::Scratch => "scratch",
        MachineList::FixedStack => "fixed_stack",
    }
}
