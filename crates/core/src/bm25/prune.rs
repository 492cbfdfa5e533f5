//! Exact top-k without scoring every match: term-at-a-time dynamic pruning with per-term
//! upper bounds ("quit and continue").
//!
//! [`Bm25Index::score_top`] sets a query up ([`QueryLists`]) and hands it to [`TopK`],
//! whose steps each keep one promise: the result is exactly the exhaustive path's top
//! `limit` (documents, order and score bits). In order:
//!
//! 1. [`TopK::read_lists`] adds whole posting lists, highest bound first, into f32
//!    partial scores until no document outside the read lists can make the top.
//! 2. [`TopK::score_touched`] takes the touched documents: the leaders by partial score
//!    are scored exactly to raise the threshold ([`TopK::offer_leaders`]); those that can
//!    still reach it are kept ([`TopK::collect_candidates`]); each kept one is bounded by
//!    what the unread terms can add at it ([`CandidateBounds::may_reach`]) and scored exactly if it
//!    can make the top ([`TopK::exact`]).
//! 3. [`TopK::finish`] leaves the per-thread scratch all zeros for the next search.

use super::forward::{f32_at_most, term_bits, COMMON_TERMS};
use super::postings::{with_lists, Layout, Lists, Packed, Postings, Wide};
use super::score::{saturation, term_score, SMALL_LIMIT};
use super::{Bm25Index, Scored};

impl Bm25Index {
    /// Exactly `top_by_score(self.score(query_terms), limit)`: the same documents in the same
    /// order (ties included) with bit-identical scores, without scoring every matching
    /// document.
    ///
    /// Term at a time with per-term upper bounds ("quit and continue"): each distinct query
    /// term gets a bound on what it can add to any score (see [`Self::term_bound`]), and the
    /// terms are read in descending bound order, adding into (f32) partial scores. The
    /// documents with the best partial scores are scored exactly as they turn up; the
    /// `limit`-th best exact score known is the threshold. All contributions are positive,
    /// so once the threshold exceeds the sum of the bounds of the terms still unread, no
    /// document outside the read lists can make the result, and the remaining lists
    /// (usually the long lists of common words) are never walked. Of the touched documents,
    /// those whose partial score plus a bound on the unread terms they may hold (a
    /// per-document term filter; each term's score at the document's own length and largest
    /// tf, or at tf 1 for terms that only ever occur once per document; the catalog's most
    /// frequent terms at their tf in it, see [`CommonTf`]) can still reach the
    /// threshold are scored exactly from the forward index — the exhaustive path's per-term
    /// arithmetic, added in query-token order — and ranked by (score, first query token
    /// matched, slot), the exhaustive path's stable-sort order.
    pub fn score_top(&self, query_terms: &[Option<u32>], limit: usize) -> Vec<Scored> {
        self.score_top_from(query_terms, limit, PRUNE_MIN_POSTINGS)
    }

    /// [`Self::score_top`], pruning only when the query's lists hold more than
    /// `min_postings` postings (and more than 4·limit); tests force pruning with 0.
    #[doc(hidden)]
    pub fn score_top_from(&self, query_terms: &[Option<u32>], limit: usize, min_postings: usize) -> Vec<Scored> {
        if self.live == 0 || limit == 0 {
            return Vec::new();
        }
        with_lists!(self, |lists| self.score_top_in(lists, query_terms, limit, min_postings))
    }


