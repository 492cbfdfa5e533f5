//! Property tests for the tokenizers and analyzers: no panic on arbitrary Unicode (including the
//! strings the napi binding makes out of JavaScript strings with lone surrogates), and the
//! compatible tokenizer agrees with an independent model of `@mastra/core`'s tool-search
//! tokenizer (tool-search.md §3.2) on arbitrary input.
//!
//! Case counts are small so `cargo test` stays fast; `PROPTEST_CASES=5000 cargo test -p
//! mastra-native-core --test properties_tokenizers` runs a longer search.

use mastra_native_core::enhanced::{analyzer, suggest};
use mastra_native_core::skill_search::workspace_tokens;
use mastra_native_core::tokenizer::{compat_tokens, for_each_compat_token_with, utf16_len};
use proptest::prelude::*;

/// `PROPTEST_CASES` when set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The separator class of `/[\s\-_.,;:!?()[\]{}'"]+/`, written out from the spec (not taken
/// from the crate): ECMAScript WhiteSpace + LineTerminator, then the punctuation list.
const SEPARATORS: &[char] = &[
    '\t', '\n', '\u{0B}', '\u{0C}', '\r', ' ', '\u{A0}', '\u{1680}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}',
    '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}', '\u{200A}', '\u{2028}', '\u{2029}',
    '\u{202F}', '\u{205F}', '\u{3000}', '\u{FEFF}', '-', '_', '.', ',', ';', ':', '!', '?', '(', ')', '[', ']', '{',
    '}', '\'', '"',
];

/// Reference model of the tool-search tokenizer: `text.toLowerCase().split(re).filter(t =>
/// t.length > 1)`, with `.length` in UTF-16 code units.
fn model_tokens(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    let mut current = String::new();
    let mut units = 0usize;
    for c in lower.chars() {
        if SEPARATORS.contains(&c) {
            if units >= 2 {
                out.push(std::mem::take(&mut current));
            }
            current.clear();
            units = 0;
        } else {
            current.push(c);
            units += c.len_utf16();
        }
    }
    if units >= 2 {
        out.push(current);
    }
    out
}

/// Text that mixes ASCII words, separators, case pairs with special lowercase rules (final
/// sigma, dotted capital I, Kelvin sign), CJK, emoji, combining marks and arbitrary chars.
fn mixed_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-zA-Z0-9]{1,8}",
        3 => prop::sample::select(SEPARATORS.to_vec()).prop_map(String::from),
        1 => prop::sample::select(vec![
            "Σ", "ΑΣ", "ΟΔΟΣ", "İ", "K", "ß", "ﬁ", "Ǆ", "天", "天气", "預報", "😀", "e\u{301}", "\u{0085}", "\u{FFFD}",
            "/", "@", "#", "ＡＢＣ", "𝔄𝔅", "\u{10400}",
        ])
        .prop_map(String::from),
        2 => any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

