//! Fusing the lexical (enhanced) ranking with the semantic one.
//!
//! Default, score-based: a candidate gets `w_lexical * score / max(best score, lexical_floor)`
//! from the lexical ranking and `w_semantic * (cos - floor) / max(best cos - floor,
//! semantic_spread)` from the semantic candidates (the `semantic_depth` closest documents;
//! `floor` is the last one's cosine). Alternative (`relative: false`), reciprocal rank:
//! `w / (k + rank)` from each ranking.
//!
//! Adaptive, from what the query's own rankings show:
//! - Script: the semantic weight is `semantic_cjk` for a query with any CJK character
//!   (`any_cjk`; else interpolated by the CJK share), `semantic_latin` otherwise. The static
//!   model's signal differs by script, and before language-mean removal (below) it did not
//!   cross languages: for a request in another language than its tool it only added noise,
//!   hence the small CJK weight. 0.15
//!   (was 0.1) since the crowding correction below: on the 128-tool dev half it is the best
//!   of 0.1–0.3 (recall@5 0.557 → 0.561, MRR@10 0.482 → 0.483; cross-language CJK requests
//!   unchanged in sum), and with the dev tools among 10,000 MetaTool distractors
//!   (`examples/hybrid.rs scale`) same-language CJK requests rise 0.893 → 0.904, zh-Hant
//!   ones 0.837 → 0.878 (higher weights lift those rows further but cost cross-language dev
//!   requests).
//! - Weak lexical evidence counts less: when the best lexical score is below `lexical_floor`
//!   (a BM25 score), lexical scores are divided by the floor, not by the best one, so a query
//!   whose best match is a word or two leaves room for the semantic side, while strong
//!   matches (names, rare words) keep their full weight. Below the floor the fusion is a
//!   fixed blend, `score / lexical_floor + w_semantic * (cos - floor) / (best cos - floor)`.
//!
//!   0.75 (was 0.5) since the model's English-only tail (`StaticModel::latin_tail`, fitted on
//!   an English encoder, `scripts/model/english.py`): with it the model's English signal is
//!   stronger (MetaTool even semantic-only recall@5 0.583 → 0.660); dev MetaTool even hybrid
//!   0.731 at 0.5, 0.739 at 0.75, 0.740 at 1.0 (English requests for other-language tools
//!   0.531 / 0.546 / 0.515), CJK rows unchanged (they take `semantic_cjk`).
//! Tuned on the dev halves with `examples/hybrid.rs sweep`: MetaTool even recall@5 0.664 →
//! 0.699 and multilingual dev same-language CJK 0.852 → 0.937, with no language below
//! enhanced (the script weight alone reached 0.899). The floor is on the BM25 scale, which
//! grows with the catalog (idf): in larger catalogs it engages less and the fusion leans
//! lexical (`examples/hybrid.rs scale`: still above enhanced at 10,000 replicated tools).
//! `semantic_spread` (off by default) also shrinks a semantic ranking whose cosines spread
//! little; it did as well on the dev halves but misfires in large catalogs, where the top
//! candidates are always close.
//!
//! - Language-mean removal (in the model, [`super::model::StaticModel::finish`]) and the
//!   same-script share: each text's script mean comes off its vector, so a request and a
//!   tool in different languages can match (dev semantic-only recall@5 of cross-language
//!   requests 0.07 → 0.60 with the means alone, 0.34 with the share below; MetaTool even
//!   0.526 → 0.583), and documents in the request's script get `same_script` (0.15) added
//!   to their similarity, since without the language component other languages' documents
//!   crowd same-language requests (same-language semantic-only recall@5 0.83 → 0.74 with
//!   the means alone, 0.87 with the share). Chosen on the dev halves
//!   (`examples/hybrid.rs`, `CENTERING` and `SAME_SCRIPT`; 0.1 gave more cross-language
//!   and less same-language recall, 0.2 the reverse): hybrid dev recall@5 same-language
//!   0.903 → 0.918 (CJK 0.942 → 0.950, zh-Hant 0.939 → 0.959), cross-language 0.323 →
//!   0.399, all 0.561 → 0.612, every language up in recall@1/5/10 and MRR; MetaTool even
//!   0.699 → 0.704; dev tools among 10,000 distractors zh-Hant 0.878 → 0.898.
//!
//! - `unreadable` (off by default since language-mean removal): for a model with no signal
//!   between a Latin-script request and a tool described in CJK text (their cosines are
//!   noise near 0), for a query without CJK characters every lexical candidate with CJK text gets
//!   `unreadable` times the semantic weight (the middle of the scaled range) in place of a
//!   semantic part. Without it, the semantic side lifts every English-described candidate
//!   over the CJK-described ones it cannot judge. Dev: English requests for CJK-described
//!   tools 0.531 → 0.562 recall@5 (enhanced alone: 0.562), English MRR@10 0.498 → 0.516,
//!   English same-language unchanged; 0.25–0.4 keep it so, 0.5 and up cost same-language
//!   requests; MetaTool has no CJK tools. CJK requests keep the plain rule (imputing there
//!   cost dev same-language CJK recall). With the script means the model can compare them:
//!   every fusion the dev sweep ranked best had the rule off, and against 0.4 it moves one
//!   English request each way (same-language 0.761 → 0.784, cross-language 0.562 → 0.546;
//!   MRR and recall@1 up), so it is off (0).
//!
//! - Crowded documents count less for CJK requests: the static model's vectors crowd, so
//!   a few documents near many others came close to most requests in their language
//!   (hubs; worst for Traditional Chinese: on dev, its semantic-only same-language
//!   recall@5 was 0.643 against Simplified's 0.870). A document's crowding, its mean
//!   cosine to its 10 closest documents of its own script class in the catalog
//!   ([`super::DocVectors::crowding`]), is taken off its cosine `crowding_cjk`
//!   (0.5) times for a CJK request (CSLS-style). Chosen on the dev halves: semantic-only
//!   same-language recall@5 zh-Hant 0.643 → 0.776, CJK 0.824 → 0.854; the hybrid's
//!   dev recall@5 moved by one request either way (it is near its ceiling there; MRR
//!   0.469 → 0.474); 0.25–1 gave the same. For Latin-script requests it lifted the
//!   semantic side too (MetaTool even semantic-only recall@5 0.526 → 0.573) but not the
//!   hybrid (even 0.699 → 0.699; replicated 2,000 tools, even queries, 0.550 → 0.539), so
//!   `crowding_latin` is 0.
//!
//! A query with no lexical match is ranked by the semantic side alone (weight at least 1,
//! spread rule off), so paraphrases still find something.
//!
//! Score: the fused value divided by its maximum (`w_lexical + w_semantic`, or that over
//! `k + 1` for reciprocal rank), so it lies in (0, 1]; 1 means first in both rankings.
//! `minScore` compares with it; results are sorted by it (ties: lexical order, then semantic).

