//! Okapi BM25 with the exact arithmetic and ordering of `@mastra/core`'s `BM25Index`.
//!
//! Documents are lists of interned term ids. Postings keep documents in the order they
//! were (last) added, which is the iteration order of the reference's `Set`s, and scores
//! are accumulated query token by query token, so floating-point sums and tie order are
//! the same as in JavaScript.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use crate::jsmath::js_log;

/// Interned terms. An overlay vocabulary (per-request catalogs) extends a shared parent
/// without copying it.
///
/// Most terms are short words, so terms of up to 15 bytes are packed into a `u128` key
/// (bytes plus length): lookups then hash and compare one integer with no pointer chasing,
/// and interning them allocates nothing. Longer terms use an ordinary string map.
#[derive(Debug, Default)]
pub struct Vocab {
    parent: Option<Arc<Vocab>>,
    short: HashMap<u128, u32>,
    long: HashMap<Box<str>, u32>,
    next: u32,
}

/// `term` packed into a `u128` (its bytes, then its length in the top byte), if it fits.
#[inline]
fn pack_short(term: &str) -> Option<u128> {
    let bytes = term.as_bytes();
    if bytes.len() > 15 {
        return None;
    }
    let mut buf = [0u8; 16];
    buf[..bytes.len()].copy_from_slice(bytes);
    buf[15] = bytes.len() as u8;
    Some(u128::from_le_bytes(buf))
}

impl Vocab {
    pub fn new() -> Self {
        Self::default()
    }

    /// A vocabulary that sees every term of `parent` and numbers new terms after them.
    pub fn extending(parent: Arc<Vocab>) -> Self {
        let next = parent.next;
        Self { parent: Some(parent), short: HashMap::default(), long: HashMap::default(), next }
    }

    /// An empty vocabulary with room for `capacity` terms (avoids rehashing while indexing).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            parent: None,
            short: HashMap::with_capacity_and_hasher(capacity, Default::default()),
            long: HashMap::default(),
            next: 0,
        }
    }

    pub fn get(&self, term: &str) -> Option<u32> {
        self.get_packed(term, pack_short(term))
    }

    fn get_packed(&self, term: &str, packed: Option<u128>) -> Option<u32> {
        if let Some(p) = &self.parent {
            if let Some(id) = p.get_packed(term, packed) {
                return Some(id);
            }
        }
        match packed {
            Some(key) => self.short.get(&key).copied(),
            None => self.long.get(term).copied(),
        }
    }

    pub fn intern(&mut self, term: &str) -> u32 {
        let packed = pack_short(term);
        if let Some(id) = self.get_packed(term, packed) {
            return id;
        }
        let id = self.next;
        self.next += 1;
        match packed {
            Some(key) => self.short.insert(key, id),
            None => self.long.insert(term.into(), id),
        };
        id
    }

    /// Adds every term of `other` (a parentless vocabulary) and returns, for each of
    /// `other`'s ids, the id the term has here.
    pub fn absorb(&mut self, other: Vocab) -> Vec<u32> {
        let mut remap = vec![0u32; other.next as usize];
        for (key, local) in other.short {
            let id = match self.short.get(&key) {
                Some(&id) => id,
                None => {
                    let id = self.next;
                    self.next += 1;
                    self.short.insert(key, id);
                    id
                }
            };
            remap[local as usize] = id;
        }
        for (term, local) in other.long {
            remap[local as usize] = match self.long.get(&term) {
                Some(&id) => id,
                None => {
                    let id = self.next;
                    self.next += 1;
                    self.long.insert(term, id);
                    id
                }
            };
        }
        remap
    }

    /// Number of term ids handed out (parent's included).
    pub fn len(&self) -> usize {
        self.next as usize
    }

    pub fn is_empty(&self) -> bool {
        self.next == 0
    }
}

/// Term counts of one document: `(term, tf)` in first-occurrence order.
#[derive(Debug, Clone, Default)]
pub struct TermCounts {
    pub counts: Vec<(u32, u32)>,
    pub len: u32,
}

impl TermCounts {
    pub fn from_terms(terms: impl IntoIterator<Item = u32>) -> Self {
        let terms = terms.into_iter();
        let mut counts: Vec<(u32, u32)> = Vec::with_capacity(terms.size_hint().0);
        let mut len = 0u32;
        for t in terms {
            len += 1;
            // Tool documents are short; a linear probe beats hashing here.
            match counts.iter_mut().find(|(term, _)| *term == t) {
                Some((_, tf)) => *tf += 1,
                None => counts.push((t, 1)),
            }
        }
        Self { counts, len }
    }
}

/// One posting: a document slot and the term's frequency in it.
#[derive(Debug, Clone, Copy)]
struct Posting {
    slot: u32,
    tf: u32,
}