/// A JavaScript string as UTF-16 units (lone surrogates included), converted the way
/// `napi_get_value_string_utf8` converts it: each lone surrogate becomes U+FFFD.
fn js_string() -> impl Strategy<Value = (Vec<u16>, String)> {
    let unit = prop_oneof![
        4 => 0x20u16..0x7F,
        2 => 0xD800u16..0xE000,
        2 => any::<u16>(),
    ];
    prop::collection::vec(unit, 0..40).prop_map(|units| {
        let s = String::from_utf16_lossy(&units);
        (units, s)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    #[test]
    fn compat_tokens_match_the_reference_model(text in mixed_text()) {
        prop_assert_eq!(compat_tokens(&text), model_tokens(&text));
    }

    #[test]
    fn compat_tokens_match_the_model_on_any_string(text in any::<String>()) {
        prop_assert_eq!(compat_tokens(&text), model_tokens(&text));
    }

    #[test]
    fn compat_tokens_match_the_model_on_ascii(text in "[ -~\t\n\r\u{0B}\u{0C}]{0,60}") {
        // The ASCII fast path (byte table) against the model.
        prop_assert_eq!(compat_tokens(&text), model_tokens(&text));
    }

    #[test]
    fn compat_token_invariants(text in mixed_text()) {
        let tokens = compat_tokens(&text);
        for t in &tokens {
            prop_assert!(utf16_len(t) >= 2, "short token {:?}", t);
            prop_assert!(!t.chars().any(|c| SEPARATORS.contains(&c)), "separator in {:?}", t);
            prop_assert_eq!(&t.to_lowercase(), t, "token not lowercase");
        }
        // Re-tokenizing the tokens joined by a space gives them back (idempotence).
        prop_assert_eq!(compat_tokens(&tokens.join(" ")), tokens.clone());
        // Determinism, and the scratch-buffer variant (used by catalog builds) agrees even
        // when the buffer holds a previous document.
        prop_assert_eq!(compat_tokens(&text), tokens.clone());
        let mut scratch = String::from("PREVIOUS DOCUMENT ΣΣ");
        let mut streamed = Vec::new();
        for_each_compat_token_with(&text, &mut scratch, |t| streamed.push(t.to_owned()));
        prop_assert_eq!(streamed, tokens);
    }

    #[test]
    fn name_and_description_tokenize_independently(name in mixed_text(), description in mixed_text()) {
        // The catalog tokenizes `name` and `description` separately where the reference
        // tokenizes `${name} ${description}`: the space must make that equivalent.
        let mut parts = compat_tokens(&name);
        parts.extend(compat_tokens(&description));
        prop_assert_eq!(compat_tokens(&format!("{name} {description}")), parts);
    }

    #[test]
    fn js_strings_with_lone_surrogates_keep_their_utf16_length((units, s) in js_string()) {
        // Every lone surrogate becomes one U+FFFD (one UTF-16 unit), so `.length`-based rules
        // (the 2-unit token filter, the 150-unit description cut) see the JS length.
        prop_assert_eq!(utf16_len(&s), units.len());
        prop_assert_eq!(compat_tokens(&s), model_tokens(&s));
        let _ = workspace_tokens(&s);
        let _ = analyzer::analyze_to_vec(&s);
    }

    #[test]
    fn workspace_token_invariants(text in mixed_text()) {
        let tokens = workspace_tokens(&text);
        for t in &tokens {
            prop_assert!(utf16_len(t) >= 2, "short token {:?}", t);
            prop_assert!(!t.chars().any(|c| c.is_whitespace() || SEPARATORS.contains(&c) && c != '_'), "separator in {:?}", t);
        }
        prop_assert_eq!(workspace_tokens(&tokens.join(" ")), tokens.clone());
        prop_assert_eq!(workspace_tokens(&text), tokens);
    }

    #[test]
    fn workspace_tokens_never_panic(text in any::<String>()) {
        let tokens = workspace_tokens(&text);
        prop_assert!(tokens.iter().all(|t| utf16_len(t) >= 2));
    }

    #[test]
    fn enhanced_analyzer_never_panics_and_is_deterministic(text in mixed_text()) {
        let units = analyzer::analyze_to_vec(&text);
        prop_assert_eq!(analyzer::analyze_to_vec(&text), units.clone());
        for unit in &units {
            unit.for_each_term(|t| assert!(!t.is_empty(), "empty term from {text:?}"));
        }
        let normalized = analyzer::normalize(&text);
        prop_assert_eq!(analyzer::normalize(&normalized), normalized.clone(), "normalize is idempotent");
        let mut count = 0usize;
        analyzer::tokenize(&text, &mut |_| count += 1);
        let _ = count;
    }

    #[test]
    fn enhanced_analyzer_on_any_string(text in any::<String>()) {
        let _ = analyzer::analyze_to_vec(&text);
        for word in text.split_whitespace() {
            let _ = analyzer::stem(word);
            let _ = analyzer::is_stopword(word);
        }
    }

    #[test]
    fn suggestions_are_valid_distinct_indices(
        requested in mixed_text(),
        candidates in prop::collection::vec(mixed_text(), 0..12),
        limit in 0usize..16,
    ) {
        let names: Vec<&str> = candidates.iter().map(String::as_str).collect();
        let picked = suggest(&requested, &names, limit);
        prop_assert!(picked.len() <= limit.min(names.len()));
        let mut seen = std::collections::HashSet::new();
        for &i in &picked {
            prop_assert!((i as usize) < names.len());
            prop_assert!(seen.insert(i), "index {} twice", i);
        }
        prop_assert_eq!(suggest(&requested, &names, limit), picked);
    }
}

#[test]
fn huge_and_empty_inputs() {
    assert!(compat_tokens("").is_empty());
    assert!(workspace_tokens("").is_empty());
    assert!(analyzer::analyze_to_vec("").is_empty());
    // 400 KB of mixed text (a large SKILL.md or description) tokenizes without trouble.
    let big: String = "Search the weather_forecast ΟΔΟΣ 天气预报 😀 a-b_c. ".repeat(8_000);
    let tokens = compat_tokens(&big);
    assert_eq!(tokens, model_tokens(&big));
    assert_eq!(workspace_tokens(&big).len(), 8_000 * 5);
    assert!(!analyzer::analyze_to_vec(&big).is_empty());
    // One huge token, and one huge run of separators.
    let word = "x".repeat(1 << 18);
    assert_eq!(compat_tokens(&word), std::slice::from_ref(&word));
    assert!(compat_tokens(&"-".repeat(1 << 18)).is_empty());
}
