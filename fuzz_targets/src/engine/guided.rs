//! One input run the way a campaign runs it, in a job's thread or in a
//! worker process: the target's verdict, and with `--coverage` the edges it
//! reached of the code under test noted as features beside the target's own.

use crate::books::context::Context;
use crate::coverage::edges::Scope;
use crate::judging::failure::Failure;
use crate::targets::Target;

/// The crates whose edges count for `t` in a campaign guided by `ctx`'s
/// coverage (none without it).
pub fn scope_of(t: &Target, ctx: &Context) -> Scope {
    ctx.coverage.as_ref().map_or_else(Default::default, |e| {
        e.scope(&crate::registry::code_under_test(t.name))
    })
}

/// What `data` finds in `t`; with coverage on, the edges of `scope` it
/// reached become features (the caller collects them).
pub fn failure(t: &Target, data: &[u8], ctx: &Context, scope: Scope) -> Option<Failure> {
    let f = t.failure(data, ctx);
    if let Some(edges) = &ctx.coverage {
        edges.harvest(scope);
    }
    f
}
