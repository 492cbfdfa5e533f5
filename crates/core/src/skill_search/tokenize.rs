//! The workspace search engine's default tokenizer (`tokenize()` in `@mastra/core`'s
//! `workspace/search/bm25.ts` with its default options).

use super::letters::is_letter_or_number;
use crate::tokenizer::utf16_len;

/// `DEFAULT_STOPWORDS` of the workspace tokenizer.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "he", "in", "is", "it", "its", "of", "on",
    "or", "that", "the", "to", "was", "were", "will", "with",
];

fn is_stopword(token: &str) -> bool {
    // Every stopword is ASCII and at most 5 bytes; skip the scan for anything else.
    token.len() <= 5 && STOPWORDS.contains(&token)
}

/// Lowercase, `/[^\p{L}\p{N}_\s]/gu` → space, split on JS `\s+`, keep tokens of at least
/// two UTF-16 units that are not stopwords. Duplicates are kept (they count in BM25).
pub fn workspace_tokens(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, out: &mut Vec<String>| {
        if !current.is_empty() {
            if utf16_len(current) >= 2 && !is_stopword(current) {
                out.push(std::mem::take(current));
            } else {
                current.clear();
            }
        }
    };
    for c in lower.chars() {
        if c == '_' || is_letter_or_number(c) {
            current.push(c);
        } else {
            // Punctuation becomes a space and whitespace splits, so a token is a maximal
            // run of letters, numbers and `_`.
            flush(&mut current, &mut out);
        }
    }
    flush(&mut current, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercases_and_strips_punctuation() {
        assert_eq!(workspace_tokens("TESTS!!"), ["tests"]);
        assert_eq!(workspace_tokens("api-design /v1 prefixes."), ["api", "design", "v1", "prefixes"]);
        assert_eq!(workspace_tokens("snake_case stays"), ["snake_case", "stays"]);
    }

    #[test]
    fn drops_short_tokens_and_stopwords() {
        assert!(workspace_tokens("a b c").is_empty());
        assert_eq!(workspace_tokens("The API is for the tests"), ["api", "tests"]);
        assert_eq!(workspace_tokens("tests tests"), ["tests", "tests"]);
    }

    #[test]
    fn keeps_non_latin_letters_and_numbers() {
        assert_eq!(workspace_tokens("天气 预报"), ["天气", "预报"]);
        assert_eq!(workspace_tokens("ΟΔΟΣ ½½"), ["οδος", "½½"]);
        // U+0301 (combining acute, Mn) is not \p{L}: it splits the word like punctuation.
        assert_eq!(workspace_tokens("cafe\u{301}s ok"), ["cafe", "ok"]);
        // Emoji are neither letters nor numbers.
        assert!(workspace_tokens("😀😀").is_empty());
    }

    #[test]
    fn js_whitespace_splits() {
        assert_eq!(workspace_tokens("alpha\u{FEFF}beta\u{3000}gamma"), ["alpha", "beta", "gamma"]);
    }
}