/// BM25 index. Documents live in slots; a removed document leaves its slot empty.
#[derive(Debug)]
pub struct Bm25Index {
    k1: f64,
    b: f64,
    docs: Vec<Option<TermCounts>>,
    /// Token count per slot (0 once removed), dense so scoring stays in cache.
    lens: Vec<u32>,
    postings: Vec<Vec<Posting>>,
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
        Self { k1, b, docs: Vec::new(), lens: Vec::new(), postings: Vec::new(), live: 0, total_len: 0 }
    }

    /// Number of live documents.
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Builds an index from documents in slot order, sizing every posting list exactly
    /// (one allocation per term instead of repeated growth).
    pub fn from_docs(docs: Vec<TermCounts>, vocab_len: usize) -> Self {
        let mut df = vec![0u32; vocab_len];
        for doc in &docs {
            for &(term, _) in &doc.counts {
                if let Some(d) = df.get_mut(term as usize) {
                    *d += 1;
                } else {
                    df.resize(term as usize + 1, 0);
                    df[term as usize] = 1;
                }
            }
        }
        let mut postings: Vec<Vec<Posting>> = df.iter().map(|&n| Vec::with_capacity(n as usize)).collect();
        let mut total_len = 0u64;
        for (slot, doc) in docs.iter().enumerate() {
            for &(term, tf) in &doc.counts {
                postings[term as usize].push(Posting { slot: slot as u32, tf });
            }
            total_len += u64::from(doc.len);
        }
        let live = docs.len();
        let lens = docs.iter().map(|d| d.len).collect();
        Self { k1: 1.5, b: 0.75, docs: docs.into_iter().map(Some).collect(), lens, postings, live, total_len }
    }

    /// Term counts of a live document.
    pub fn doc(&self, slot: u32) -> Option<&TermCounts> {
        self.docs.get(slot as usize).and_then(|d| d.as_ref())
    }

    /// Adds a document and returns its slot. It goes to the end of every posting list,
    /// like a re-added id goes to the end of the reference's `Set`s.
    pub fn add(&mut self, doc: TermCounts) -> u32 {
        let slot = self.docs.len() as u32;
        for &(term, tf) in &doc.counts {
            let t = term as usize;
            if self.postings.len() <= t {
                self.postings.resize_with(t + 1, Vec::new);
            }
            self.postings[t].push(Posting { slot, tf });
        }
        self.total_len += u64::from(doc.len);
        self.live += 1;
        self.lens.push(doc.len);
        self.docs.push(Some(doc));
        slot
    }

    /// Removes the document in `slot` (no-op when already removed).
    pub fn remove(&mut self, slot: u32) {
        let Some(doc) = self.docs.get_mut(slot as usize).and_then(Option::take) else {
            return;
        };
        for &(term, _) in &doc.counts {
            if let Some(list) = self.postings.get_mut(term as usize) {
                list.retain(|p| p.slot != slot);
            }
        }
        self.total_len -= u64::from(doc.len);
        self.live -= 1;
        self.lens[slot as usize] = 0;
    }

    /// Document frequency of a term.
    pub fn df(&self, term: u32) -> usize {
        self.postings.get(term as usize).map_or(0, Vec::len)
    }

    fn avgdl(&self) -> f64 {
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
        let avgdl = self.avgdl();
        let (k1, b) = (self.k1, self.b);
        let expected = query_terms.iter().flatten().map(|&t| self.df(t)).max().unwrap_or(0);
        let mut out: Vec<Scored> = Vec::with_capacity(expected);
        POSITIONS.with(|cell| {
            // 1 + position of each touched slot in `out`; 0 = untouched. The buffer is reused
            // across searches (allocating it per search costs page faults on big catalogs)
            // and only the touched entries are reset afterwards.
            let mut position = cell.borrow_mut();
            if position.len() < self.docs.len() {
                position.resize(self.docs.len(), 0);
            }
            for term in query_terms.iter().flatten() {
                let Some(list) = self.postings.get(*term as usize) else { continue };
                if list.is_empty() {
                    continue;
                }
                let idf = self.idf(list.len());
                // Posting lists hold live documents only (removal retains the others).
                for p in list {
                    let len = self.lens[p.slot as usize];
                    let tf = f64::from(p.tf);
                    let numerator = tf * (k1 + 1.0);
                    let denominator = tf + k1 * (1.0 - b + b * (f64::from(len) / avgdl));
                    let term_score = idf * (numerator / denominator);
                    let pos = &mut position[p.slot as usize];
                    if *pos == 0 {
                        out.push(Scored { slot: p.slot, score: 0.0 + term_score });
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
}

thread_local! {
    /// Per-thread scratch for [`Bm25Index::score`]; all zeros between calls.
    static POSITIONS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
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
const SMALL_LIMIT: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::compat_tokens;

    fn index_of(texts: &[&str]) -> (Bm25Index, Vocab) {
        let mut vocab = Vocab::new();
        let mut index = Bm25Index::default();
        for t in texts {
            let terms: Vec<u32> = compat_tokens(t).iter().map(|w| vocab.intern(w)).collect();
            index.add(TermCounts::from_terms(terms));
        }
        (index, vocab)
    }

    fn query(index: &Bm25Index, vocab: &Vocab, q: &str) -> Vec<(u32, f64)> {
        let terms: Vec<Option<u32>> = compat_tokens(q).iter().map(|w| vocab.get(w)).collect();
        top_by_score(index.score(&terms), usize::MAX).into_iter().map(|s| (s.slot, s.score)).collect()
    }

    #[test]
    fn spec_worked_example() {
        // tool-search.md §3.5: 6-tool catalog, avgdl 7.
        let (index, vocab) = index_of(&[
            "github_create_issue Create a new issue on GitHub",
            "github_create_pr Create a pull request on GitHub",
            "linear_create_issue Create a new issue in Linear",
            "weather_forecast Get weather forecast for a location",
            "send_email Send an email message",
            "calendar_schedule Schedule a calendar event",
        ]);
        assert_eq!(index.avgdl(), 7.0);
        let github = vocab.get("github").unwrap();
        assert_eq!(index.df(github), 2);
        assert!((index.idf(2) - 1.02962).abs() < 1e-5);
        let r = query(&index, &vocab, "github issue");
        assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), [0, 1, 2]);
        assert!((r[0].1 - 2.0 * 1.40631).abs() < 1e-4);
        let email = query(&index, &vocab, "email email");
        assert!((email[0].1 - 2.0 * 2.30655).abs() < 1e-4);
    }

    #[test]
    fn ties_follow_first_matching_query_term() {
        let (index, vocab) = index_of(&["a_tool blue", "b_tool red", "c_tool blue", "d_tool red"]);
        let order = |q| query(&index, &vocab, q).into_iter().map(|x| x.0).collect::<Vec<_>>();
        assert_eq!(order("blue red"), [0, 2, 1, 3]);
        assert_eq!(order("red blue"), [1, 3, 0, 2]);
    }

    #[test]
    fn removal_moves_readded_doc_to_the_end() {
        let (mut index, mut vocab) = index_of(&["one data", "two data"]);
        index.remove(0);
        let terms: Vec<u32> = compat_tokens("one data").iter().map(|w| vocab.intern(w)).collect();
        let slot = index.add(TermCounts::from_terms(terms));
        assert_eq!(index.len(), 2);
        let r = query(&index, &vocab, "data");
        assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), [1, slot]);
    }

    #[test]
    fn top_by_score_matches_a_stable_sort_on_many_ties() {
        let mut seed = 7u64;
        let scored: Vec<Scored> = (0..500)
            .map(|i| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                Scored { slot: i, score: f64::from(((seed >> 33) % 13) as u32) / 4.0 }
            })
            .collect();
        let mut full = scored.clone();
        full.sort_by(|a, b| b.score.total_cmp(&a.score));
        for limit in [1, 2, 10, 63, 64, 65, 200, 499, 500, 501] {
            assert_eq!(top_by_score(scored.clone(), limit), full[..limit.min(full.len())].to_vec(), "limit {limit}");
        }
    }

    #[test]
    fn top_by_score_is_a_stable_prefix() {
        let scored: Vec<Scored> =
            [1.0, 3.0, 3.0, 2.0, 3.0, 1.0].iter().enumerate().map(|(i, &s)| Scored { slot: i as u32, score: s }).collect();
        let full = top_by_score(scored.clone(), usize::MAX);
        for limit in 0..=6 {
            assert_eq!(top_by_score(scored.clone(), limit), full[..limit.min(full.len())].to_vec());
        }
    }

    #[test]
    fn batch_build_equals_incremental_adds() {
        let (incremental, vocab) = index_of(&["alpha beta beta", "beta gamma", "delta"]);
        let docs: Vec<TermCounts> = (0..3).map(|s| incremental.doc(s).unwrap().clone()).collect();
        let batch = Bm25Index::from_docs(docs, vocab.len());
        for q in ["beta", "alpha gamma delta", "zeta"] {
            assert_eq!(query(&batch, &vocab, q), query(&incremental, &vocab, q));
        }
    }

    #[test]
    fn vocab_keeps_short_and_long_terms_apart_and_exact() {
        let mut v = Vocab::new();
        let words = ["", "a", "ab", "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq", "天气", "ab\0", "ab\0\0"];
        let ids: Vec<u32> = words.iter().map(|w| v.intern(w)).collect();
        assert_eq!(ids, (0..words.len() as u32).collect::<Vec<_>>(), "every word is distinct");
        for (w, id) in words.iter().zip(&ids) {
            assert_eq!(v.get(w), Some(*id));
            assert_eq!(v.intern(w), *id);
        }
        assert_eq!(v.get("abcdefghijklmnoq"), None);
        assert_eq!(v.len(), words.len());
    }

    #[test]
    fn overlay_vocab_sees_parent_terms() {
        let mut base = Vocab::new();
        let a = base.intern("alpha");
        let base = Arc::new(base);
        let mut overlay = Vocab::extending(base.clone());
        assert_eq!(overlay.intern("alpha"), a);
        let b = overlay.intern("beta");
        assert_eq!(b, 1);
        assert_eq!(base.get("beta"), None);
    }
}
