//! Ranking: the query's posting lists by descending bound, accumulated per document, then
//! the coverage factors and the top `limit`, passing over documents that cannot make it.

use super::accumulate::{Accumulators, Scratch, PACKED_TERMS, SCRATCH};
use super::expand::QueryTerms;
use super::postings::Postings;
use super::super::action::Actions;
use super::{EnhancedIndex, FIELDS, SCORE_SLACK};

/// A query term's posting list as [`EnhancedIndex::score_top`] reads it.
pub(super) struct RankedList {
    term: usize,
    /// the query weight times the term's idf
    weight: f32,
    /// its place among the query's covering terms, if it is one
    covering: Option<usize>,
    /// what it adds to any score at most
    bound: f32,
}

/// `search_top` limits up to this keep their best documents while scoring instead of
/// collecting and sorting every hit.
const SMALL_TOP: usize = 64;

/// From this many documents, `search_top` bounds a document's coverage factor by the fields
/// it matched before reading its field masses (then a cache miss: 100,000 realistic tools,
/// p50 −4%; at 40,000 it neither gains nor loses, below it costs more than it saves).
const BIG_CATALOG: usize = 50_000;

/// From this many documents, searches with few enough covering terms use the [`Packed`]
/// accumulators (100,000 realistic tools, p50 −5%; at 10,000, where the accumulators fit
/// in the cache anyway, +6%).
const PACKED_CATALOG: usize = 50_000;

impl EnhancedIndex {
    /// Per matching query term: (term, its BM25F contribution to `doc`'s score before the
    /// coverage factors). For the quality harness's miss analysis.
    #[doc(hidden)]
    pub fn explain(&self, query: &str, doc: u32) -> Vec<(String, f32)> {
        let mut names: Vec<&str> = vec![""; self.dict.len()];
        for (k, &v) in &self.dict {
            names[v as usize] = k;
        }
        let mut out = Vec::new();
        for &(t, w, _) in &self.query_terms(query).terms {
            let (a, b) = (self.offsets[t as usize] as usize, self.offsets[t as usize + 1] as usize);
            if let Some(v) = self.postings.value_of(a..b, doc) {
                out.push((names[t as usize].to_owned(), w * self.idf[t as usize] * v));
            }
        }
        out
    }

    /// All documents with a positive score, best first; ties by ascending doc index.
    pub fn search(&self, query: &str) -> Vec<(u32, f64)> {
        self.search_top(query, usize::MAX)
    }

    /// The best `limit` documents of [`search`](Self::search), in the same order.
    pub fn search_top(&self, query: &str, limit: usize) -> Vec<(u32, f64)> {
        self.search_top_bounded(query, limit, self.docs >= BIG_CATALOG)
    }

    /// [`Self::search_top`], bounding coverage factors by the matched fields (`by_fields`,
    /// what large catalogs do) or not; tests force either.
    pub(super) fn search_top_bounded(&self, query: &str, limit: usize, by_fields: bool) -> Vec<(u32, f64)> {
        self.search_top_with(query, limit, by_fields, self.docs >= PACKED_CATALOG)
    }

    /// [`Self::search_top_bounded`]; `packed`: allow the [`Packed`] accumulators (tests
    /// compare both layouts).
    pub(crate) fn search_top_with(&self, query: &str, limit: usize, by_fields: bool, packed: bool) -> Vec<(u32, f64)> {
        if self.docs == 0 || limit == 0 {
            return Vec::new();
        }
        let q = self.query_terms(query);
        if q.terms.is_empty() {
            return Vec::new();
        }
        let (lists, credits) = self.ranked_lists(&q);
        let wanted = self.query_actions(query);
        // The matched mass is kept for the covered fields only, densely numbered: with the
        // shipped tuning, as bits beside the score when the query has few enough covering
        // terms, or 8 bytes a document beside the scores (fewer cache misses on big catalogs
        // than one place per field).
        SCRATCH.with(|cell| {
            let Scratch { packed: packed_acc, split2, split_all, touched } = &mut *cell.borrow_mut();
            if self.covered.len() <= 2 && packed && credits.len() <= PACKED_TERMS {
                self.score_top::<2, _>(&lists, &credits, wanted, limit, by_fields, packed_acc.view(self.docs), touched)
            } else if self.covered.len() <= 2 {
                self.score_top::<2, _>(&lists, &credits, wanted, limit, by_fields, split2.view(self.docs), touched)
            } else {
                self.score_top::<FIELDS, _>(&lists, &credits, wanted, limit, by_fields, split_all.view(self.docs), touched)
            }
        })
    }