use crate::enhanced::analyzer::is_cjk;

/// Fusion knobs (defaults tuned on the dev halves; see `examples/hybrid.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// RRF rank offset.
    pub k: f64,
    pub lexical: f64,
    /// Semantic weight for a query without CJK characters …
    pub semantic_latin: f64,
    /// … and for one made only of CJK characters (linear in between).
    pub semantic_cjk: f64,
    /// Semantic candidates fused (the best `max(depth, topK)` by cosine).
    pub semantic_depth: usize,
    /// Lexical candidates fused (callers cut the lexical ranking there).
    pub lexical_depth: usize,
    /// Score-based instead of rank-based: lexical scores divided by the best one, cosines
    /// min-max scaled over the semantic candidates, each times its weight.
    pub relative: bool,
    /// A query with any CJK character takes the CJK weight (instead of interpolating by
    /// the CJK share; mixed-script requests such as "幫我開個 PR" are CJK requests).
    pub any_cjk: bool,
    /// Score-based only: cosines are scaled by `max(best - floor, semantic_spread)` rather
    /// than by `best - floor`, so a flat semantic ranking (an unsure model) adds less than
    /// its weight. 0 turns it off.
    pub semantic_spread: f64,
    /// Score-based only: lexical scores are divided by `max(best, lexical_floor)`, so weak
    /// lexical evidence (a small best score) adds less than its weight. 0 turns it off.
    pub lexical_floor: f64,
    /// For a query without CJK characters (and some lexical match): the semantic part of a
    /// lexical candidate with CJK text, as a share of the largest semantic part, in place of
    /// its cosine's (the model cannot compare the two); documents with CJK text are not
    /// semantic candidates then. 0 turns the rule off: their cosines count as any other's.
    pub unreadable: f64,
    /// How much of a document's crowding (its mean cosine to its closest documents, see
    /// [`super::DocVectors::crowding`]) comes off its cosine, for a query without CJK
    /// characters …
    pub crowding_latin: f64,
    /// … and for one made only of CJK characters (as the semantic weight, see `any_cjk`).
    pub crowding_cjk: f64,
    /// Added to the semantic similarity of a document in the query's script (see
    /// [`super::model::Script`]). Language-mean removal makes translations comparable, but a
    /// request's own language stays the better prior: without this, documents in other
    /// languages crowd same-language requests.
    pub same_script: f64,
    /// Also added to a document in the query's script: this share of the query's own cosine
    /// span (the best cosine less the `semantic_depth`-th), so scale-free: a user's embedder
    /// spreads its cosines as it does (a multilingual one packs them close), where a fixed
    /// `same_script` would weigh differently for each. 0 for the shipped model.
    pub same_script_span: f64,
}

