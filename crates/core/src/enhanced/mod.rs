//! Enhanced (multilingual, word-form-aware, typo-tolerant) search analysis and index.
//!
//! Opt-in alternative to the compatible BM25 of [`crate::catalog`]: Unicode word
//! segmentation, CJK bigrams and single characters (Japanese split at script changes,
//! Korean particles and endings stripped), NFKC + case folding, identifier splitting,
//! English stemming and stopwords ([`analyzer`]); field-weighted BM25F re-weighted by how much of each
//! document's name and description the query covers ([`index`]); typo expansion for
//! query terms that match nothing ([`fuzzy`]); "Did you mean" ranking ([`suggest`]).
//!
//! Build cost is kept near the compatible catalog's: ASCII text skips normalisation and
//! table-driven segmentation, each distinct word is stemmed once, and the typo and prefix
//! tables are built by the first query that needs them.

pub mod action;
pub mod analyzer;
pub mod fuzzy;
pub mod glossary;
pub mod index;
pub mod shapes;
pub mod suggest;

pub use index::{EnhancedIndex, Field, FieldDoc, Tuning};
pub use suggest::suggest;