    fn score_top_in<L: Layout>(&self, lists: Lists<'_, L>, query_terms: &[Option<u32>], limit: usize, min_postings: usize) -> Vec<Scored> {
        let avgdl = self.avgdl();
        let (k1, b) = (self.k1, self.b);
        // The bounds need tf/(tf + k1(1 - b + b·len/avgdl)) to grow with tf and shrink with
        // len; long queries would make the distinct-term bookkeeping quadratic.
        let bounded = k1 > 0.0 && (0.0..=1.0).contains(&b) && avgdl > 0.0 && avgdl.is_finite();
        if !bounded || query_terms.len() > MAX_PRUNED_QUERY_TOKENS || limit > SMALL_LIMIT {
            return self.top_exhaustive(query_terms, limit);
        }
        let query = QueryLists::gather(self, lists, query_terms);
        if query.terms.is_empty() {
            return Vec::new();
        }
        // Small problems: scoring everything is as cheap as the bookkeeping.
        if query.postings <= limit.saturating_mul(4).max(min_postings) || query.terms.len() == 1 {
            return self.top_exhaustive(query_terms, limit);
        }
        let mut top = TopK::new(self, lists.layout, query, limit, avgdl);
        top.read_lists();
        top.score_touched();
        top.finish()
    }

    /// An upper bound on `term`'s score in any document holding it: its score at the
    /// largest tf and the shortest document among its postings (the score grows with tf
    /// and falls with length); the caller adds the rounding margin.
    fn term_bound(&self, term: u32, idf: f64, avgdl: f64) -> f64 {
        let t = term as usize;
        let loose = term_score(idf, self.max_tf[t], self.min_len[t], self.k1, self.b, avgdl);
        if avgdl.to_bits() == self.sat_avgdl.to_bits() {
            // (the exact maximum, up to rounding, which the caller's margin covers)
            loose.min(idf * (self.k1 + 1.0) * self.max_sat[t])
        } else {
            loose
        }
    }
}

/// The query's distinct terms that have postings, and its tokens as indexes into them.
struct QueryLists<'a, L: Layout> {
    terms: Vec<PruneTerm<'a, L::Entry>>,
    /// per query token (in order) with a non-empty list: its distinct-term index
    seq: Vec<u8>,
    /// postings in the distinct terms' lists
    postings: usize,
}

impl<'a, L: Layout> QueryLists<'a, L> {
    /// The distinct terms in order of first occurrence, each with its idf, its first token's
    /// position and its number of tokens (bounds are set later, by [`TopK::new`]).
    fn gather(index: &Bm25Index, lists: Lists<'a, L>, query_terms: &[Option<u32>]) -> Self {
        let mut terms: Vec<PruneTerm<'a, L::Entry>> = Vec::new();
        let mut seq: Vec<u8> = Vec::with_capacity(query_terms.len());
        let mut postings = 0usize;
        for (pos, &t) in query_terms.iter().enumerate() {
            let Some(t) = t else { continue };
            let list = lists.get(t);
            if list.is_empty() {
                continue;
            }
            let u = match terms.iter().position(|x| x.id == t) {
                Some(u) => u,
                None => {
                    postings += list.len();
                    terms.push(PruneTerm { id: t, list, idf: index.idf(list.len()), first: pos as u32, mult: 0, bound: 0.0 });
                    terms.len() - 1
                }
            };
            terms[u].mult += 1;
            seq.push(u as u8);
        }
        Self { terms, seq, postings }
    }
}

/// One query's pruning state: its terms by descending bound, the per-thread scratch
/// (partial scores by slot, the query's terms by id, a document's per-term
/// contributions), the exactly scored result so far and the threshold it sets.
///
/// Invariants between steps: `best` holds distinct, exactly scored documents, best first,
/// at most `limit`; `theta` never exceeds the `limit`-th best exact score (by the rounding
/// margin), so a document is only ever skipped when it provably ranks below `limit`
/// documents already held; the lists `order[..read]` are added into the partial scores.
struct TopK<'a, L: Layout> {
    index: &'a Bm25Index,
    layout: L,
    limit: usize,
    avgdl: f64,
    /// the saturation table matches the shapes at `avgdl` ([`Bm25Index::one_tf_valid`])
    fast: bool,
    terms: Vec<PruneTerm<'a, L::Entry>>,
    seq: Vec<u8>,
    /// distinct terms by descending bound
    order: Vec<usize>,
    /// `rest[i]`: the sum of the bounds of `order[i..]`
    rest: Vec<f64>,
    /// per contribution place (0: other terms, u + 1: distinct query term u): its idf
    idf_at: Vec<f64>,
    scratch: PruneScratch,
    best: Vec<Ranked>,
    theta: f64,
    /// how many lists (of `order`) are added into the partial scores
    read: usize,
}