impl Default for Fusion {
    fn default() -> Self {
        Self {
            k: 60.0,
            lexical: 1.0,
            semantic_latin: 0.75,
            semantic_cjk: 0.15,
            semantic_depth: 20,
            lexical_depth: 100,
            relative: true,
            any_cjk: true,
            semantic_spread: 0.0,
            lexical_floor: 20.0,
            unreadable: 0.0,
            crowding_latin: 0.0,
            crowding_cjk: 0.5,
            same_script: 0.15,
            same_script_span: 0.0,
        }
    }
}

/// Share of CJK (Han, kana, Hangul) among the query's letters and digits, in [0, 1].
pub fn cjk_share(query: &str) -> f64 {
    let (mut cjk, mut all) = (0usize, 0usize);
    for c in query.chars().filter(|c| c.is_alphanumeric()) {
        all += 1;
        cjk += usize::from(is_cjk(c));
    }
    if all == 0 {
        0.0
    } else {
        cjk as f64 / all as f64
    }
}

/// The fusion's knobs for a user's embedder ([`crate::catalog::Override`]): its cosines are not
/// the shipped model's, so it has its own semantic weights, and the corrections made for the
/// shipped model (the same-script share, the crowding correction for CJK requests) are its to
/// set: a multilingual embedder compares languages itself, where the share (a constant added to
/// cosines of another spread) would bury every document in another script.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmbedderFusion {
    pub semantic_latin: f64,
    pub semantic_cjk: f64,
    pub same_script: f64,
    pub same_script_span: f64,
    pub crowding_cjk: f64,
}

impl EmbedderFusion {
    /// Weights `(latin, cjk)` with the shipped model's corrections.
    pub fn weights(semantic_latin: f64, semantic_cjk: f64) -> Self {
        let d = Fusion::default();
        Self { semantic_latin, semantic_cjk, same_script: d.same_script, same_script_span: d.same_script_span, crowding_cjk: d.crowding_cjk }
    }

    /// `fusion` with these knobs.
    pub fn apply(self, fusion: Fusion) -> Fusion {
        Fusion {
            semantic_latin: self.semantic_latin,
            semantic_cjk: self.semantic_cjk,
            same_script: self.same_script,
            same_script_span: self.same_script_span,
            crowding_cjk: self.crowding_cjk,
            ..fusion
        }
    }
}

impl Fusion {
    /// The semantic weight for `query`.
    pub fn semantic_weight(&self, query: &str) -> f64 {
        self.semantic_latin + (self.semantic_cjk - self.semantic_latin) * self.script_share(query)
    }

