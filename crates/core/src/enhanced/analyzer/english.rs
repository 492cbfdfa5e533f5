//! English: stopwords and Porter2 stemming (with a per-thread cache of stems).

use std::borrow::Cow;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

/// English stopwords (Snowball's list plus common contractions without apostrophes and
/// a few modal verbs), sorted for binary search.
pub(super) const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "arent",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "cannot",
    "cant",
    "could",
    "couldnt",
    "did",
    "didnt",
    "do",
    "does",
    "doesnt",
    "doing",
    "dont",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadnt",
    "has",
    "hasnt",
    "have",
    "havent",
    "having",
    "he",
    "hed",
    "hell",
    "her",
    "here",
    "heres",
    "hers",
    "herself",
    "hes",
    "him",
    "himself",
    "his",
    "how",
    "hows",
    "i",
    "id",
    "if",
    "ill",
    "im",
    "in",
    "into",
    "is",
    "isnt",
    "it",
    "its",
    "itself",
    "ive",
    "just",
    "lets",
    "may",
    "me",
    "might",
    "more",
    "most",
    "must",
    "mustnt",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "ought",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shall",
    "shant",
    "she",
    "shed",
    "shell",
    "shes",
    "should",
    "shouldnt",
    "so",
    "some",
    "such",
    "than",
    "that",
    "thats",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "theres",
    "these",
    "they",
    "theyd",
    "theyll",
    "theyre",
    "theyve",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "wasnt",
    "we",
    "wed",
    "well",
    "were",
    "werent",
    "weve",
    "what",
    "whats",
    "when",
    "whens",
    "where",
    "wheres",
    "which",
    "while",
    "who",
    "whom",
    "whos",
    "why",
    "whys",
    "will",
    "with",
    "wont",
    "would",
    "wouldnt",
    "you",
    "youd",
    "youll",
    "your",
    "youre",
    "yours",
    "yourself",
    "yourselves",
    "youve",
];

pub fn is_stopword(word: &str) -> bool {
    // one hash instead of a binary search: this runs for every word of every document
    static SET: OnceLock<rustc_hash::FxHashSet<&'static str>> = OnceLock::new();
    word.len() <= 10 && SET.get_or_init(|| STOPWORDS.iter().copied().collect()).contains(word)
}

pub(super) fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Word stem: Porter2 for ASCII letter words; other words are their own stem.
pub fn stem(word: &str) -> Cow<'_, str> {
    if !word.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Cow::Borrowed(word);
    }
    if word.len() > STEM_CACHE_WORD {
        return stemmer().stem(word);
    }
    // Catalogs and queries repeat their words: a hash lookup is several times cheaper than
    // the stemmer. Per thread (no lock); emptied when full, so it stays small.
    thread_local! {
        static STEMS: std::cell::RefCell<rustc_hash::FxHashMap<Box<str>, Box<str>>> = Default::default();
    }
    STEMS.with(|cell| {
        let mut cache = cell.borrow_mut();
        let stem: &str = match cache.get(word) {
            Some(stem) => stem,
            None => {
                if cache.len() >= STEM_CACHE_WORDS {
                    cache.clear();
                }
                let stem: Box<str> = stemmer().stem(word).into();
                cache.entry(word.into()).or_insert(stem)
            }
        };
        if stem == word {
            Cow::Borrowed(word)
        } else {
            Cow::Owned(stem.to_owned())
        }
    })
}

/// Words [`stem`] remembers per thread, and the longest it remembers (in bytes).
pub(super) const STEM_CACHE_WORDS: usize = 4096;

pub(super) const STEM_CACHE_WORD: usize = 24;
