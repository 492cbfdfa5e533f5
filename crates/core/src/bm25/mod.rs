//! Okapi BM25 with the exact arithmetic and ordering of `@mastra/core`'s `BM25Index`.
//!
//! Documents are lists of interned term ids. Postings keep documents in the order they
//! were (last) added, which is the iteration order of the reference's `Set`s, and scores
//! are accumulated query token by query token, so floating-point sums and tie order are
//! the same as in JavaScript.
//!
//! One file per concern: [`vocab`] interns terms, [`docs`] holds documents as term counts,
//! [`postings`] the posting lists and their layouts, [`forward`] the per-document tables,
//! [`build`] builds and changes an index, [`score`] scores exhaustively, and [`prune`]
//! finds the top documents without scoring every match.

use rustc_hash::FxHashMap as HashMap;

mod build;
mod docs;
mod forward;
mod postings;
mod prune;
mod score;
mod vocab;
#[cfg(test)]
mod tests;

pub use docs::{DocSet, TermCounts};
pub use score::top_by_score;
pub use vocab::Vocab;

use forward::{CommonRow, CommonTf, DocMeta, Forward};
use postings::{Posting, Postings};

/// BM25 index. Documents live in slots; a removed document leaves its slot empty.
#[derive(Debug)]
pub struct Bm25Index {
    k1: f64,
    b: f64,
    /// The forward index: per slot, its (term, shape) pairs in first-occurrence order at
    /// `meta[slot].fwd.0..meta[slot].fwd.1`. Exact scores of the few documents that can
    /// make the top are computed from it.
    fwd: Forward,
    /// Per slot, what pruning reads about a candidate document, in one cache line.
    meta: Vec<DocMeta>,
    alive: Vec<bool>,
    /// The posting lists, one after another: term t's is `postings[starts[t]..starts[t + 1]]`
    /// (one allocation for all terms, not one per term: catalogs have many rare words).
    postings: Postings,
    starts: Vec<u32>,
    /// Per term: the largest tf and the shortest document length among its postings (ever;
    /// removals leave them as they are, which keeps them bounds). A term's score in any
    /// document is at most its score at (max tf, min length), which lets [`Self::score_top`]
    /// skip documents that cannot reach the top.
    max_tf: Vec<u32>,
    min_len: Vec<u32>,
    /// Per term: the largest tf/(tf + k1(1 - b + b·len/avgdl)) among its postings at
    /// `sat_avgdl` — a tight bound while the average length is that one and no document
    /// was added since (NaN otherwise; removals only lower the true maximum).
    max_sat: Vec<f64>,
    sat_avgdl: f64,
    /// Distinct (tf, document length) pairs of the postings, and where each one is.
    shapes: Vec<(u32, u32)>,
    shape_ids: HashMap<u64, u32>,
    /// Per shape: [`saturation`] at `sat_avgdl` (the same operations, so scores computed
    /// from it are bit-identical); stale (shorter than `shapes`, or another average
    /// length) after a document is added or removed until [`Self::refresh_saturation`].
    shape_sat: Vec<f64>,
    /// Per slot, its token count (0 once removed) and the most frequent terms' tf in it
    /// (see [`CommonTf`]).
    common: CommonTf,
    live: usize,
    total_len: u64,
}

/// A scored document: its slot and raw BM25 score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    pub slot: u32,
    pub score: f64,
}

impl Default for Bm25Index {
    fn default() -> Self {
        Self::new(1.5, 0.75)
    }
}

impl Bm25Index {
    pub fn new(k1: f64, b: f64) -> Self {
        Self {
            k1,
            b,
            fwd: Forward::default(),
            meta: Vec::new(),
            alive: Vec::new(),
            postings: Postings::Wide(Vec::new()),
            starts: vec![0],
            max_tf: Vec::new(),
            min_len: Vec::new(),
            max_sat: Vec::new(),
            sat_avgdl: f64::NAN,
            shapes: Vec::new(),
            shape_ids: HashMap::default(),
            shape_sat: Vec::new(),
            common: CommonTf::default(),
            live: 0,
            total_len: 0,
        }
    }

    /// Heap bytes held, by part (capacities, not counting allocator overhead): what the
    /// memory benchmarks break down.
    pub fn heap_parts(&self) -> Vec<(&'static str, usize)> {
        use std::mem::size_of;
        let lists = match &self.postings {
            Postings::Packed10(entries) | Postings::Packed13(entries) | Postings::Packed16(entries) => entries.capacity() * 4,
            Postings::Wide(entries) => entries.capacity() * size_of::<Posting>(),
        };
        vec![
            ("bm25 forward index", self.fwd.heap_bytes()),
            ("bm25 doc meta+alive", self.meta.capacity() * 32 + self.alive.capacity()),
            ("bm25 postings", lists),
            ("bm25 per-term (list starts, bounds)", self.starts.capacity() * 4 + self.max_tf.capacity() * 4 + self.min_len.capacity() * 4 + self.max_sat.capacity() * 8),
            ("bm25 shapes", self.shapes.capacity() * 8 + self.shape_ids.capacity() * 13 + self.shape_sat.capacity() * 8),
            ("bm25 lengths + common-term tf", self.common.rows.capacity() * std::mem::size_of::<CommonRow>()),
            ("bm25 posting lists (count)", self.terms()),
        ]
    }

    /// Number of live documents.
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Term counts of a live document.
    pub fn doc(&self, slot: u32) -> Option<TermCounts> {
        let s = slot as usize;
        if !self.alive.get(s).copied().unwrap_or(false) {
            return None;
        }
        let mut counts = Vec::new();
        self.fwd.each(self.meta[s].fwd, |term, shape| counts.push((term, self.shapes[shape as usize].0)));
        Some(TermCounts { counts, len: self.common.rows[s].len })
    }

    /// Number of slots (live or removed).
    fn slots(&self) -> usize {
        self.alive.len()
    }

    /// Number of terms with a (possibly empty) posting list.
    fn terms(&self) -> usize {
        self.starts.len() - 1
    }
}
