//! Text analysis for enhanced search.
//!
//! Pipeline: NFKC (full-width forms, compatibility characters) → Traditional→Simplified
//! Chinese folding → split into CJK runs and other text → CJK runs become overlapping
//! character bigrams (a one-character run stays a unigram); other text goes through
//! Unicode (UAX #29) word segmentation, identifiers are split on `_`/`-`/`.`/case/digit
//! boundaries (the joined identifier is kept as well), parts are lowercased, English
//! stopwords dropped and ASCII words stemmed (Porter2).

use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

/// One analysed unit of text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unit {
    /// A word or identifier part, lowercased. `stem` equals `surface` when the word is
    /// not stemmable (non-ASCII, digits) or already a stem.
    Word { surface: String, stem: String },
    /// An identifier made of several parts, joined without separators
    /// (`send_email`, `sendEmail`, `send-email` → `sendemail`).
    Whole(String),
    /// A CJK bigram, or a single character when its run has only one.
    Cjk(String),
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
            Unit::Whole(t) | Unit::Cjk(t) => f(t),
        }
    }
}

/// English stopwords (Snowball's list plus common contractions without apostrophes and
/// a few modal verbs), sorted for binary search.
const STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "arent", "as",
    "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "cannot",
    "cant", "could", "couldnt", "did", "didnt", "do", "does", "doesnt", "doing", "dont", "down", "during", "each",
    "few", "for", "from", "further", "had", "hadnt", "has", "hasnt", "have", "havent", "having", "he", "hed",
    "hell", "her", "here", "heres", "hers", "herself", "hes", "him", "himself", "his", "how", "hows", "i", "id",
    "if", "ill", "im", "in", "into", "is", "isnt", "it", "its", "itself", "ive", "just", "lets", "may", "me",
    "might", "more", "most", "must", "mustnt", "my", "myself", "no", "nor", "not", "now", "of", "off", "on",
    "once", "only", "or", "other", "ought", "our", "ours", "ourselves", "out", "over", "own", "same", "shall",
    "shant", "she", "shed", "shell", "shes", "should", "shouldnt", "so", "some", "such", "than", "that", "thats",
    "the", "their", "theirs", "them", "themselves", "then", "there", "theres", "these", "they", "theyd",
    "theyll", "theyre", "theyve", "this", "those", "through", "to", "too", "under", "until", "up", "very",
    "was", "wasnt", "we", "wed", "well", "were", "werent", "weve", "what", "whats", "when", "whens", "where",
    "wheres", "which", "while", "who", "whom", "whos", "why", "whys", "will", "with", "wont", "would",
    "wouldnt", "you", "youd", "youll", "your", "youre", "yours", "yourself", "yourselves", "youve",
];

