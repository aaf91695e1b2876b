//! The messages between the engine and its worker processes, over the
//! worker's stdin and stdout. Every message is a tag byte and
//! length-prefixed fields (little-endian `u32` lengths), so a reader never
//! guesses where one ends.

use crate::judging::failure::{Failure, Oracle, Signature};
use std::io::{self, Read, Write};

/// What the engine asks of a worker.
#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    /// Run target number `target` (of the worker's list) on fuzzer bytes.
    Bytes { target: u32, data: Vec<u8> },
    /// Run target number `target` on a case, given as `.ra` text.
    Case { target: u32, text: String },
    /// Send the campaign counters kept so far ([`crate::books::context::Context::export`]).
    Counters,
}

/// A worker's answer to one [`Request`].
#[derive(Debug, PartialEq, Eq)]
pub enum Reply {
    /// The input passed; the features it reached that this worker had
    /// not seen before.
    Pass {
        new_features: Vec<u32>,
    },
    /// The input failed (`Request::Case` on a target that takes no cases
    /// answers `Pass`).
    Fail(Failure),
    Counters(String),
}

fn put_bytes(w: &mut impl Write, b: &[u8]) -> io::Result<()> {
    w.write_all(&(b.len() as u32).to_le_bytes())?;
    w.write_all(b)
}

fn get_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn get_u8(r: &mut impl Read) -> io::Result<u8> {
    let mut b = [0u8; 1];
    r.read_exact(&mut b)?;
    Ok(b[0])
}

fn get_bytes(r: &mut impl Read) -> io::Result<Vec<u8>> {
    let n = get_u32(r)? as usize;
    let mut v = vec![0u8; n];
    r.read_exact(&mut v)?;
    Ok(v)
}

fn get_string(r: &mut impl Read) -> io::Result<String> {
    String::from_utf8(get_bytes(r)?).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

impl Request {
    pub fn write(&self, w: &mut impl Write) -> io::Result<()> {
        match self {
            Request::Bytes { target, data } => {
                w.write_all(&[1])?;
                w.write_all(&target.to_le_bytes())?;
                put_bytes(w, data)?;
            }
            Request::Case { target, text } => {
                w.write_all(&[2])?;
                w.write_all(&target.to_le_bytes())?;
                put_bytes(w, text.as_bytes())?;
            }
            Request::Counters => w.write_all(&[3])?,
        }
        w.flush()
    }

    /// The next request; `Ok(None)` at the end of the stream.
    pub fn read(r: &mut impl Read) -> io::Result<Option<Request>> {
        let tag = match get_u8(r) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        };
        Ok(Some(match tag {
            1 => Request::Bytes {
                target: get_u32(r)?,
                data: get_bytes(r)?,
            },
            2 => Request::Case {
                target: get_u32(r)?,
                text: get_string(r)?,
            },
            3 => Request::Counters,
            _ => return Err(bad("unknown request")),
        }))
    }
}

impl Reply {
    pub fn write(&self, w: &mut impl Write) -> io::Result<()> {
        match self {
            Reply::Pass { new_features } => {
                w.write_all(&[0])?;
                w.write_all(&(new_features.len() as u32).to_le_bytes())?;
                for f in new_features {
                    w.write_all(&f.to_le_bytes())?;
                }
            }
            Reply::Fail(f) => {
                w.write_all(&[1])?;
                let sig = &f.signature;
                put_bytes(w, sig.allocator.unwrap_or("").as_bytes())?;
                let oracle = Oracle::ALL.iter().position(|&o| o == sig.oracle);
                w.write_all(&[oracle.expect("every oracle is in ALL") as u8])?;
                put_bytes(w, sig.detail.as_bytes())?;
                put_bytes(w, f.message.as_bytes())?;
                put_bytes(w, f.proof.as_deref().unwrap_or("").as_bytes())?;
            }
            Reply::Counters(text) => {
                w.write_all(&[2])?;
                put_bytes(w, text.as_bytes())?;
            }
        }
        w.flush()
    }

    pub fn read(r: &mut impl Read) -> io::Result<Reply> {
        Ok(match get_u8(r)? {
            0 => {
                let n = get_u32(r)? as usize;
                let mut v = Vec::with_capacity(n.min(1 << 16));
                for _ in 0..n {
                    v.push(get_u32(r)?);
                }
                Reply::Pass { new_features: v }
            }
            1 => {
                let allocator = get_string(r)?;
                let oracle = *Oracle::ALL
                    .get(get_u8(r)? as usize)
                    .ok_or_else(|| bad("unknown oracle"))?;
                let detail = get_string(r)?;
                let message = get_string(r)?;
                let proof = Some(get_string(r)?).filter(|p| !p.is_empty());
                // Workers are this program: they name the allocators it knows.
                let allocator = match allocator.as_str() {
                    "" => None,
                    name => Some(
                        crate::registry::known_name(name)
                            .ok_or_else(|| bad("a failure names an unknown allocator"))?,
                    ),
                };
                // The detail was normalized by the worker already.
                let signature = Signature {
                    allocator,
                    oracle,
                    detail,
                };
                Reply::Fail(Failure {
                    signature,
                    message,
                    proof,
                })
            }
            2 => Reply::Counters(get_string(r)?),
            _ => return Err(bad("unknown reply")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_back_as_written() {
        let requests = [
            Request::Bytes {
                target: 3,
                data: vec![0, 255, 7],
            },
            Request::Case {
                target: 0,
                text: "machine\n".into(),
            },
            Request::Counters,
        ];
        let mut buf = Vec::new();
        for q in &requests {
            q.write(&mut buf).unwrap();
        }
        let mut r = &buf[..];
        for q in &requests {
            assert_eq!(&Request::read(&mut r).unwrap().unwrap(), q);
        }
        assert_eq!(Request::read(&mut r).unwrap(), None);

        let replies = [
            Reply::Pass {
                new_features: vec![1, 0xdead_beef],
            },
            Reply::Fail(Failure::new(
                Signature::new(Some("linear_scan"), Oracle::Slow, "x 12"),
                "linear_scan is slow",
            )),
            Reply::Fail(Failure::panic("boom")),
            Reply::Fail(Failure {
                proof: Some("machine\nend\n".into()),
                ..Failure::new(
                    Signature::new(Some("linear_scan"), Oracle::RefusedFeasible, "why"),
                    "linear_scan refuses",
                )
            }),
            Reply::Counters("mutants 1 2 3 4\n".into()),
        ];
        let mut buf = Vec::new();
        for a in &replies {
            a.write(&mut buf).unwrap();
        }
        let mut r = &buf[..];
        for a in &replies {
            assert_eq!(&Reply::read(&mut r).unwrap(), a);
        }
        assert!(Reply::read(&mut r).is_err());
    }
}
