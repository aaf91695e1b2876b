//! The worker side of process isolation (`rafuzz worker`, started by the
//! engine, never by hand): answers [`Request`]s on stdin with [`Reply`]s
//! on stdout until stdin closes. A worker keeps the campaign counters of
//! the inputs it ran and the features it has seen per target, so that a
//! reply names only features new to it.

use super::guided;
use super::wire::{Reply, Request};
use crate::books::context::Context;
use crate::books::features;
use crate::targets::Target;
use std::collections::HashSet;
use std::io::{self, BufReader, BufWriter, Read, Write};

/// Ends this process when the engine that started it is gone (killed
/// with SIGKILL, it could not kill its workers): a worker stuck in an
/// endless loop would otherwise spin on as an orphan.
pub fn exit_with_parent() {
    #[cfg(unix)]
    {
        let parent = std::os::unix::process::parent_id();
        std::thread::spawn(move || loop {
            std::thread::sleep(std::time::Duration::from_millis(100));
            if std::os::unix::process::parent_id() != parent {
                std::process::exit(3);
            }
        });
    }
}

/// Serves requests for `targets` (request target `i` is `targets[i]`)
/// until `input` ends.
pub fn serve(
    targets: &[Target],
    ctx: &Context,
    input: impl Read,
    output: impl Write,
) -> io::Result<()> {
    let mut input = BufReader::new(input);
    let mut output = BufWriter::new(output);
    let mut seen: Vec<HashSet<u32>> = vec![HashSet::new(); targets.len()];
    let scopes: Vec<_> = targets.iter().map(|t| guided::scope_of(t, ctx)).collect();
    let mut feats: Vec<u32> = Vec::new();
    while let Some(request) = Request::read(&mut input)? {
        let reply = match request {
            Request::Counters => Reply::Counters(ctx.export()),
            Request::Bytes { target, data } => {
                let t = target_at(targets, target)?;
                feats.clear();
                let scope = scopes[target as usize];
                match features::collect(&mut feats, || guided::failure(t, &data, ctx, scope)) {
                    Some(f) => Reply::Fail(f),
                    None => {
                        let seen = &mut seen[target as usize];
                        let new_features =
                            feats.iter().copied().filter(|&f| seen.insert(f)).collect();
                        Reply::Pass { new_features }
                    }
                }
            }
            Request::Case { target, text } => {
                let t = target_at(targets, target)?;
                match allocator::ir::text::parse_and_validate(text.as_bytes()) {
                    Ok((case, _)) => match t.case_failure(&case, ctx) {
                        Some(Some(f)) => Reply::Fail(f),
                        _ => Reply::Pass {
                            new_features: Vec::new(),
                        },
                    },
                    Err(_) => Reply::Pass {
                        new_features: Vec::new(),
                    },
                }
            }
        };
        reply.write(&mut output)?;
    }
    Ok(())
}

fn target_at(targets: &[Target], i: u32) -> io::Result<&Target> {
    targets
        .get(i as usize)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no such target"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_answers_each_request_in_order() {
        let targets = [crate::targets::planted()];
        let mut requests = Vec::new();
        for data in [&b"RA"[..], b"RA", b"RAFZ!"] {
            Request::Bytes {
                target: 0,
                data: data.to_vec(),
            }
            .write(&mut requests)
            .unwrap();
        }
        Request::Counters.write(&mut requests).unwrap();
        let mut replies = Vec::new();
        serve(&targets, &Context::default(), &requests[..], &mut replies).unwrap();
        let mut r = &replies[..];
        let Reply::Pass { new_features } = Reply::read(&mut r).unwrap() else {
            panic!("RA passes");
        };
        assert_eq!(new_features.len(), 1);
        // The same input again reaches nothing new.
        assert_eq!(
            Reply::read(&mut r).unwrap(),
            Reply::Pass {
                new_features: vec![]
            }
        );
        let Reply::Fail(f) = Reply::read(&mut r).unwrap() else {
            panic!("the magic input fails");
        };
        assert!(f.message.contains("magic input"), "{f}");
        assert!(matches!(Reply::read(&mut r).unwrap(), Reply::Counters(_)));
        assert!(r.is_empty());
    }
}
