//! Compatible and enhanced ranking: the reference's BM25 with its name boost, minScore and id
//! resolution, or the enhanced index's scores through the same filters.

use super::{Hit, Ranker, SearchParams, ToolCatalog};
use crate::bm25::{top_by_score, Bm25Index, Vocab};
use crate::enhanced::EnhancedIndex;
use crate::tokenizer::for_each_compat_token;

/// `text.to_lowercase()`, borrowing when there is nothing to lower (tool names mostly).
fn lowercase(text: &str) -> std::borrow::Cow<'_, str> {
    if text.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(text.to_lowercase())
    }
}

/// The set of adjacent byte pairs of `text`, hashed into 256 bits: a string can only
/// contain another whose pairs it has, so most name boosts skip the substring search.
fn byte_pairs(text: &str) -> [u64; 4] {
    let mut set = [0u64; 4];
    for w in text.as_bytes().windows(2) {
        let h = (usize::from(w[0]).wrapping_mul(31) + usize::from(w[1])) & 255;
        set[h / 64] |= 1 << (h % 64);
    }
    set
}

/// Whether every pair of `part` is in `whole`.
fn covers(whole: &[u64; 4], part: &[u64; 4]) -> bool {
    whole.iter().zip(part).all(|(w, p)| p & !w == 0)
}

/// `score > min`, with NaN on either side counting as not above (as in JavaScript).
fn above(score: f64, min: f64) -> bool {
    score.partial_cmp(&min) == Some(std::cmp::Ordering::Greater)
}

impl ToolCatalog {
    /// BM25 + name boost + minScore + id resolution, in the reference's order.
    /// Without `inspect_all` at most `top_k` hits come back; with it, every candidate does.
    pub fn search(&self, query: &str, params: SearchParams) -> Vec<Hit> {
        // No search returns more hits than there are tools: a larger `top_k` (up to
        // u32::MAX from JS) means the same and must not size the rankers' buffers.
        let params = SearchParams { top_k: params.top_k.min(self.len()), ..params };
        match &self.ranker {
            Ranker::Compatible { vocab, index } => self.search_compatible(vocab, index, query, params, true),
            Ranker::Enhanced(index) => self.search_enhanced(index, query, params),
            Ranker::Hybrid(hybrid) => self.search_hybrid(hybrid, query, params),
        }
    }

    /// [`Self::search`] scoring every matching document (no dynamic pruning, no top-k
    /// shortcut): the reference the fast paths are tested against.
    #[doc(hidden)]
    pub fn search_exhaustive(&self, query: &str, params: SearchParams) -> Vec<Hit> {
        match &self.ranker {
            Ranker::Compatible { vocab, index } => self.search_compatible(vocab, index, query, params, false),
            Ranker::Enhanced(index) => self.hits_from(index.search(query), params),
            Ranker::Hybrid(hybrid) => self.search_hybrid(hybrid, query, params),
        }
    }

    /// Enhanced ranking; minScore applies to the enhanced score, and search still returns
    /// only tools whose id is their name, as in compatible mode.
    fn search_enhanced(&self, index: &EnhancedIndex, query: &str, params: SearchParams) -> Vec<Hit> {
        let walk = |ranked: &[(u32, f64)]| self.hits_from(ranked.iter().copied(), params);
        if params.inspect_all {
            return walk(&index.search(query));
        }
        if params.top_k == 0 {
            return Vec::new();
        }
        let top = index.search_top(query, params.top_k);
        let hits = walk(&top);
        // Skipped candidates (minScore, id-less tools) may leave room for lower-ranked ones.
        if hits.len() < params.top_k && top.len() == params.top_k {
            return walk(&index.search(query));
        }
        hits
    }

    fn search_compatible(&self, vocab: &Vocab, index: &Bm25Index, query: &str, params: SearchParams, prune: bool) -> Vec<Hit> {
        if index.is_empty() {
            return Vec::new();
        }
        // The tokens, one after another in one string (no allocation per token).
        let (mut text, mut ends) = (String::with_capacity(query.len()), Vec::new());
        for_each_compat_token(query, |t| {
            text.push_str(t);
            ends.push(text.len());
        });
        if ends.is_empty() {
            return Vec::new();
        }
        let tokens: Vec<&str> = ends.iter().scan(0, |from, &end| Some(&text[std::mem::replace(from, end)..end])).collect();
        let terms: Vec<Option<u32>> = tokens.iter().map(|t| vocab.get(t)).collect();
        let limit = if params.inspect_all { index.len() } else { params.top_k.saturating_mul(2) };
        // The reference cuts at `topK * 2` before boosting; that cut is exactly the pruned
        // top (same documents, order and scores), so only a filter needs every match.
        let mut boosted = if prune && !params.inspect_all {
            index.score_top(&terms, limit)
        } else {
            top_by_score(index.score(&terms), limit)
        };
        let token_pairs: Vec<[u64; 4]> = tokens.iter().map(|t| byte_pairs(t)).collect();
        // The hits' names, gathered (and their first bytes read) before any is used: the
        // loads are independent, so their cache misses overlap instead of queueing.
        let names: Vec<&str> = boosted.iter().map(|hit| self.entries.name(self.slot_entry[hit.slot as usize] as usize)).collect();
        std::hint::black_box(names.iter().fold(0u8, |acc, name| acc ^ name.as_bytes().first().copied().unwrap_or(0)));
        for (hit, name) in boosted.iter_mut().zip(names) {
            let name = lowercase(name);
            let name_pairs = byte_pairs(&name);
            for (token, pairs) in tokens.iter().zip(&token_pairs) {
                if *name == **token {
                    hit.score += 5.0;
                } else if covers(&name_pairs, pairs) && name.contains(token) {
                    hit.score += 2.0;
                }
            }
        }
        boosted.sort_by(|a, b| b.score.total_cmp(&a.score));

        self.hits_from(boosted.into_iter().map(|s| (s.slot, s.score)), params)
    }

    /// Ranked `(slot, score)` pairs as hits, in order: scores above `minScore`, documents
    /// whose name is some tool's *id* (id-less tools never match, as in the reference), at
    /// most `top_k` of them unless `inspect_all`.
    fn hits_from(&self, ranked: impl IntoIterator<Item = (u32, f64)>, params: SearchParams) -> Vec<Hit> {
        self.slotted_hits_from(ranked, params).into_iter().map(|(hit, _)| hit).collect()
    }

    /// [`Self::hits_from`], each hit with its slot.
    pub(super) fn slotted_hits_from(&self, ranked: impl IntoIterator<Item = (u32, f64)>, params: SearchParams) -> Vec<(Hit, u32)> {
        let mut hits = Vec::new();
        for (slot, score) in ranked {
            if !above(score, params.min_score) {
                continue;
            }
            let pos = self.slot_entry[slot as usize] as usize;
            let Some(handle) = self.by_id(self.entries.name(pos)) else { continue };
            hits.push((Hit { handle, doc_handle: self.entries.handle(pos), score }, slot));
            if !params.inspect_all && hits.len() >= params.top_k {
                break;
            }
        }
        hits
    }
}