pub fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Han ideographs (incl. iteration/zero marks) and kana: bigrammed together, since
/// Japanese mixes them inside one phrase.
#[inline]
fn is_han_or_kana(c: char) -> bool {
    matches!(c,
        '\u{3005}' | '\u{3007}' // 々 〇
        | '\u{3041}'..='\u{309F}' // Hiragana
        | '\u{30A0}'..='\u{30FA}' | '\u{30FC}'..='\u{30FF}' // Katakana without the middle dot ・
        | '\u{31F0}'..='\u{31FF}' // Katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{3FFFF}')
}

#[inline]
fn is_hangul(c: char) -> bool {
    matches!(c, '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}' | '\u{A960}'..='\u{A97F}'
        | '\u{AC00}'..='\u{D7AF}' | '\u{D7B0}'..='\u{D7FF}')
}

/// Characters indexed as bigrams (Han, kana, Hangul).
#[inline]
pub fn is_cjk(c: char) -> bool {
    is_han_or_kana(c) || is_hangul(c)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    HanKana,
    Hangul,
    Other,
}

#[inline]
fn class_of(c: char) -> Class {
    if is_han_or_kana(c) {
        Class::HanKana
    } else if is_hangul(c) {
        Class::Hangul
    } else {
        Class::Other
    }
}

/// NFKC, then Traditional→Simplified folding (only when the text has Han characters, as
/// the conversion allocates).
pub fn normalize(text: &str) -> String {
    let nfkc: String = text.nfkc().collect();
    if nfkc.chars().any(|c| matches!(c, '\u{3400}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{3FFFF}')) {
        fast2s::convert(&nfkc)
    } else {
        nfkc
    }
}

/// Analyses `text` and appends its units to `out`, in text order.
pub fn analyze(text: &str, out: &mut Vec<Unit>) {
    let text = normalize(text);
    let mut run_start = 0usize;
    let mut run_class: Option<Class> = None;
    for (i, c) in text.char_indices() {
        let class = class_of(c);
        if run_class != Some(class) {
            if let Some(prev) = run_class {
                emit_run(&text[run_start..i], prev, out);
            }
            run_start = i;
            run_class = Some(class);
        }
    }
    if let Some(prev) = run_class {
        emit_run(&text[run_start..], prev, out);
    }
}

/// Convenience: analyse into a fresh vector.
pub fn analyze_to_vec(text: &str) -> Vec<Unit> {
    let mut out = Vec::new();
    analyze(text, &mut out);
    out
}

fn emit_run(run: &str, class: Class, out: &mut Vec<Unit>) {
    match class {
        Class::Other => emit_words(run, out),
        Class::HanKana | Class::Hangul => {
            let chars: Vec<char> = run.chars().collect();
            if chars.len() == 1 {
                out.push(Unit::Cjk(chars[0].to_string()));
            } else {
                for pair in chars.windows(2) {
                    let mut s = String::with_capacity(8);
                    s.push(pair[0]);
                    s.push(pair[1]);
                    out.push(Unit::Cjk(s));
                }
            }
        }
    }
}

/// Characters that glue word segments into one identifier when nothing else separates them.
#[inline]
fn is_connector(seg: &str) -> bool {
    matches!(seg, "-" | "." | "/" | "+" | ":" | "@" | "#")
}

#[inline]
fn is_wordy(seg: &str) -> bool {
    seg.chars().any(char::is_alphanumeric)
}

fn emit_words(text: &str, out: &mut Vec<Unit>) {
    let mut compound: Vec<&str> = Vec::new();
    let mut pending_connector = false;
    for seg in text.split_word_bounds() {
        if is_wordy(seg) {
            if !pending_connector && !compound.is_empty() {
                emit_compound(&compound, out);
                compound.clear();
            }
            compound.push(seg);
            pending_connector = false;
        } else if is_connector(seg) && !compound.is_empty() && !pending_connector {
            pending_connector = true;
        } else {
            if !compound.is_empty() {
                emit_compound(&compound, out);
                compound.clear();
            }
            pending_connector = false;
        }
    }
    if !compound.is_empty() {
        emit_compound(&compound, out);
    }
}

/// Splits an alphanumeric piece at camelCase, PascalCase/acronym and letter↔digit
/// boundaries (`HTTPServer2Go` → `HTTP`, `Server`, `2`, `Go`).
fn camel_parts<'a>(piece: &'a str, parts: &mut Vec<&'a str>) {
    let chars: Vec<(usize, char)> = piece.char_indices().collect();
    let mut start = 0usize;
    for k in 1..chars.len() {
        let (i, cur) = chars[k];
        let prev = chars[k - 1].1;
        let next = chars.get(k + 1).map(|x| x.1);
        let boundary = (prev.is_lowercase() && cur.is_uppercase())
            || (prev.is_uppercase() && cur.is_uppercase() && next.is_some_and(char::is_lowercase))
            || (prev.is_alphabetic() && cur.is_numeric())
            || (prev.is_numeric() && cur.is_alphabetic());
        if boundary {
            parts.push(&piece[start..i]);
            start = i;
        }
    }
    if start < piece.len() {
        parts.push(&piece[start..]);
    }
}

fn emit_compound(segments: &[&str], out: &mut Vec<Unit>) {
    let mut lower_parts: Vec<String> = Vec::new();
    for seg in segments {
        // Apostrophes join (`user's` → `users`, `don't` → `dont`) rather than split.
        let seg: std::borrow::Cow<str> = if seg.contains(['\'', '\u{2019}']) {
            seg.chars().filter(|&c| c != '\'' && c != '\u{2019}').collect::<String>().into()
        } else {
            (*seg).into()
        };
        let mut raw_parts: Vec<&str> = Vec::new();
        for piece in seg.split(|c: char| !c.is_alphanumeric()).filter(|p| !p.is_empty()) {
            camel_parts(piece, &mut raw_parts);
        }
        lower_parts.extend(raw_parts.iter().map(|p| case_fold(p)));
    }
    for part in &lower_parts {
        if part.chars().count() < 2 || is_stopword(part) {
            continue;
        }
        out.push(word_unit(part.clone()));
    }
    if lower_parts.len() > 1 {
        let whole: String = lower_parts.concat();
        if whole.chars().count() >= 2 && !is_stopword(&whole) {
            out.push(Unit::Whole(whole));
        }
    }
}

/// Lowercasing plus the full case folds that matter for matching: final sigma and ß.
fn case_fold(s: &str) -> String {
    let lower = s.to_lowercase();
    if lower.contains(['ς', 'ß']) {
        lower.replace('ς', "σ").replace('ß', "ss")
    } else {
        lower
    }
}

pub static STEM_MODE: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