    /// The query's posting lists by descending bound, and the covering ones' idf (their
    /// credits toward coverage) in that order.
    pub(super) fn ranked_lists(&self, q: &QueryTerms) -> (Vec<RankedList>, Vec<f32>) {
        let any_coverage = self.tuning.coverage.iter().any(|&w| w > 0.0);
        // The terms by descending bound (weight × largest value): a document first touched
        // by the i-th holds none of the terms before it, so its score is at most the sum of
        // the bounds from the i-th on, and the documents last to be touched (by the long,
        // low-weight lists) can be passed over together once that sum cannot make the top.
        let mut lists: Vec<RankedList> = Vec::with_capacity(q.terms.len());
        for &(t, w, covers) in &q.terms {
            let term = t as usize;
            let weight = w * self.idf[term];
            // a zero contribution would leave the score at 0 and re-list the document
            // NaN weights count as zero, like non-positive ones.
            if weight.partial_cmp(&0.0) == Some(std::cmp::Ordering::Greater) {
                let covering = (covers && any_coverage).then_some(0);
                lists.push(RankedList { term, weight, covering, bound: weight * self.max_val[term] });
            }
        }
        lists.sort_by(|a, b| b.bound.total_cmp(&a.bound));
        let mut credits: Vec<f32> = Vec::new();
        for l in &mut lists {
            if let Some(place) = &mut l.covering {
                *place = credits.len();
                credits.push(self.idf[l.term]);
            }
        }
        (lists, credits)
    }

