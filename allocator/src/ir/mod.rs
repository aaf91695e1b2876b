//! The IR every stage shares: typed indices, operands with their
//! constraints, functions, machine environments, allocation outputs, the
//! [`case::Case`] that bundles them, the text format and the validator.
//!
//! The data modules (`index`, `per_class`, `operand`, `function`,
//! `machine`, `output`, `case`) depend on nothing outside `ir`; the validator also asks
//! [`crate::analysis`] for reachability and dominators.

pub mod case;
pub mod function;
pub mod index;
pub mod machine;
pub mod operand;
pub mod output;
pub mod per_class;
pub mod text;
pub mod validate;
