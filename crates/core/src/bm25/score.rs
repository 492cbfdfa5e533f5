//! Exhaustive scoring: every matching document, with the reference's arithmetic and
//! order ([`Bm25Index::score`], [`Bm25Index::top_dense`], [`top_by_score`]).

use crate::jsmath::js_log;

use super::postings::{with_lists, Layout, Lists, Packed, Postings, Wide};
use super::{Bm25Index, Scored};

impl Bm25Index {
    /// Document frequency of a term.
    pub fn df(&self, term: u32) -> usize {
        match (self.starts.get(term as usize), self.starts.get(term as usize + 1)) {
            (Some(&from), Some(&to)) => (to - from) as usize,
            _ => 0,
        }
    }

    pub(super) fn avgdl(&self) -> f64 {
        if self.live == 0 {
            0.0
        } else {
            // An integer sum is exact, so this equals the reference's full re-summation.
            self.total_len as f64 / self.live as f64
        }
    }

    /// Robertson–Spärck Jones idf as the reference computes it.
    pub fn idf(&self, df: usize) -> f64 {
        let n = self.live as f64;
        let df = df as f64;
        js_log((n - df + 0.5) / (df + 0.5) + 1.0)
    }

    /// Scores every document matching at least one query term. Query terms are given in
    /// query order with duplicates (`None` = not in the vocabulary). The result is in
    /// score-map insertion order: grouped by the first matching query term, then by slot
    /// order — the order the reference's stable sort starts from.
    pub fn score(&self, query_terms: &[Option<u32>]) -> Vec<Scored> {
        if self.live == 0 {
            return Vec::new();
        }
        with_lists!(self, |lists| self.score_in(lists, query_terms))
    }

    fn score_in<L: Layout>(&self, lists: Lists<'_, L>, query_terms: &[Option<u32>]) -> Vec<Scored> {
        let layout = lists.layout;
        let avgdl = self.avgdl();
        let expected = query_terms.iter().flatten().map(|&t| self.df(t)).max().unwrap_or(0);
        let mut out: Vec<Scored> = Vec::with_capacity(expected);
        POSITIONS.with(|cell| {
            // 1 + position of each touched slot in `out`; 0 = untouched. The buffer is reused
            // across searches (allocating it per search costs page faults on big catalogs)
            // and only the touched entries are reset afterwards.
            let fast = self.one_tf_valid(avgdl);
            let mut position = cell.borrow_mut();
            if position.len() < self.slots() {
                position.resize(self.slots(), 0);
            }
            for term in query_terms.iter().flatten() {
                let list = lists.get(*term);
                if list.is_empty() {
                    continue;
                }
                let idf = self.idf(list.len());
                // Posting lists hold live documents only (removal rebuilds them).
                for &p in list {
                    let term_score = self.contribution(idf, layout.shape(p), fast, avgdl);
                    let slot = layout.slot(p);
                    let pos = &mut position[slot as usize];
                    if *pos == 0 {
                        out.push(Scored { slot, score: 0.0 + term_score });
                        *pos = out.len() as u32;
                    } else {
                        out[*pos as usize - 1].score += term_score;
                    }
                }
            }
            for s in &out {
                position[s.slot as usize] = 0;
            }
        });
        out
    }

    /// Exactly `top_by_score(self.score(query_terms), limit)` for `limit` up to
    /// [`SMALL_LIMIT`], scoring every matching document into a dense per-slot accumulator.
    /// Slots are recorded in the order they are first touched, which is the reference's
    /// score-map insertion order, so ties keep their stable-sort order.
    pub fn top_dense(&self, query_terms: &[Option<u32>], limit: usize) -> Vec<Scored> {
        if self.live == 0 || limit == 0 {
            return Vec::new();
        }
        with_lists!(self, |lists| self.top_dense_in(lists, query_terms, limit))
    }

    fn top_dense_in<L: Layout>(&self, lists: Lists<'_, L>, query_terms: &[Option<u32>], limit: usize) -> Vec<Scored> {
        let layout = lists.layout;
        let avgdl = self.avgdl();
        let fast = self.one_tf_valid(avgdl);
        // Taken out of the thread-local so the loop works on plain locals (through the
        // RefCell the compiler reloads the Vec headers on every posting).
        let (mut acc, mut touched) = DENSE.with(|cell| std::mem::take(&mut *cell.borrow_mut()));
        if acc.len() < self.slots() {
            acc.resize(self.slots(), 0.0);
        }
        // one spare entry: the branch-free append writes before it counts
        if touched.len() < self.slots() + 1 {
            touched.resize(self.slots() + 1, 0);
        }
        let mut len = 0usize;
        for term in query_terms.iter().flatten() {
            let list = lists.get(*term);
            if list.is_empty() {
                continue;
            }
            let idf = self.idf(list.len());
            accumulate(&mut acc, &mut touched, &mut len, list, layout, |shape| self.contribution(idf, shape, fast, avgdl));
        }
        let mut best: Vec<Scored> = Vec::with_capacity(limit + 1);
        for &slot in &touched[..len] {
            let score = std::mem::take(&mut acc[slot as usize]);
            if best.len() == limit && score <= best[limit - 1].score {
                continue;
            }
            let at = best.partition_point(|b| b.score >= score);
            best.insert(at, Scored { slot, score });
            best.truncate(limit);
        }
        DENSE.with(|cell| *cell.borrow_mut() = (acc, touched));
        best
    }