/// Whether a document whose score is at most `bound` ranks below the `limit`-th best when
/// the threshold is `theta`. Strict, so documents tying the threshold are still scored.
#[inline(always)]
fn cannot_reach(bound: f64, theta: f64) -> bool {
    bound * (1.0 + BOUND_MARGIN) < theta
}

impl<'a, L: Layout> TopK<'a, L> {
    /// Bounds every term (its score at any document, all its tokens, with margin), orders
    /// the terms by descending bound and readies the scratch: partial scores cover every
    /// slot, every term id has a place (the query's at 1 + their index) and the
    /// contributions one entry per place. Checks here are what the unchecked accesses of
    /// the later steps rely on, besides what `rebuild_lists` checked (every forward entry's
    /// term and shape).
    fn new(index: &'a Bm25Index, layout: L, query: QueryLists<'a, L>, limit: usize, avgdl: f64) -> Self {
        let QueryLists { mut terms, seq, .. } = query;
        for t in &mut terms {
            t.bound = index.term_bound(t.id, t.idf, avgdl) * f64::from(t.mult) * (1.0 + BOUND_MARGIN);
        }
        let mut order: Vec<usize> = (0..terms.len()).collect();
        order.sort_by(|&x, &y| terms[y].bound.total_cmp(&terms[x].bound));
        let mut rest = vec![0.0f64; order.len() + 1];
        for i in (0..order.len()).rev() {
            rest[i] = rest[i + 1] + terms[order[i]].bound;
        }
        let fast = index.one_tf_valid(avgdl);

        let mut scratch = PRUNE.with(|cell| std::mem::take(&mut *cell.borrow_mut()));
        let PruneScratch { partial, query_term, contrib, .. } = &mut scratch;
        if partial.len() < index.slots() {
            partial.resize(index.slots(), 0.0);
        }
        if query_term.len() < index.terms() {
            query_term.resize(index.terms(), 0);
        }
        for (u, t) in terms.iter().enumerate() {
            query_term[t.id as usize] = u as u8 + 1;
        }
        // Every list's slots index `partial` (a list is in slot order, so its last posting
        // has the largest slot), `query_term` covers every term, its places fit a u8, and
        // with `fast` the saturation table matches the shapes.
        assert!(terms.iter().all(|t| t.list.last().is_none_or(|&p| (layout.slot(p) as usize) < partial.len())));
        assert!(query_term.len() >= index.terms() && terms.len() < usize::from(u8::MAX));
        assert!(!fast || index.shape_sat.len() == index.shapes.len());
        // (place 0 takes the writes of a document's other terms; query term u is place u + 1)
        contrib.clear();
        contrib.resize(terms.len() + 1, 0.0);
        let idf_at: Vec<f64> = std::iter::once(0.0).chain(terms.iter().map(|t| t.idf)).collect();
        assert!(contrib.len() == terms.len() + 1 && idf_at.len() == contrib.len());
        Self {
            index,
            layout,
            limit,
            avgdl,
            fast,
            terms,
            seq,
            order,
            rest,
            idf_at,
            scratch,
            best: Vec::with_capacity(limit + 1),
            theta: f64::NEG_INFINITY,
            read: 0,
        }
    }

