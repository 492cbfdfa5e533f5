//! Word text (everything but CJK): UAX #29 word segmentation (an ASCII fast path),
//! identifiers split on `_`/`-`/`.`/case/digit boundaries with the joined whole kept, case
//! folding and stopwords.

use std::borrow::Cow;

use unicode_segmentation::UnicodeSegmentation;

use super::english::is_stopword;
use super::Token;

/// Characters that glue word segments into one identifier when nothing else separates them.
#[inline]
fn is_connector(seg: &str) -> bool {
    matches!(seg, "-" | "." | "/" | "+" | ":" | "@" | "#")
}

#[inline]
pub(super) fn is_wordy(seg: &str) -> bool {
    if seg.is_ascii() {
        seg.bytes().any(|b| b.is_ascii_alphanumeric())
    } else {
        seg.chars().any(char::is_alphanumeric)
    }
}

/// UAX #29 word boundaries specialised to ASCII text, where they reduce to: letters,
/// digits and `_` join; `:` `.` `'` join two letters; `,` `;` `.` `'` join two digits;
/// anything else is a segment of its own. (UAX #29 also groups runs of spaces and CR LF;
/// both are non-word segments, which [`emit_words`] treats alike one by one.) About 5×
/// faster than the table-driven segmenter, and most tool text is ASCII.
pub(super) struct AsciiWordBounds<'a> {
    pub(super) text: &'a str,
    pub(super) pos: usize,
}

impl<'a> Iterator for AsciiWordBounds<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let b = self.text.as_bytes();
        let start = self.pos;
        if start >= b.len() {
            return None;
        }
        let joins = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let mut j = start + 1;
        if joins(b[start]) {
            while j < b.len() {
                if joins(b[j]) {
                    j += 1;
                } else if j + 1 < b.len()
                    && ((b[j - 1].is_ascii_alphabetic()
                        && b[j + 1].is_ascii_alphabetic()
                        && matches!(b[j], b':' | b'.' | b'\''))
                        || (b[j - 1].is_ascii_digit()
                            && b[j + 1].is_ascii_digit()
                            && matches!(b[j], b',' | b';' | b'.' | b'\'')))
                {
                    j += 2;
                } else {
                    break;
                }
            }
        }
        self.pos = j;
        Some(&self.text[start..j])
    }
}

