//! Opt-in semantic side of hybrid search: a static (model2vec-style) embedding model —
//! a SentencePiece unigram vocabulary and one vector per piece, no network at query time —
//! document vectors with exact cosine top-k, and rank fusion with the enhanced ranking.
//!
//! - [`model`]: `model.bin` loading and validation, tokenizer (NFKC, lowercase, `▁` word
//!   marker, unigram Viterbi), sentence vectors (mean of rows, L2-normalized).
//! - [`docs`]: i8 document matrix, exact top-k.
//! - [`fusion`]: script-adaptive reciprocal-rank fusion.

pub mod docs;
pub mod fusion;
mod helper;
pub mod model;

pub use docs::{DocVectors, SemanticDocs};
pub use fusion::{EmbedderFusion, Fusion};
pub use model::{ModelError, Script, StaticModel};

/// The script of a tool's (or skill's) name and description read as one: what the fusion
/// compares with a query's for its same-script share.
pub fn tool_script(name: &str, description: &str) -> Script {
    Script::of_parts(&[name, description])
}

/// The text a tool is embedded as: its name with identifier separators as spaces (so
/// `send_email` reads as two words), then its description.
pub fn tool_text(name: &str, description: &str) -> String {
    let mut out = String::with_capacity(name.len() + description.len() + 2);
    let mut prev_lower = false;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.' | '/' | ':') {
            out.push(' ');
            prev_lower = false;
            continue;
        }
        // camelCase boundary
        if c.is_uppercase() && prev_lower {
            out.push(' ');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        out.push(c);
    }
    out.push_str(". ");
    out.push_str(description);
    out
}

#[cfg(test)]
pub(crate) mod tests;
