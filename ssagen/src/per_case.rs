//! Features a config may give only some cases (its `*_case_sixteenths`
//! knobs): real code has `reuse` defs, repeated reads, late uses, early
//! defs and branch operands per function, not per operand, so a profile calibrated on it draws
//! them once per case.

use crate::choices::Choices;
use crate::config::Config;

/// Which of the per-case features this case has.
#[derive(Clone, Copy)]
pub struct PerCase {
    pub reuse: bool,
    pub repeated_uses: bool,
    pub late_uses: bool,
    pub early_defs: bool,
    pub branch_operands: bool,
}

impl PerCase {
    /// Draws each feature the config gives only some cases; a byte is
    /// drawn only for those, so configs that give all cases every feature
    /// decode an input as before.
    pub fn draw(c: &mut Choices, cfg: &Config) -> PerCase {
        PerCase {
            reuse: c.sixteenths(cfg.reuse_case_sixteenths),
            repeated_uses: c.sixteenths(cfg.repeated_use_case_sixteenths),
            late_uses: c.sixteenths(cfg.late_use_case_sixteenths),
            early_defs: c.sixteenths(cfg.early_def_case_sixteenths),
            branch_operands: c.sixteenths(cfg.branch_operand_case_sixteenths),
        }
    }
}