    /// Document `d`'s exact score, from its own term list (the forward index): the
    /// exhaustive path's arithmetic (0 + each matching query token's score, in query
    /// order), so bit-identical to it, and its first matching query token, which orders ties.
    fn exact(&mut self, d: u32) -> Ranked {
        let index = self.index;
        let PruneScratch { query_term, contrib, .. } = &mut self.scratch;
        let (query_term, contrib, idf_at) = (&query_term[..], &mut contrib[..], &self.idf_at[..]);
        contrib.iter_mut().for_each(|c| *c = 0.0);
        let range = index.meta[d as usize].fwd;
        if self.fast {
            // Branch-free: every term of the document writes, the query's to their places.
            index.fwd.each(range, |term, shape| {
                // SAFETY: see the checks in `new`; `query_term`'s places index `contrib`
                // and `idf_at`.
                unsafe {
                    let u = usize::from(*query_term.get_unchecked(term as usize));
                    *contrib.get_unchecked_mut(u) = idf_at.get_unchecked(u) * index.shape_sat.get_unchecked(shape as usize);
                }
            });
        } else {
            let (fast, avgdl) = (self.fast, self.avgdl);
            index.fwd.each(range, |term, shape| {
                let u = usize::from(query_term[term as usize]);
                if u != 0 {
                    contrib[u] = index.contribution(idf_at[u], shape, fast, avgdl);
                }
            });
        }
        let mut score = 0.0f64;
        let mut first = u32::MAX;
        for &u in &self.seq {
            let x = contrib[u as usize + 1];
            if x != 0.0 {
                score += x;
                first = first.min(self.terms[u as usize].first);
            }
        }
        Ranked { score, first, slot: d }
    }

    /// At most the `limit`-th best exact score known, by the rounding margin: `limit`
    /// documents score at least this. −∞ until `limit` documents are held.
    fn threshold(&self) -> f64 {
        if self.best.len() == self.limit {
            self.best[self.limit - 1].score * (1.0 - BOUND_MARGIN)
        } else {
            f64::NEG_INFINITY
        }
    }

    /// Raises `theta` to [`Self::threshold`]; it never falls.
    fn raise_threshold(&mut self) {
        self.theta = self.theta.max(self.threshold());
    }

    /// Scores document `d` exactly and offers it to the result, unless it is there already
    /// (so `best` stays distinct).
    fn admit(&mut self, d: u32) {
        if !self.best.iter().any(|b| b.slot == d) {
            let ranked = self.exact(d);
            offer(&mut self.best, self.limit, ranked);
        }
    }

    /// Offers the `limit` best documents by partial score among those the lists
    /// `order[..lists]` touched, scored exactly, to the result. Reads the partial scores
    /// without changing them; only adds exact scores, so any threshold taken afterwards
    /// is still a true one.
    fn offer_leaders(&mut self, lists: usize) {
        let (limit, layout) = (self.limit, self.layout);
        let partial = &self.scratch.partial[..];
        let mut leaders: Vec<(f64, u32)> = Vec::with_capacity(limit + 1);
        // the last leader's score once `limit` are held (scores are never below 0)
        let mut floor = f64::NEG_INFINITY;
        for &i in &self.order[..lists] {
            for &p in self.terms[i].list {
                let slot = layout.slot(p);
                // SAFETY: see the checks in `new`.
                let score = f64::from(unsafe { *partial.get_unchecked(slot as usize) });
                if score <= floor || leaders.iter().any(|l| l.1 == slot) {
                    continue;
                }
                let at = leaders.partition_point(|l| l.0 >= score);
                leaders.insert(at, (score, slot));
                leaders.truncate(limit);
                if leaders.len() == limit {
                    floor = leaders[limit - 1].0;
                }
            }
        }
        for &(_, d) in &leaders {
            self.admit(d);
        }
    }

    /// Step 1: whole lists, highest bounds first, until documents in none of the read
    /// lists cannot make the top. On return, every document outside `order[..read]` scores
    /// at most `rest[read]`, below `theta` (or every list is read). The threshold is taken
    /// once while reading (MAX_THRESHOLDS), after the first list(s).
    fn read_lists(&mut self) {
        let mut touched_at_most = 0usize;
        let mut thresholds = 0;
        while self.read < self.order.len() {
            if touched_at_most >= self.limit && !cannot_reach(self.rest[self.read], self.theta) && thresholds < MAX_THRESHOLDS {
                thresholds += 1;
                self.offer_leaders(self.read);
                self.raise_threshold();
            }
            if cannot_reach(self.rest[self.read], self.theta) {
                break;
            }
            let t = &self.terms[self.order[self.read]];
            let (list, weight) = (t.list, t.idf * f64::from(t.mult));
            self.add_partials(list, weight);
            touched_at_most += list.len();
            self.read += 1;
        }
    }