    /// [`Self::search_top`]'s scoring of the query's `lists` (by descending bound;
    /// `credits`: the covering ones' idf), with matched mass kept in K places (at least the
    /// number of covered fields).
    pub(super) fn score_top<const K: usize, A: Accumulators<K>>(
        &self,
        lists: &[RankedList],
        credits: &[f32],
        wanted: Actions,
        limit: usize,
        by_fields: bool,
        mut acc: A,
        touched: &mut Vec<u32>,
    ) -> Vec<(u32, f64)> {
        let coverage = self.tuning.coverage;
        let any_coverage = coverage.iter().any(|&w| w > 0.0);
        // per place: its field, the covered ones ascending (`FIELDS` for an unused place)
        let fields: [usize; K] = std::array::from_fn(|k| self.covered.get(k).copied().unwrap_or(FIELDS));
        // per place: the coverage bit of its field (8, never set, for an unused place)
        let bit_of: [u8; K] = std::array::from_fn(|k| if fields[k] < FIELDS { fields[k] as u8 } else { 8 });
        // (branch-free first-touch recording, as the compatible path does: room for every
        // listing plus the spare slot the unconditional write uses. A document is listed
        // once, unless a posting worth 0 — say, a term only in fields weighted 0 — leaves
        // its score at 0 and it is listed again: at most once per posting in any case.)
        let postings: usize = lists.iter().map(|l| (self.offsets[l.term + 1] - self.offsets[l.term]) as usize).sum();
        if touched.len() < postings + 1 {
            touched.resize(postings + 1, 0);
        }
        let mut len = 0usize;
        // Per list: where its first touches start in `touched`; the bound of a document first
        // touched there (f64 sums with slack over the f32 rounding of scores); and whether a
        // covering list comes at or after it (a document first touched after the last
        // covering list matched no covering term, so its coverage factor is 1). A document
        // is listed at its first touch, where its score is still 0, and scored at its first
        // listing; a posting worth 0 only lists it again, to read 0 there.
        let mut sections: Vec<(usize, f64, bool)> = vec![(0, 0.0, true); lists.len()];
        let (mut rest, mut covering) = (0.0f64, false);
        for (section, l) in sections.iter_mut().zip(lists).rev() {
            rest += f64::from(l.bound);
            covering |= l.covering.is_some();
            *section = (0, rest * (1.0 + SCORE_SLACK), covering);
        }
        for (l, section) in lists.iter().zip(&mut sections) {
            section.0 = len;
            let (a, b) = (self.offsets[l.term] as usize, self.offsets[l.term + 1] as usize);
            let qw = l.weight;
            match (&self.postings, l.covering) {
                (Postings::Packed { entries, pairs }, Some(place)) => {
                    let credit = credits[place];
                    for &e in &entries[a..b] {
                        let (v, c) = pairs[(e & 255) as usize];
                        touched[len] = e >> 8;
                        len += usize::from(acc.add_covering((e >> 8) as usize, qw * v, c, place, credit, &bit_of));
                    }
                }
                (Postings::Packed { entries, pairs }, None) => {
                    for &e in &entries[a..b] {
                        touched[len] = e >> 8;
                        len += usize::from(acc.add((e >> 8) as usize, qw * pairs[(e & 255) as usize].0));
                    }
                }
                (Postings::Split { doc, val, cov }, Some(place)) => {
                    let credit = credits[place];
                    for ((&d, &v), &c) in doc[a..b].iter().zip(&val[a..b]).zip(&cov[a..b]) {
                        touched[len] = d;
                        len += usize::from(acc.add_covering(d as usize, qw * v, c, place, credit, &bit_of));
                    }
                }
                (Postings::Split { doc, val, .. }, None) => {
                    for (&d, &v) in doc[a..b].iter().zip(&val[a..b]) {
                        touched[len] = d;
                        len += usize::from(acc.add(d as usize, qw * v));
                    }
                }
            }
        }
        let cmp = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        // A small `limit` keeps its best documents in order as they come (most are
        // turned away by one comparison); otherwise every hit is collected and sorted.
        let keep_top = limit <= SMALL_TOP;
        let mut hits: Vec<(u32, f32)> = Vec::with_capacity(if keep_top { limit + 1 } else { len });
        // The coverage factors multiply a score by at most this (plus rounding slack):
        // a kept-top document below the last kept one even at that skips them.
        // The action factor (see `super::super::action`) multiplies it by at most `action_max`
        // (what bounds a section of documents not read yet); a document read is bounded by
        // its own (one lookup), so the bonus does not loosen the per-document skips.
        let action_max = self.max_action_factor(wanted);
        let weigh_actions = !wanted.is_empty() && !self.actions.is_empty();
        let coverage_max = coverage.iter().filter(|&&w| w > 0.0).fold(1.0f32, |p, &w| p * (1.0 + w)) * 1.001;
        let max_factor = coverage_max * action_max;
        // Large catalogs: per set of places with matched mass, the largest product of their
        // factors (a tighter bound than `max_factor` that needs no field masses).
        let factor_of_mask: Vec<f32> = if by_fields {
            (0..1usize << K)
                .map(|mask| {
                    (0..K)
                        // (a place with a field is a covered one: its weight is positive)
                        .filter(|&k| mask >> k & 1 == 1 && fields[k] < FIELDS)
                        .fold(1.001f32, |p, k| p * (1.0 + coverage[fields[k]]))
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut next_section = 0usize;
        for (i, &d) in touched[..len].iter().enumerate() {
            if next_section < sections.len() && sections[next_section].0 == i {
                // (a section may be empty: skip to the last one starting here)
                while next_section + 1 < sections.len() && sections[next_section + 1].0 == i {
                    next_section += 1;
                }
                let (_, most, covering) = sections[next_section];
                let bound = most * f64::from(if covering { max_factor } else { 1.001 * action_max });
                next_section += 1;
                if keep_top && hits.len() == limit && bound < f64::from(hits[limit - 1].1) {
                    // No document from here on can make the top: only reset them.
                    for &d in &touched[i..len] {
                        acc.take_score(d as usize);
                        if any_coverage {
                            acc.clear_matched(d as usize);
                        }
                    }
                    break;
                }
            }
            let d_ = d as usize;
            let mut s = acc.take_score(d_);
            let action = if weigh_actions { self.action_factor(wanted, d) } else { 1.0 };
            if keep_top && hits.len() == limit && s * coverage_max * action < hits[limit - 1].1 {
                if any_coverage {
                    acc.clear_matched(d_);
                }
                continue;
            }
            if any_coverage {
                let n = self.covered.len();
                // Only the fields it matched can raise it: their factors' largest product
                // bounds it before its field masses are read (in a large catalog, a cache
                // miss).
                if by_fields && keep_top && hits.len() == limit && s * factor_of_mask[acc.matched_places(d_)] * action < hits[limit - 1].1 {
                    acc.clear_matched(d_);
                    continue;
                }
                let m = acc.take_matched(d_, credits);
                let mass = &self.cov_mass[d_ * n..(d_ + 1) * n];
                for (k, &f) in fields[..n].iter().enumerate() {
                    if mass[k] > 0.0 {
                        s *= 1.0 + coverage[f] * (m[k] / mass[k]).min(1.0);
                    }
                }
            }
            if weigh_actions {
                s *= action;
            }
            if s > 0.0 {
                let hit = (d, s);
                if !keep_top {
                    hits.push(hit);
                } else if hits.len() < limit || cmp(&hit, &hits[limit - 1]).is_lt() {
                    let at = hits.partition_point(|h| cmp(h, &hit).is_lt());
                    hits.insert(at, hit);
                    hits.truncate(limit);
                }
            }
        }
        if !keep_top && limit < hits.len() {
            hits.select_nth_unstable_by(limit - 1, cmp);
            hits.truncate(limit);
        }
        hits.sort_unstable_by(cmp);
        hits.into_iter().map(|(d, s)| (d, f64::from(s))).collect()
    }
}
