//! Enhanced (multilingual, word-form-aware, typo-tolerant) search analysis and index.
//!
//! Opt-in alternative to the compatible BM25 of [`crate::catalog`]: Unicode word
//! segmentation, CJK bigrams, NFKC + case folding, identifier splitting, English stemming
//! and stopwords ([`analyzer`]); field-weighted BM25F ([`index`]); typo expansion for
//! query terms that match nothing ([`fuzzy`]); "Did you mean" ranking ([`suggest`]).

pub mod analyzer;
pub mod fuzzy;
pub mod index;
pub mod suggest;

pub use index::{EnhancedIndex, Field, FieldDoc, Tuning};
pub use suggest::suggest;