    /// Adds `weight` × each posting's saturation to its document's partial score. (Partial
    /// scores only guide pruning: f32, half the memory traffic, with PARTIAL_SLACK covering
    /// their rounding.)
    #[inline(always)]
    fn add_partials(&mut self, list: &[L::Entry], weight: f64) {
        let (index, layout) = (self.index, self.layout);
        if self.fast {
            let sat = &index.shape_sat[..];
            let partial = &mut self.scratch.partial[..];
            for &p in list {
                // SAFETY: see the checks in `new`.
                unsafe {
                    *partial.get_unchecked_mut(layout.slot(p) as usize) += (weight * *sat.get_unchecked(layout.shape(p) as usize)) as f32;
                }
            }
        } else {
            let (k1, b, avgdl) = (index.k1, index.b, self.avgdl);
            let partial = &mut self.scratch.partial;
            for &p in list {
                let (tf, len) = index.shapes[layout.shape(p) as usize];
                partial[layout.slot(p) as usize] += (weight * saturation(tf, len, k1, b, avgdl)) as f32;
            }
        }
    }

    /// Step 2: the touched documents (each once: its partial score is reset on the first
    /// visit) that can still reach the threshold by the unread lists' bounds are collected;
    /// the best of them by partial score, scored exactly, raise the threshold; then each
    /// that can still reach it by the unread terms it may hold is scored exactly. On
    /// return `best` is the exact top `limit` and every partial score is 0.
    fn score_touched(&mut self) {
        let read_postings: usize = self.order[..self.read].iter().map(|&i| self.terms[i].list.len()).sum();
        if self.read > 0 {
            let lists = self.leading_lists(read_postings);
            self.offer_leaders(lists.min(self.read));
            self.raise_threshold();
        }
        // (reused across searches: only ever grown, every kept entry is written first)
        let mut candidates = std::mem::take(&mut self.scratch.candidates);
        if candidates.len() < read_postings {
            candidates.resize(read_postings, (0.0, 0));
        }
        let reach = self.reach();
        let collect = self.lists_to_collect(reach);
        let kept = self.collect_candidates(collect, reach, &mut candidates, read_postings);
        self.reset_partials(collect);
        self.admit_candidate_leaders(&mut candidates[..kept]);
        self.score_candidates(&candidates[..kept]);
        self.scratch.candidates = candidates;
    }

    /// How many of the first read lists (highest bound, usually shortest) hold at most
    /// 1/LEADER_SHARE of the read postings (at least one): the best documents by partial
    /// score are almost always in them, so their leaders, scored exactly, raise the
    /// threshold before the touched documents are collected and far fewer are kept.
    fn leading_lists(&self, read_postings: usize) -> usize {
        let mut lists = 1usize;
        let mut leader_postings = self.terms[self.order[0]].list.len();
        while lists < self.read && leader_postings + self.terms[self.order[lists]].list.len() <= read_postings / LEADER_SHARE {
            leader_postings += self.terms[self.order[lists]].list.len();
            lists += 1;
        }
        lists
    }

    /// The smallest partial score a kept document needs: one below it (times 1 +
    /// PARTIAL_SLACK) plus the unread bounds cannot reach the threshold. At least the
    /// smallest positive f32, so repeat visits (which read 0) never count.
    fn reach(&self) -> f32 {
        f32_at_most((self.theta / (1.0 + BOUND_MARGIN) - self.rest[self.read]) / (1.0 + PARTIAL_SLACK)).max(f32::from_bits(1))
    }

