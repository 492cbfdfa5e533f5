//! Text analysis for enhanced search.
//!
//! Pipeline: NFKC (full-width forms, compatibility characters) → Traditional→Simplified
//! Chinese folding → split into script runs: Han, hiragana, katakana, Hangul and other
//! text. Han runs become overlapping bigrams plus single characters (weighted lower at
//! query time); katakana words stay whole; hiragana next to kanji or katakana (particles,
//! okurigana) is dropped; Hangul words lose their particles and endings (날씨는 → 날씨,
//! `S3에서` → `s3`) and are then treated like Han runs. Other text goes through Unicode
//! (UAX #29) word segmentation, identifiers are split on `_`/`-`/`.`/case/digit
//! boundaries (the joined identifier is kept as well), parts are lowercased, English
//! stopwords dropped and ASCII words stemmed (Porter2).
//!
//! One file per stage: [`normalize`] (NFKC and Chinese folding), [`cjk`] (script classes,
//! bigrams, Korean endings), [`words`] (word segmentation and identifier splitting) and
//! [`english`] (stopwords and stemming); this file runs them in order.

mod cjk;
mod english;
mod normalize;
mod words;
#[cfg(test)]
mod tests;

pub(crate) use cjk::{class_of, Class};
pub use cjk::is_cjk;
pub use english::{is_stopword, stem};
pub use normalize::normalize;

use cjk::{emit_grams, korean_stem};
use normalize::normalize_cow;
use words::emit_words;

/// One analysed unit of text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unit {
    /// A word or identifier part, lowercased. `stem` equals `surface` when the word is
    /// not stemmable (non-ASCII, digits) or already a stem.
    Word { surface: String, stem: String },
    /// An identifier made of several parts, joined without separators
    /// (`send_email`, `sendEmail`, `send-email` → `sendemail`).
    Whole(String),
    /// A CJK bigram or a whole katakana word.
    Cjk(String),
    /// A single CJK character, matched with a lower weight than bigrams.
    CjkPart(String),
}

impl Unit {
    /// Terms this unit puts in a document: the surface form, plus the stem when it differs.
    pub fn for_each_term(&self, mut f: impl FnMut(&str)) {
        match self {
            Unit::Word { surface, stem } => {
                f(stem);
                if surface != stem {
                    f(surface);
                }
            }
            Unit::Whole(t) | Unit::Cjk(t) | Unit::CjkPart(t) => f(t),
        }
    }
}

/// A unit as the tokenizer hands it out, borrowed from its buffers (no allocation per
/// token). Words are not stemmed yet: callers that see a word many times stem it once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token<'a> {
    /// Lowercased word or identifier part (2+ characters, not a stopword).
    Word(&'a str),
    Whole(&'a str),
    Cjk(&'a str),
    CjkPart(&'a str),
}

/// Analyses `text` and appends its units to `out`, in text order.
pub fn analyze(text: &str, out: &mut Vec<Unit>) {
    tokenize(text, &mut |t| {
        out.push(match t {
            Token::Word(w) => word_unit(w.to_owned()),
            Token::Whole(w) => Unit::Whole(w.to_owned()),
            Token::Cjk(w) => Unit::Cjk(w.to_owned()),
            Token::CjkPart(w) => Unit::CjkPart(w.to_owned()),
        })
    });
}

/// Convenience: analyse into a fresh vector.
pub fn analyze_to_vec(text: &str) -> Vec<Unit> {
    let mut out = Vec::new();
    analyze(text, &mut out);
    out
}

/// Analyses `text`, handing each unit to `f` in text order (the same units as
/// [`analyze`], words unstemmed).
pub fn tokenize(text: &str, f: &mut impl FnMut(Token<'_>)) {
    let text = normalize_cow(text);
    let mut buf = String::new();
    if text.is_ascii() {
        // no CJK runs possible
        emit_words(&text, &mut buf, f);
        return;
    }
    let mut run_start = 0usize;
    let mut run_class: Option<Class> = None;
    // the character before the current run, when it belongs to another run
    let mut before: Option<char> = None;
    let mut last: Option<char> = None;
    for (i, c) in text.char_indices() {
        let class = class_of(c);
        if run_class != Some(class) {
            if let Some(prev) = run_class {
                emit_run(&text[run_start..i], prev, before, Some(class), &mut buf, f);
            }
            before = last;
            run_start = i;
            run_class = Some(class);
        }
        last = Some(c);
    }
    if let Some(prev) = run_class {
        emit_run(&text[run_start..], prev, before, None, &mut buf, f);
    }
}

/// `before`: the character just before the run; `after`: the class of the run after it.
fn emit_run(
    run: &str,
    class: Class,
    before: Option<char>,
    after: Option<Class>,
    buf: &mut String,
    f: &mut impl FnMut(Token<'_>),
) {
    match class {
        Class::Other => emit_words(run, buf, f),
        Class::Han => emit_grams(run, f),
        Class::Katakana => {
            // katakana words (mostly loanwords: メール, パスワード) stay whole; marks alone
            // (ー, ヽ) are no word
            if !run.chars().all(|c| matches!(c, '\u{30FC}'..='\u{30FE}')) {
                f(Token::Cjk(run));
            }
        }
        Class::Hiragana => {
            // Next to kanji or katakana, hiragana is particles, okurigana and auxiliaries
            // (の, を, して, ください); standing alone it is a word written in kana, unless
            // it is one character (a particle between spaces: `S3 の logs`).
            let next_to_word = |c: Option<Class>| matches!(c, Some(Class::Han | Class::Katakana));
            if !next_to_word(before.map(class_of)) && !next_to_word(after) && run.chars().nth(1).is_some() {
                emit_grams(run, f);
            }
        }
        Class::Hangul => {
            // a Hangul run glued to a Latin or digit word is that word's particle (`S3에서`)
            let attached = before.is_some_and(char::is_alphanumeric);
            if let Some(stem) = korean_stem(run, attached, buf) {
                emit_grams(stem, f);
            }
        }
    }
}

pub fn word_unit(surface: String) -> Unit {
    let stem = stem(&surface).into_owned();
    Unit::Word { surface, stem }
}
