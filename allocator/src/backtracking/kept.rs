//! How the phases take storage from a [`super::Ctx`]: each phase's
//! `Spare` holds vectors an earlier allocation filled, and a phase empties
//! what it takes, so that what it computes never depends on them.

/// The vector kept in `slot`, emptied, its storage kept (`slot` is left
/// empty until the phase gives the vector back).
pub fn reuse<T>(slot: &mut Vec<T>) -> Vec<T> {
    let mut v = std::mem::take(slot);
    v.clear();
    v
}