    /// How many read lists need collecting: the last read lists (lowest bounds, usually the
    /// longest) whose bounds together stay below `reach` cannot lift a document to it
    /// alone, so every document worth keeping is in one of the others; those lists are
    /// only walked to reset their documents.
    fn lists_to_collect(&self, reach: f32) -> usize {
        let mut collect = self.read;
        let mut tail = 0.0f64;
        while collect > 0 && (tail + self.terms[self.order[collect - 1]].bound) * (1.0 + PARTIAL_SLACK) < f64::from(reach) {
            tail += self.terms[self.order[collect - 1]].bound;
            collect -= 1;
        }
        collect
    }

    /// Walks the lists `order[..collect]`, resetting each touched document's partial score
    /// and keeping (partial score, slot) in `candidates[..kept]` for those at or above
    /// `reach`; returns `kept`. Branch-free: a repeat visit reads 0 and is not kept.
    fn collect_candidates(&mut self, collect: usize, reach: f32, candidates: &mut [(f32, u32)], read_postings: usize) -> usize {
        let layout = self.layout;
        let partial = &mut self.scratch.partial[..];
        // (slots: see the checks in `new`; `kept` counts at most the postings walked so
        // far, and `candidates` has room for all read postings)
        assert!(candidates.len() >= read_postings);
        let mut kept = 0usize;
        for &i in &self.order[..collect] {
            for &p in self.terms[i].list {
                let slot = layout.slot(p);
                // SAFETY: see above.
                unsafe {
                    let partial_score = std::mem::take(partial.get_unchecked_mut(slot as usize));
                    *candidates.get_unchecked_mut(kept) = (partial_score, slot);
                    kept += usize::from(partial_score >= reach);
                }
            }
        }
        kept
    }

    /// Resets the partial scores of the lists `order[collect..read]` (the rest were reset
    /// while collecting): by walking those lists, or, when they hold many postings for the
    /// catalog's size, by clearing every partial score (one sequential pass instead of a
    /// scattered write per posting). Afterwards every partial score is 0.
    fn reset_partials(&mut self, collect: usize) {
        let (layout, slots) = (self.layout, self.index.slots());
        let partial = &mut self.scratch.partial[..];
        let tail_postings: usize = self.order[collect..self.read].iter().map(|&i| self.terms[i].list.len()).sum();
        if tail_postings.saturating_mul(RESET_ALL_FROM) >= slots {
            partial[..slots].fill(0.0);
        } else {
            for &i in &self.order[collect..self.read] {
                for &p in self.terms[i].list {
                    // SAFETY: see the checks in `new`.
                    unsafe { *partial.get_unchecked_mut(layout.slot(p) as usize) = 0.0 };
                }
            }
        }
    }

    /// Scores the `limit` best candidates by partial score exactly and raises the
    /// threshold with them (when there are more candidates than that); reorders
    /// `candidates`.
    fn admit_candidate_leaders(&mut self, candidates: &mut [(f32, u32)]) {
        if candidates.len() > self.limit {
            let (leaders, _, _) = candidates.select_nth_unstable_by(self.limit, |a, b| b.0.total_cmp(&a.0));
            for &(_, d) in leaders.iter() {
                self.admit(d);
            }
            self.raise_threshold();
        }
    }

    /// The unread query terms, highest bound first, as a candidate's bound needs them.
    fn unread_terms(&self) -> Vec<UnreadTerm> {
        self.order[self.read..]
            .iter()
            .map(|&i| {
                let t = &self.terms[i];
                UnreadTerm {
                    bits: term_bits(t.id),
                    bound: t.bound,
                    weight: t.idf * f64::from(t.mult) * (1.0 + BOUND_MARGIN),
                    once_only: self.index.max_tf[t.id as usize] == 1,
                    common: self.index.common.place(t.id).unwrap_or(usize::MAX),
                }
            })
            .collect()
    }

