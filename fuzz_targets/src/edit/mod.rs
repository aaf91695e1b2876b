//! Case editing: an editable form of a case ([`draft`]) and the
//! structure-aware mutator built on it ([`mutate`]). The contract: an edit
//! yields a valid, feasible case or nothing, and a mutant keeps every
//! promise its seed's domain keeps (`ssagen::domain`). The engine mutates
//! seeds with it and the reducer shrinks cases with the same drafts.

pub mod draft;
pub mod mutate;