    /// Whether `shape_sat` holds this average length's values for every shape.
    #[inline]
    pub(super) fn one_tf_valid(&self, avgdl: f64) -> bool {
        avgdl.to_bits() == self.sat_avgdl.to_bits() && self.shape_sat.len() == self.shapes.len()
    }

    /// [`term_score`] of a posting; `fast` = [`Self::one_tf_valid`].
    #[inline(always)]
    pub(super) fn contribution(&self, idf: f64, shape: u32, fast: bool, avgdl: f64) -> f64 {
        if fast {
            idf * self.shape_sat[shape as usize]
        } else {
            let (tf, len) = self.shapes[shape as usize];
            term_score(idf, tf, len, self.k1, self.b, avgdl)
        }
    }

    /// `top_by_score(self.score(query_terms), limit)`, the fastest way for `limit`.
    pub(super) fn top_exhaustive(&self, query_terms: &[Option<u32>], limit: usize) -> Vec<Scored> {
        if limit <= SMALL_LIMIT {
            self.top_dense(query_terms, limit)
        } else {
            top_by_score(self.score(query_terms), limit)
        }
    }
}

/// Adds each posting's score into `acc`, recording slots in the order they are first
/// touched (scores are positive, so 0.0 means untouched). `touched` has room for every
/// slot; `len` is how many it holds. Branch-free: the first-touch test is unpredictable.
#[inline(always)]
fn accumulate<L: Layout>(acc: &mut [f64], touched: &mut [u32], len: &mut usize, list: &[L::Entry], layout: L, score: impl Fn(u32) -> f64) {
    for &p in list {
        let ts = score(layout.shape(p));
        let slot = layout.slot(p);
        let a = &mut acc[slot as usize];
        touched[*len] = slot;
        *len += usize::from(*a == 0.0);
        *a += ts;
    }
}

/// One query term's BM25 contribution to one document, with the reference's operations in
/// the reference's order (every path that produces a returned score uses this, or the
/// precomputed [`saturation`] for tf 1, which is the same operations).
#[inline(always)]
pub(super) fn term_score(idf: f64, tf: u32, len: u32, k1: f64, b: f64, avgdl: f64) -> f64 {
    idf * saturation(tf, len, k1, b, avgdl)
}

/// `tf·(k1 + 1) / (tf + k1(1 - b + b·len/avgdl))`, as the reference computes it.
#[inline(always)]
pub(super) fn saturation(tf: u32, len: u32, k1: f64, b: f64, avgdl: f64) -> f64 {
    let tf = f64::from(tf);
    let numerator = tf * (k1 + 1.0);
    let denominator = tf + k1 * (1.0 - b + b * (f64::from(len) / avgdl));
    numerator / denominator
}

/// Stable descending sort by score, keeping the first `limit` — identical to
/// `results.sort((a, b) => b.score - a.score).slice(0, limit)` for finite scores.
pub fn top_by_score(mut scored: Vec<Scored>, limit: usize) -> Vec<Scored> {
    if limit == 0 {
        return Vec::new();
    }
    if limit <= SMALL_LIMIT && limit < scored.len() {
        // One pass keeping the best `limit` in order. Later elements lose ties, which is what
        // a stable sort does, so an element enters only when strictly better than the worst.
        let mut best: Vec<Scored> = Vec::with_capacity(limit + 1);
        for s in scored {
            if best.len() == limit && s.score <= best[limit - 1].score {
                continue;
            }
            let at = best.partition_point(|b| b.score >= s.score);
            best.insert(at, s);
            best.truncate(limit);
        }
        return best;
    }
    if limit < scored.len() {
        // Select with (score desc, original position asc): the same order a stable sort gives.
        let mut keyed: Vec<(usize, Scored)> = scored.into_iter().enumerate().collect();
        let cmp = |a: &(usize, Scored), b: &(usize, Scored)| {
            b.1.score.total_cmp(&a.1.score).then(a.0.cmp(&b.0))
        };
        keyed.select_nth_unstable_by(limit - 1, cmp);
        keyed.truncate(limit);
        keyed.sort_unstable_by(cmp);
        return keyed.into_iter().map(|(_, s)| s).collect();
    }
    scored.sort_by(|a, b| b.score.total_cmp(&a.score));
    scored
}

/// Cut-offs up to this size use the single-pass selection in [`top_by_score`].
pub(super) const SMALL_LIMIT: usize = 64;

thread_local! {
    /// Per-thread scratch for [`Bm25Index::top_dense`]: scores by slot (zeros between calls), touched slots.
    static DENSE: std::cell::RefCell<(Vec<f64>, Vec<u32>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
    /// Per-thread scratch for [`Bm25Index::score`]; all zeros between calls.
    static POSITIONS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}