    /// Scores exactly each candidate that [`CandidateBounds::may_reach`] the threshold,
    /// raising the threshold as they come. Candidates it rules out provably rank below
    /// `limit` documents already held.
    fn score_candidates(&mut self, candidates: &[(f32, u32)]) {
        let unread = self.unread_terms();
        // When every unread term is a common one, a candidate's common-term row bounds them
        // all exactly and its document record is only read if it is scored.
        let needs_meta = unread.iter().any(|u| u.common >= COMMON_TERMS);
        let index = self.index;
        let bounds = CandidateBounds { index, fast: self.fast, avgdl: self.avgdl, unread_bound: self.rest[self.read] };
        // (a local: most candidates are turned away, and there is no call to reload it after)
        let mut theta = self.theta;
        for (i, &(partial_score, d)) in candidates.iter().enumerate() {
            // (the records of candidates a few places ahead are requested now: their cache
            // misses overlap with this one's work)
            if let Some(&(_, ahead)) = candidates.get(i + PREFETCH_AHEAD) {
                if needs_meta {
                    prefetch(&index.meta[ahead as usize]);
                }
                prefetch(&index.common.rows[ahead as usize]);
            }
            if bounds.may_reach(d, partial_score, theta, &unread) {
                self.admit(d);
                self.raise_threshold();
                theta = self.theta;
            }
        }
    }

    /// Step 3: clears the query's places in the scratch and hands it back to the thread
    /// (all zeros again: the partial scores were reset in step 2), and returns the result.
    fn finish(self) -> Vec<Scored> {
        let TopK { terms, mut scratch, best, .. } = self;
        for t in &terms {
            scratch.query_term[t.id as usize] = 0;
        }
        PRUNE.with(|cell| *cell.borrow_mut() = scratch);
        best.into_iter().map(|r| Scored { slot: r.slot, score: r.score }).collect()
    }
}

/// What bounding a candidate reads, copied out of [`TopK`] so the candidate loop keeps it
/// in registers.
#[derive(Clone, Copy)]
struct CandidateBounds<'a> {
    index: &'a Bm25Index,
    fast: bool,
    avgdl: f64,
    /// the sum of the unread terms' bounds
    unread_bound: f64,
}

impl CandidateBounds<'_> {
    /// Whether document `d`, with `partial_score` from the read lists, may still reach the
    /// threshold `theta`. False only when its exact score provably cannot: its partial
    /// score (times 1 + PARTIAL_SLACK) plus, for each unread term, the most it can add here
    /// falls below `theta`. Tightens the unread terms' bounds for this document, largest
    /// first, and stops as soon as it cannot make the top: a term its common-term row gives
    /// adds its score at that tf; a term its filter proves absent adds nothing; a term that
    /// occurs once here (it never repeats, or nothing repeats in this document) adds exactly
    /// its score at this document's length, otherwise at most its score at the largest tf.
    #[inline(always)]
    fn may_reach(self, d: u32, partial_score: f32, theta: f64, unread: &[UnreadTerm]) -> bool {
        let index = self.index;
        let mut bound = f64::from(partial_score) * (1.0 + PARTIAL_SLACK) + self.unread_bound;
        if cannot_reach(bound, theta) {
            return false;
        }
        let meta = &index.meta[d as usize];
        let row = &index.common.rows[d as usize];
        for u in unread {
            if let Some(&tf) = row.tf.get(u.common) {
                if tf == 0 {
                    bound -= u.bound;
                } else if tf < u8::MAX {
                    // (the saturation exact scoring computes; the weight's margin covers
                    // the rounding of adding it `mult` times)
                    bound -= u.bound - (u.weight * saturation(u32::from(tf), row.len, index.k1, index.b, self.avgdl)).min(u.bound);
                }
            } else if meta.sig & u.bits != u.bits {
                bound -= u.bound;
            } else if self.fast {
                // (at most its score at the document's largest tf; exactly the tf-1 one
                // when it never repeats)
                bound -= u.bound - (u.weight * f64::from(if u.once_only { meta.one_sat } else { meta.top_sat })).min(u.bound);
            } else {
                continue;
            }
            if cannot_reach(bound, theta) {
                return false;
            }
        }
        true
    }
}

