//! Splits a case file into tokens: words, the punctuation `,` `(` `)` `:`
//! and `->`, with `#` comments and white space dropped. A word is a run of
//! ASCII letters, digits, `_` and `-` (a `-` directly followed by `>` ends
//! the word, so `p6i->p0i` is three tokens while `p0i-p11i` is one).

use super::source::{ParseError, Pos};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok<'a> {
    Word(&'a str),
    Comma,
    LParen,
    RParen,
    Colon,
    Arrow,
    Eof,
}

impl Tok<'_> {
    /// How the token reads in an error message.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Comma => "`,`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Arrow => "`->`".into(),
            Tok::Eof => "the end of the file".into(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Token<'a> {
    pub tok: Tok<'a>,
    pub pos: Pos,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Tokenizes all of `src`; the last token is always `Eof`.
pub(crate) fn lex(src: &[u8]) -> Result<Vec<Token<'_>>, ParseError> {
    let mut toks = Vec::new();
    let (mut i, mut line, mut line_start) = (0usize, 1u32, 0usize);
    while i < src.len() {
        let b = src[i];
        let pos = Pos {
            line,
            col: (i - line_start + 1) as u32,
        };
        let single = |tok| Token { tok, pos };
        match b {
            b'\n' => {
                line += 1;
                line_start = i + 1;
                i += 1;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'#' => {
                while i < src.len() && src[i] != b'\n' {
                    i += 1;
                }
            }
            b',' => {
                toks.push(single(Tok::Comma));
                i += 1;
            }
            b'(' => {
                toks.push(single(Tok::LParen));
                i += 1;
            }
            b')' => {
                toks.push(single(Tok::RParen));
                i += 1;
            }
            b':' => {
                toks.push(single(Tok::Colon));
                i += 1;
            }
            b'-' if src.get(i + 1) == Some(&b'>') => {
                toks.push(single(Tok::Arrow));
                i += 2;
            }
            _ if is_word_byte(b) => {
                let start = i;
                while i < src.len()
                    && is_word_byte(src[i])
                    && !(src[i] == b'-' && src.get(i + 1) == Some(&b'>'))
                {
                    i += 1;
                }
                // Only ASCII bytes were taken, so this cannot fail.
                let w = std::str::from_utf8(&src[start..i]).expect("ascii word");
                toks.push(Token {
                    tok: Tok::Word(w),
                    pos,
                });
            }
            _ => {
                let what = if b.is_ascii_graphic() {
                    format!("unexpected character `{}`", b as char)
                } else {
                    format!("unexpected byte 0x{b:02x}")
                };
                return Err(ParseError { pos, message: what });
            }
        }
    }
    let pos = Pos {
        line,
        col: (src.len() - line_start + 1) as u32,
    };
    toks.push(Token { tok: Tok::Eof, pos });
    Ok(toks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(src: &str) -> Vec<Tok<'_>> {
        lex(src.as_bytes())
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn arrows_split_words_but_ranges_do_not() {
        assert_eq!(
            words("p6i->p0i p0i-p11i # comment -> x\n"),
            vec![
                Tok::Word("p6i"),
                Tok::Arrow,
                Tok::Word("p0i"),
                Tok::Word("p0i-p11i"),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn positions_are_one_based() {
        let t = lex(b"a\n  b:(c)").unwrap();
        assert_eq!((t[0].pos.line, t[0].pos.col), (1, 1));
        assert_eq!((t[1].pos.line, t[1].pos.col), (2, 3));
        assert_eq!((t[2].pos.line, t[2].pos.col), (2, 4));
        assert_eq!(t[5].tok, Tok::RParen);
        assert_eq!(t.last().unwrap().tok, Tok::Eof);
    }

    #[test]
    fn stray_bytes_are_errors() {
        let e = lex(b"ok\n  $").unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (2, 3));
        assert_eq!(e.message, "unexpected character `$`");
        let e = lex(&[b'a', b' ', 0xff]).unwrap_err();
        assert_eq!(e.message, "unexpected byte 0xff");
    }
}