fn s_stem(w: &str) -> String {
    let n = w.len();
    if n > 4 && w.ends_with("ies") && !w.ends_with("eies") && !w.ends_with("aies") {
        format!("{}y", &w[..n - 3])
    } else if n > 3 && w.ends_with("es") && !w.ends_with("aes") && !w.ends_with("ees") && !w.ends_with("oes") {
        w[..n - 1].to_owned()
    } else if n > 3 && w.ends_with('s') && !w.ends_with("us") && !w.ends_with("ss") {
        w[..n - 1].to_owned()
    } else {
        w.to_owned()
    }
}

pub fn word_unit(surface: String) -> Unit {
    let mode = STEM_MODE.load(std::sync::atomic::Ordering::Relaxed);
    let stem = if surface.bytes().all(|b| b.is_ascii_alphabetic()) {
        if mode == 1 { s_stem(&surface) } else { stemmer().stem(&surface).into_owned() }
    } else {
        surface.clone()
    };
    Unit::Word { surface, stem }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        let mut v = Vec::new();
        for u in analyze_to_vec(text) {
            u.for_each_term(|t| v.push(t.to_owned()));
        }
        v
    }

    fn word(s: &str) -> Unit {
        word_unit(s.to_owned())
    }

    #[test]
    fn stopwords_are_sorted() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn splits_identifiers_and_keeps_the_whole() {
        assert_eq!(
            analyze_to_vec("send_email"),
            [word("send"), word("email"), Unit::Whole("sendemail".into())]
        );
        assert_eq!(analyze_to_vec("createIssue"), [word("create"), word("issue"), Unit::Whole("createissue".into())]);
        assert_eq!(analyze_to_vec("kebab-case"), [word("kebab"), word("case"), Unit::Whole("kebabcase".into())]);
        assert_eq!(
            analyze_to_vec("HTTPServer2Go"),
            [word("http"), word("server"), word("go"), Unit::Whole("httpserver2go".into())]
        );
        assert_eq!(analyze_to_vec("PDF_URLTool"), [word("pdf"), word("url"), word("tool"), Unit::Whole("pdfurltool".into())]);
    }

    #[test]
    fn stems_and_keeps_surface_forms() {
        assert_eq!(terms("Emails"), ["email", "emails"]);
        assert_eq!(terms("searching the papers"), ["search", "searching", "paper", "papers"]);
        // stopwords, apostrophes and one-letter words
        assert_eq!(terms("What's a user's plan?"), ["user", "users", "plan"]);
    }

    #[test]
    fn full_width_and_case_fold() {
        assert_eq!(terms("ＧＩＴＨＵＢ　Ｉｓｓｕｅ"), terms("github issue"));
        assert_eq!(terms("ΟΔΟΣ"), ["οδοσ"]);
        assert_eq!(terms("οδος Straße"), ["οδοσ", "strass", "strasse"]);
    }

    #[test]
    fn cjk_bigrams_and_unigrams() {
        assert_eq!(terms("天气预报"), ["天气", "气预", "预报"]);
        // Traditional folds to Simplified
        assert_eq!(terms("天氣預報"), ["天气", "气预", "预报"]);
        assert_eq!(terms("天"), ["天"]);
        // Hangul runs are separate from Han; spaces break runs
        assert_eq!(terms("날씨를 알려"), ["날씨", "씨를", "알려"]);
        // Japanese kana and kanji bigram together; half-width katakana widened by NFKC
        assert_eq!(terms("ﾒｰﾙを送る"), ["メー", "ール", "ルを", "を送", "送る"]);
        // mixed scripts without spaces
        assert_eq!(terms("GitHub问题"), ["git", "hub", "github", "问题"]);
    }

    #[test]
    fn odd_input_never_panics() {
        let samples = [
            "", " ", "\u{0}", "\u{FEFF}", "\u{200D}", "a\u{301}", "ﷺ", "🏳️‍🌈", "\u{10FFFF}", "ǅungla", "İstanbul",
            "x\u{0}y", "__--..", "'''", "a'b", "3.14.15", "A1B2C3", "ＡＢＣ１２３", "\u{E000}", "ß", "ﬃ",
            "𠀀𠀁", "々", "ー", "・", "한", "ᄀᄀ", "e.g.", "e.", ".e", "-x-", "http://a.b/c?d=e#f",
        ];
        for s in samples {
            let _ = analyze_to_vec(s);
            let _ = analyze_to_vec(&s.repeat(3));
        }
        // every char in a sweep of planes, singly and in pairs
        let mut text = String::new();
        for cp in (0u32..0x3_0000).step_by(7) {
            if let Some(c) = char::from_u32(cp) {
                text.push(c);
                if cp % 3 == 0 {
                    text.push(' ');
                }
            }
        }
        let _ = analyze_to_vec(&text);
    }
}
