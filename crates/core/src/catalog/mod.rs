//! Tool catalogs: the searchable set of tools of one processor (static) or one request
//! (static + request-resolved overlay), with the reference's naming, lookup and ranking.
//!
//! Tools are identified by a *handle* chosen by the caller (the JS layer keeps the actual
//! `Tool` objects in arrays and maps handles back), so no JS object ever lives in Rust.
//!
//! One entry point builds a catalog: [`ToolCatalog::build`], from a [`CatalogSource`] (owned
//! entries, a joined text read in place, or a source already checked) with [`BuildOptions`]
//! (the [`SearchMode`], and whether ambiguous names are rejected). [`ToolCatalog::overlay`]
//! lays a request's tools over a built catalog. By concern:
//!
//! - `build.rs`: sources, options, the builds and overlays;
//! - `checks.rs`: name validation and the build errors;
//! - `names.rs`: key and id lookups, name resolution, listing and suggestions;
//! - `search.rs`: compatible and enhanced ranking;
//! - `hybrid.rs`: enhanced ranking fused with a static embedding model's;
//! - `entries.rs`: the entries' storage (one text buffer, a row per tool);
//! - `hubs.rs`: tools that come up for requests about other tools (never loaded on a guess).

use std::sync::Arc;

use crate::bm25::{Bm25Index, Vocab};
use crate::enhanced::EnhancedIndex;

mod build;
mod checks;
mod entries;
mod hubs;
mod hybrid;
mod names;
mod search;
#[cfg(test)]
pub(crate) mod tests;

pub use build::{BuildOptions, CatalogSource, SearchMode, Validation};
pub use checks::{BuildError, CatalogError, CheckedCatalog, KeyConflicts};
pub use entries::{JoinedError, ToolRef};
pub use hubs::long_descriptions;
pub use hybrid::{HybridRanker, Override};

use entries::Entries;
use names::Names;

/// One `[key, tool]` entry as the catalog needs it.
#[derive(Debug, Clone)]
pub struct ToolEntry {
    pub key: String,
    /// `tool.id` when it is a non-empty string.
    pub id: Option<String>,
    pub description: String,
    pub handle: u32,
}

impl ToolEntry {
    /// The indexed name: `tool.id || key`.
    pub fn name(&self) -> &str {
        self.id.as_deref().unwrap_or(&self.key)
    }

    /// This tool, borrowed, with `params` as its parameter text.
    pub fn tool_ref<'a>(&'a self, params: &'a str) -> ToolRef<'a> {
        ToolRef { key: &self.key, id: self.id.as_deref(), description: &self.description, params, handle: self.handle }
    }
}

/// A search hit: the tool to return (first tool whose id is the indexed name), the tool
/// whose name/description the document shows (the last one indexed under that name),
/// and the boosted score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub handle: u32,
    pub doc_handle: u32,
    pub score: f64,
}

/// What a hybrid hit rests on, for preload's confidence: its lexical score (0 when it was not
/// among the lexical candidates fused) and the model's plain cosine with the request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    pub lexical: f64,
    pub cosine: f64,
}

/// One `injectCatalog` row; see [`ToolCatalog::listing`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListingRow {
    /// The entry whose key this row is for.
    pub key_handle: u32,
    /// The tool the key resolves to (passed to the filter; its id names the row).
    pub tool_handle: u32,
    /// The tool whose description the row shows.
    pub doc_handle: Option<u32>,
}

/// Search knobs, as in `ToolSearchProcessorOptions.search`.
#[derive(Debug, Clone, Copy)]
pub struct SearchParams {
    pub top_k: usize,
    pub min_score: f64,
    /// A filter is configured: inspect every BM25 match (the caller stops after `top_k`
    /// allowed hits), instead of cutting at `top_k * 2` before boosting.
    pub inspect_all: bool,
}

#[derive(Debug)]
pub struct ToolCatalog {
    entries: Entries<'static>,
    names: Names,
    ranker: Ranker,
    /// doc slot -> entry position of the tool that (last) indexed it
    slot_entry: Vec<u32>,
}

/// How a catalog ranks: exactly like `@mastra/core` 1.59.0, or the enhanced analysis.
#[derive(Debug)]
enum Ranker {
    Compatible { vocab: Arc<Vocab>, index: Box<Bm25Index> },
    Enhanced(Box<EnhancedIndex>),
    /// Enhanced ranking fused with the static embedding model's (see [`crate::semantic`]).
    Hybrid(Box<HybridRanker>),
}

/// JavaScript array-index keys (`"0"`, `"42"`, not `"01"`) enumerate first, ascending.
pub fn is_array_index(key: &str) -> bool {
    if key.is_empty() || key.len() > 10 || !key.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if key.len() > 1 && key.starts_with('0') {
        return false;
    }
    key.parse::<u64>().is_ok_and(|n| n < u64::from(u32::MAX))
}

impl ToolCatalog {
    /// Number of entries (tools).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.len() == 0
    }

    /// Whether this catalog ranks with the enhanced analysis.
    pub fn is_enhanced(&self) -> bool {
        matches!(self.ranker, Ranker::Enhanced(_) | Ranker::Hybrid(_))
    }

    /// Whether this catalog ranks with the hybrid (lexical + semantic) search.
    pub fn is_hybrid(&self) -> bool {
        matches!(self.ranker, Ranker::Hybrid(_))
    }

    /// Heap bytes held, by part (capacities, not allocator overhead), for memory reports.
    #[doc(hidden)]
    pub fn heap_parts(&self) -> Vec<(&'static str, usize)> {
        let mut parts = vec![
            ("entries", self.entries.heap_bytes()),
            ("name maps", self.names.heap_bytes()),
            ("slot_entry", self.slot_entry.capacity() * 4),
        ];
        if let Ranker::Compatible { vocab, index } = &self.ranker {
            parts.push(("vocab", vocab.heap_bytes()));
            parts.extend(index.heap_parts());
        }
        parts
    }
}
