//! Malformed input gets an error, never a panic: truncations, random bytes,
//! token soup and huge numbers.

mod common;

use allocator::ir::text::parse_and_validate;
use common::case_files;
use rand::{Rng, SeedableRng};

#[test]
fn every_truncation_of_every_valid_case_is_handled() {
    for path in case_files("valid") {
        let src = std::fs::read(&path).unwrap();
        for cut in 0..src.len() {
            let _ = parse_and_validate(&src[..cut]);
        }
    }
}

#[test]
fn random_bytes_are_errors() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    for _ in 0..2000 {
        let len = rng.gen_range(0..200);
        let bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        assert!(parse_and_validate(&bytes).is_err());
    }
}

/// Random edits of valid cases at the token level: the parser and validator
/// must answer (accept or reject) without panicking.
#[test]
fn token_soup_never_panics() {
    const VOCAB: &[&str] = &[
        "machine",
        "function",
        "allocation",
        "end",
        "int",
        "float",
        "vector",
        "preferred",
        "nonpreferred",
        "scratch",
        "fixed_stack",
        "none",
        "block0",
        "block1",
        "block7",
        "inst0",
        "inst3",
        "op",
        "branch",
        "ret",
        "def",
        "use",
        "any",
        "reg",
        "stack",
        "fixed",
        "reuse",
        "limit",
        "nonalloc",
        "clobbers",
        "early",
        "late",
        "edit",
        "before",
        "after",
        "spillslots",
        "v0i",
        "v1f",
        "v2v",
        "v99999999999i",
        "p0i",
        "p63f",
        "p64i",
        "p0i-p3i",
        "p3i-p0i",
        "stack0",
        "stack99999999999",
        "0",
        "1",
        "64",
        "255",
        "256",
        "(",
        ")",
        ",",
        ":",
        "->",
        "#",
        "\n",
        "p",
        "v",
        "block",
        "inst",
        "-",
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
    let files = case_files("valid");
    for round in 0..3000 {
        let src = std::fs::read_to_string(&files[round % files.len()]).unwrap();
        let mut toks: Vec<String> = src.split_whitespace().map(str::to_string).collect();
        for _ in 0..rng.gen_range(1..4) {
            if toks.is_empty() {
                break;
            }
            let at = rng.gen_range(0..toks.len());
            match rng.gen_range(0..3) {
                0 => {
                    toks.remove(at);
                }
                1 => toks.insert(at, VOCAB[rng.gen_range(0..VOCAB.len())].to_string()),
                _ => toks[at] = VOCAB[rng.gen_range(0..VOCAB.len())].to_string(),
            }
        }
        let _ = parse_and_validate(toks.join(" ").as_bytes());
    }
}

#[test]
fn huge_numbers_are_located_errors() {
    let machine = "machine int preferred p0i nonpreferred none scratch none \
                   float preferred p0f nonpreferred none scratch none \
                   vector preferred p0v nonpreferred none scratch none end\n";
    for (body, needle) in [
        (
            "function block0: inst0: op def:v99999999999i:any\n",
            "too large",
        ),
        (
            "function block0: inst0: op def:v16777216i:any\n",
            "too large",
        ),
        (
            "function block0: inst0: op def:v0i:fixed(p64i)\n",
            "too large",
        ),
        ("function block99999999999999999999999:\n", "too large"),
        (
            "function block0: inst0: op def:v0i:reuse(99999999999999999999)\n",
            "too large",
        ),
    ] {
        let src = format!("{machine}{body}");
        let err = parse_and_validate(src.as_bytes()).unwrap_err();
        assert_eq!(err.len(), 1);
        assert_eq!(err[0].pos.line, 2, "{body}");
        assert!(
            err[0].message.contains(needle),
            "{body}: {}",
            err[0].message
        );
    }
}