pub(super) fn emit_words(text: &str, buf: &mut String, f: &mut impl FnMut(Token<'_>)) {
    if text.is_ascii() {
        emit_segments(AsciiWordBounds { text, pos: 0 }, buf, f);
    } else {
        emit_segments(text.split_word_bounds(), buf, f);
    }
}

pub(super) fn emit_segments<'a>(segments: impl Iterator<Item = &'a str>, buf: &mut String, f: &mut impl FnMut(Token<'_>)) {
    let mut compound: Vec<&str> = Vec::new();
    let mut pending_connector = false;
    for seg in segments {
        if is_wordy(seg) {
            if !pending_connector && !compound.is_empty() {
                emit_compound(&compound, buf, f);
                compound.clear();
            }
            compound.push(seg);
            pending_connector = false;
        } else if is_connector(seg) && !compound.is_empty() && !pending_connector {
            pending_connector = true;
        } else {
            if !compound.is_empty() {
                emit_compound(&compound, buf, f);
                compound.clear();
            }
            pending_connector = false;
        }
    }
    if !compound.is_empty() {
        emit_compound(&compound, buf, f);
    }
}

/// Splits an alphanumeric piece at camelCase, PascalCase/acronym and letter↔digit
/// boundaries (`HTTPServer2Go` → `HTTP`, `Server`, `2`, `Go`).
pub(super) fn camel_parts<'a>(piece: &'a str, mut emit: impl FnMut(&'a str)) {
    let mut it = piece.char_indices().peekable();
    let mut start = 0usize;
    let mut prev: Option<char> = None;
    while let Some((i, cur)) = it.next() {
        if let Some(prev) = prev {
            let next = it.peek().map(|x| x.1);
            // (an acronym's plural stays whole: `PRs`, `URLs`)
            let plural_s = next == Some('s') && i + cur.len_utf8() + 1 == piece.len();
            let boundary = (prev.is_lowercase() && cur.is_uppercase())
                || (prev.is_uppercase() && cur.is_uppercase() && next.is_some_and(char::is_lowercase) && !plural_s)
                || (prev.is_alphabetic() && cur.is_numeric())
                || (prev.is_numeric() && cur.is_alphabetic());
            if boundary {
                emit(&piece[start..i]);
                start = i;
            }
        }
        prev = Some(cur);
    }
    if start < piece.len() {
        emit(&piece[start..]);
    }
}

/// Lowercases the parts of one identifier into `buf` back to back, handing out each
/// kept part as it is done and then the joined whole (a slice of the same buffer).
fn emit_compound(segments: &[&str], buf: &mut String, f: &mut impl FnMut(Token<'_>)) {
    buf.clear();
    let mut parts = 0usize;
    let mut part = |p: &str, buf: &mut String| {
        let start = buf.len();
        case_fold_into(p, buf);
        parts += 1;
        let lower = &buf[start..];
        let chars = if lower.is_ascii() { lower.len() } else { lower.chars().count() };
        if chars >= 2 && !is_stopword(lower) {
            f(Token::Word(lower));
        }
    };
    for seg in segments {
        if seg.is_ascii() && !seg.contains('\'') {
            ascii_parts(seg, |p| part(p, buf));
            continue;
        }
        // Apostrophes join (`user's` → `users`, `don't` → `dont`) rather than split.
        let seg: Cow<str> = if seg.contains(['\'', '\u{2019}']) {
            seg.chars().filter(|&c| c != '\'' && c != '\u{2019}').collect::<String>().into()
        } else {
            (*seg).into()
        };
        for piece in seg.split(|c: char| !c.is_alphanumeric()).filter(|p| !p.is_empty()) {
            camel_parts(piece, |p| part(p, buf));
        }
    }
    if parts > 1 {
        let whole = buf.as_str();
        let chars = if whole.is_ascii() { whole.len() } else { whole.chars().count() };
        if chars >= 2 && !is_stopword(whole) {
            f(Token::Whole(whole));
        }
    }
}

/// The alphanumeric runs of an ASCII segment split like [`camel_parts`], on bytes.
pub(super) fn ascii_parts<'a>(seg: &'a str, mut emit: impl FnMut(&'a str)) {
    let b = seg.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let mut start = i;
        i += 1;
        while i < b.len() && b[i].is_ascii_alphanumeric() {
            let (prev, cur) = (b[i - 1], b[i]);
            // (an acronym's plural stays whole: `PRs`, `URLs`, not `P` + `Rs`)
            let plural_s = b.get(i + 1) == Some(&b's') && !b.get(i + 2).is_some_and(u8::is_ascii_alphanumeric);
            let next_lower = b.get(i + 1).is_some_and(u8::is_ascii_lowercase) && !plural_s;
            let boundary = (prev.is_ascii_lowercase() && cur.is_ascii_uppercase())
                || (prev.is_ascii_uppercase() && cur.is_ascii_uppercase() && next_lower)
                || (prev.is_ascii_alphabetic() && cur.is_ascii_digit())
                || (prev.is_ascii_digit() && cur.is_ascii_alphabetic());
            if boundary {
                emit(&seg[start..i]);
                start = i;
            }
            i += 1;
        }
        emit(&seg[start..i]);
    }
}

/// Lowercasing plus the full case folds that matter for matching: final sigma and ß.
fn case_fold_into(s: &str, out: &mut String) {
    if s.is_ascii() {
        let start = out.len();
        out.push_str(s);
        out[start..].make_ascii_lowercase();
        return;
    }
    let lower = s.to_lowercase();
    if lower.contains(['ς', 'ß']) {
        out.push_str(&lower.replace('ς', "σ").replace('ß', "ss"));
    } else {
        out.push_str(&lower);
    }
}