    /// How much of a document's crowding [`super::SemanticDocs::top`] takes off its cosine
    /// for `query`.
    pub fn crowding(&self, query: &str) -> f32 {
        (self.crowding_latin + (self.crowding_cjk - self.crowding_latin) * self.script_share(query)) as f32
    }

    /// How far the query counts as CJK, in [0, 1] (1 for any CJK with `any_cjk`).
    fn script_share(&self, query: &str) -> f64 {
        let share = cjk_share(query);
        if self.any_cjk && share > 0.0 {
            1.0
        } else {
            share
        }
    }

    /// Fuses a lexical ranking (best first) and a semantic one (best first) into
    /// `(doc, score)` best first; ties keep the lexical order, then the semantic one.
    /// `cjk_docs[d]`: whether document `d`'s text has CJK characters (missing: no).
    pub fn fuse(&self, query: &str, lexical: &[(u32, f64)], semantic: &[(u32, f32)], cjk_docs: &[bool]) -> Vec<(u32, f64)> {
        // No lexical match: the semantic ranking alone, whatever the script's weight (it can
        // only add results where there would be none).
        let w_sem = if lexical.is_empty() { self.semantic_weight(query).max(1.0) } else { self.semantic_weight(query) };
        let w_lex = self.lexical;
        let max = if self.relative { w_lex + w_sem } else { (w_lex + w_sem) / (self.k + 1.0) };
        if max.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return Vec::new();
        }
        let lex_best = lexical.first().map_or(1.0, |l| l.1).max(self.lexical_floor);
        let (cos_best, cos_floor) = match (semantic.first(), semantic.last()) {
            (Some(first), Some(last)) => (f64::from(first.1), f64::from(last.1)),
            _ => (1.0, 0.0),
        };
        let lexical_part = |r: usize, score: f64| {
            if self.relative {
                if lex_best > 0.0 { w_lex * score / lex_best } else { 0.0 }
            } else {
                w_lex / (self.k + r as f64 + 1.0)
            }
        };
        // Alone, the semantic side is not judged by its spread: it is all there is.
        let spread = if lexical.is_empty() { 0.0 } else { self.semantic_spread };
        let semantic_part = |r: usize, cos: f32| {
            if self.relative {
                let span = (cos_best - cos_floor).max(spread);
                if span > 0.0 { w_sem * (f64::from(cos) - cos_floor) / span } else { w_sem }
            } else {
                w_sem / (self.k + r as f64 + 1.0)
            }
        };
        // Documents the model cannot compare with this query: a neutral semantic part.
        let blind = |doc: u32| cjk_docs.get(doc as usize).copied().unwrap_or(false);
        let neutral = if !lexical.is_empty() && cjk_share(query) == 0.0 && self.unreadable > 0.0 {
            Some(self.unreadable * if self.relative { w_sem } else { w_sem / (self.k + 1.0) })
        } else {
            None
        };
        // (doc, fused, lexical rank, semantic rank)
        let mut fused: Vec<(u32, f64, usize, usize)> = Vec::with_capacity(lexical.len() + semantic.len());
        let mut position: rustc_hash::FxHashMap<u32, usize> = Default::default();
        for (r, &(doc, score)) in lexical.iter().enumerate() {
            position.insert(doc, fused.len());
            let imputed = neutral.filter(|_| blind(doc)).unwrap_or(0.0);
            fused.push((doc, lexical_part(r, score) + imputed, r, usize::MAX));
        }
        for (r, &(doc, cos)) in semantic.iter().enumerate() {
            if neutral.is_some() && blind(doc) {
                // (its cosine says nothing: a lexical candidate has the neutral part)
                continue;
            }
            let part = semantic_part(r, cos);
            match position.get(&doc) {
                Some(&i) => {
                    fused[i].1 += part;
                    fused[i].3 = r;
                }
                None => {
                    if part > 0.0 {
                        position.insert(doc, fused.len());
                        fused.push((doc, part, usize::MAX, r));
                    }
                }
            }
        }
        fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)).then(a.3.cmp(&b.3)));
        fused.into_iter().map(|(doc, s, _, _)| (doc, (s / max).min(1.0))).collect()
    }
}