/// How many candidates ahead [`TopK::score_candidates`] requests document records.
const PREFETCH_AHEAD: usize = 8;

/// Asks the CPU to start loading `value`'s cache line (a hint; no effect elsewhere).
#[inline(always)]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing; the pointer comes from a reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Pruned search clears all partial scores rather than walking the lists that only need
/// resetting once those hold at least 1/RESET_ALL_FROM postings per slot (100,000 realistic
/// tools, p50 −2%, −4% with cooled caches; 10,000: −3%).
const RESET_ALL_FROM: usize = 16;
/// Queries longer than this (in tokens) are scored exhaustively.
const MAX_PRUNED_QUERY_TOKENS: usize = 250;
/// Queries whose lists hold at most this many postings are scored exhaustively: below
/// that (catalogs of up to about a thousand tools) the bookkeeping costs more than it saves.
const PRUNE_MIN_POSTINGS: usize = 4096;
/// How many times phase 1 of [`Bm25Index::score_top`] takes an exact-score threshold.
const MAX_THRESHOLDS: usize = 1;
/// Relative slack on upper bounds, far above the rounding of a sum of a few hundred terms.
const BOUND_MARGIN: f64 = 1e-9;
/// Relative slack on f32 partial scores: a sum of at most `MAX_PRUNED_QUERY_TOKENS` f32
/// roundings (2^-24 each, two per term) stays far below it.
const PARTIAL_SLACK: f64 = 1e-4;

/// Phase 1 of [`Bm25Index::score_top`] takes leaders from its first lists up to
/// 1/LEADER_SHARE of the postings it read.
const LEADER_SHARE: usize = 4;

/// Adds an exactly scored document (callers check it is not in it yet) to a best-first
/// result of at most `limit`.
fn offer(best: &mut Vec<Ranked>, limit: usize, r: Ranked) {
    if best.len() == limit && r >= best[limit - 1] {
        return;
    }
    let at = best.partition_point(|x| *x < r);
    best.insert(at, r);
    best.truncate(limit);
}

/// A query term pruned search left unread, as a candidate's bound needs it.
struct UnreadTerm {
    /// its bits in the per-document term filter
    bits: u128,
    /// its bound (times its repeats in the query)
    bound: f64,
    /// idf × repeats, with the rounding margin: its score at a document is this times the
    /// saturation there
    weight: f64,
    /// whether it never occurs more than once in a document
    once_only: bool,
    /// its place among the common terms ([`CommonTf`]), or `usize::MAX`
    common: usize,
}

/// A distinct query term during [`Bm25Index::score_top`].
struct PruneTerm<'a, E> {
    id: u32,
    list: &'a [E],
    idf: f64,
    /// position of its first query token
    first: u32,
    /// number of its query tokens
    mult: u32,
    /// upper bound on its contribution (all its tokens) to any score, with margin
    bound: f64,
}

/// A held result; orders best first: higher score, then earlier insertion (first matching
/// query token, then slot), as the exhaustive path's stable sort does.
#[derive(Debug, Clone, Copy)]
struct Ranked {
    score: f64,
    first: u32,
    slot: u32,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.score.total_cmp(&self.score).then(self.first.cmp(&other.first)).then(self.slot.cmp(&other.slot))
    }
}

/// Per-thread scratch for [`Bm25Index::score_top`], all zeros between calls.
#[derive(Default)]
pub(super) struct PruneScratch {
    /// partial scores by slot
    pub(super) partial: Vec<f32>,
    /// by term id: 1 + the term's index among the query's distinct terms, 0 = not in the query
    query_term: Vec<u8>,
    /// per distinct query term: its contribution to the document being scored exactly
    contrib: Vec<f64>,
    /// (partial score, slot) of the documents phase 2 considers
    candidates: Vec<(f32, u32)>,
}

thread_local! {
    pub(super) static PRUNE: std::cell::RefCell<PruneScratch> = std::cell::RefCell::new(PruneScratch::default());
}
