//! Tokenizers. `compat_tokens` reproduces the tokenizer `@mastra/core@1.59.0` uses for tool
//! search, character for character, so scores and ties match the reference.

/// JavaScript `\s` (ECMAScript WhiteSpace + LineTerminator). Differs from Rust's
/// `char::is_whitespace`: U+FEFF is included, U+0085 is not.
#[inline]
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{0B}'
            | '\u{0C}'
            | '\r'
            | ' '
            | '\u{A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// Separators of the tool-search split pattern `/[\s\-_.,;:!?()[\]{}'"]+/`.
#[inline]
pub fn is_tool_search_separator(c: char) -> bool {
    is_js_whitespace(c)
        || matches!(
            c,
            '-' | '_' | '.' | ',' | ';' | ':' | '!' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '\'' | '"'
        )
}

/// Length of a string in UTF-16 code units, which is what JavaScript's `.length` counts.
#[inline]
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// Length in UTF-16 units of the JavaScript string `s` stands for. Text crosses from JS
/// lossless (js/lossless.js): a lone surrogate arrives as one private-use character (same
/// length), and a real U+E000..U+E7FF or U+FDD0 arrives escaped as U+FDD0 followed by it, so an
/// escape prefix counts for nothing here. Tokenizing never splits a prefix from its character
/// (neither is a separator), so a token's count is its JS token's.
#[inline]
pub fn js_len(s: &str) -> usize {
    let mut n = 0;
    let mut escape = false;
    for c in s.chars() {
        if c == '\u{FDD0}' && !escape {
            escape = true;
            continue;
        }
        escape = false;
        n += c.len_utf16();
    }
    // (a prefix with nothing after it never comes from the JS layer: count it as itself)
    n + usize::from(escape)
}

/// Lowercases, splits on the tool-search separators and drops tokens shorter than two
/// UTF-16 units. Duplicates are kept (they count twice in BM25, as in the reference).
pub fn compat_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_compat_token(text, |t| out.push(t.to_owned()));
    out
}

/// Byte table for the ASCII separators of the tool-search split pattern.
const fn ascii_separators() -> [bool; 128] {
    let mut table = [false; 128];
    let bytes = b"\t\n\x0b\x0c\r -_.,;:!?()[]{}'\"";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
}
static ASCII_SEPARATOR: [bool; 128] = ascii_separators();

/// Calls `f` with each compat token (see [`compat_tokens`]) without allocating per token.
/// ASCII text, the common case for tool ids and descriptions, takes a byte-level path.
pub fn for_each_compat_token(text: &str, f: impl FnMut(&str)) {
    for_each_compat_token_with(text, &mut String::new(), f);
}

/// [`for_each_compat_token`] with a caller-owned scratch buffer, so indexing many
/// documents allocates no per-document lowercase copy.
pub fn for_each_compat_token_with(text: &str, scratch: &mut String, mut f: impl FnMut(&str)) {
    if text.is_ascii() {
        scratch.clear();
        scratch.push_str(text);
        scratch.make_ascii_lowercase();
        let lower = scratch.as_str();
        let bytes = lower.as_bytes();
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if ASCII_SEPARATOR[b as usize] {
                if i - start >= 2 {
                    f(&lower[start..i]);
                }
                start = i + 1;
            }
        }
        if bytes.len() - start >= 2 {
            f(&lower[start..]);
        }
        return;
    }
    let lower = text.to_lowercase();
    for t in lower.split(is_tool_search_separator) {
        if js_len(t) >= 2 {
            f(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_the_reference() {
        assert_eq!(compat_tokens("github_create-issue Create a new Issue."), ["github", "create", "issue", "create", "new", "issue"]);
        assert_eq!(compat_tokens("bugs/track"), ["bugs/track"]);
        assert_eq!(compat_tokens("bugs\u{FEFF}zzz"), ["bugs", "zzz"]);
        assert_eq!(compat_tokens("bugs\u{0085}zzz"), ["bugs\u{0085}zzz"]);
    }

    #[test]
    fn escaped_characters_count_as_the_one_unit_they_stand_for() {
        // '\u{E001}' alone (escaped by the JS layer) is one JS unit: dropped, as in the host.
        assert_eq!(compat_tokens("a \u{FDD0}\u{E001} b\u{FDD0}\u{E001} \u{FDD0}\u{FDD0} \u{E400}"), ["b\u{FDD0}\u{E001}"]);
        assert_eq!(js_len("\u{FDD0}\u{FDD0}\u{FDD0}\u{E000}"), 2);
        assert_eq!(js_len("x\u{FDD0}"), 2);
        assert_eq!(js_len("😀"), 2);
    }

    #[test]
    fn counts_utf16_units() {
        assert!(compat_tokens("天").is_empty());
        assert_eq!(compat_tokens("天气"), ["天气"]);
        assert_eq!(compat_tokens("😀"), ["😀"]);
        assert!(compat_tokens("a b c").is_empty());
        assert_eq!(compat_tokens("on in an"), ["on", "in", "an"]);
    }

    #[test]
    fn ascii_fast_path_matches_the_general_path() {
        let samples = ["Get_Weather-now (v2)! a [b] {cc}; d:e,f?g'h\"ij", "x\u{0B}yy\u{0C}zz\rww\tvv", "a", "", "--", "AbC/dEf"];
        for s in samples {
            let general: Vec<String> = s.to_lowercase().split(is_tool_search_separator).filter(|t| utf16_len(t) >= 2).map(str::to_owned).collect();
            assert_eq!(compat_tokens(s), general, "{s:?}");
        }
    }

    #[test]
    fn lowercases_fully() {
        assert_eq!(compat_tokens("GITHUB ΟΔΟΣ"), ["github", "οδος"]);
    }
}
