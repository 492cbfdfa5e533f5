//! Building and changing an index: batch builds, single additions and removals, the
//! posting lists rebuilt from the forward index, and the saturation table.

use rustc_hash::FxHashMap as HashMap;

use super::docs::{DocSet, TermCounts};
use super::forward::{term_bits, CommonRow, CommonTf, DocMeta, Forward, COMMON_TERMS};
use super::postings::{bits_for, with_lists, Layout, Lists, Packed, Postings, Wide};
use super::score::saturation;
use super::Bm25Index;

impl Bm25Index {
    /// Builds an index from documents in slot order, sizing every posting list exactly
    /// (one allocation per term instead of repeated growth).
    pub fn from_docs(docs: Vec<TermCounts>, vocab_len: usize) -> Self {
        let mut set = DocSet::default();
        for doc in docs {
            set.push(&doc);
        }
        Self::from_set(set, vocab_len)
    }

    /// Builds an index from documents in slot order. The set's (term, tf) array becomes
    /// the forward index in place, so a big catalog allocates its documents once.
    pub fn from_set(set: DocSet, vocab_len: usize) -> Self {
        let DocSet { counts: mut fwd, ends, lens } = set;
        let docs = lens.len();
        let terms = fwd.iter().map(|&(term, _)| term as usize + 1).max().unwrap_or(0).max(vocab_len);
        let mut max_tf = vec![0u32; terms];
        let mut min_len = vec![u32::MAX; terms];
        let mut max_sat = vec![0.0f64; terms];
        let total_len: u64 = lens.iter().map(|&l| u64::from(l)).sum();
        let (k1, b) = (1.5, 0.75);
        let sat_avgdl = if docs == 0 { f64::NAN } else { total_len as f64 / docs as f64 };
        let mut shapes = Vec::new();
        let mut shape_ids = HashMap::default();
        let mut shape_sat: Vec<f64> = Vec::new();
        let mut meta = Vec::with_capacity(docs);
        let mut from = 0usize;
        for (&end, &len) in ends.iter().zip(&lens) {
            let mut bits = 0u128;
            let mut top_tf = 0u32;
            // Most terms occur once: this document's (1, len) shape is looked up once.
            let mut once = None;
            for pair in &mut fwd[from..end as usize] {
                let (term, tf) = *pair;
                top_tf = top_tf.max(tf);
                let t = term as usize;
                let shape = match (tf, once) {
                    (1, Some(shape)) => shape,
                    _ => {
                        let shape = shape_id(&mut shapes, &mut shape_ids, tf, len);
                        if shape as usize == shape_sat.len() {
                            shape_sat.push(saturation(tf, len, k1, b, sat_avgdl));
                        }
                        if tf == 1 {
                            once = Some(shape);
                        }
                        shape
                    }
                };
                *pair = (term, shape);
                bits |= term_bits(term);
                max_tf[t] = max_tf[t].max(tf);
                min_len[t] = min_len[t].min(len);
                max_sat[t] = max_sat[t].max(shape_sat[shape as usize]);
            }
            let (one, top) = (saturation(1, len, k1, b, sat_avgdl), saturation(top_tf.max(1), len, k1, b, sat_avgdl));
            meta.push(DocMeta::new(bits, one, top, (from as u32, end)));
            from = end as usize;
        }
        // (as [`Self::refresh_saturation`] keeps it: the saturation without its k1 + 1 factor)
        for sat in &mut max_sat {
            *sat /= k1 + 1.0;
        }
        let live = docs;
        let fwd = Forward::new(fwd, terms, shapes.len());
        let mut index = Self {
            k1,
            b,
            fwd,
            meta,
            alive: vec![true; live],
            postings: Postings::Wide(Vec::new()),
            starts: vec![0],
            max_tf,
            min_len,
            max_sat,
            sat_avgdl,
            shapes,
            shape_ids,
            shape_sat,
            common: CommonTf { terms: Vec::new(), rows: lens.iter().map(|&len| CommonRow { len, tf: [0; COMMON_TERMS] }).collect() },
            live,
            total_len,
        };
        index.rebuild_lists();
        index
    }

    /// Adds a document and returns its slot. It goes to the end of every posting list,
    /// like a re-added id goes to the end of the reference's `Set`s.
    /// Each call rebuilds the lists (see [`Self::rebuild_lists`]).
    pub fn add(&mut self, doc: TermCounts) -> u32 {
        let slot = self.slots() as u32;
        self.sat_avgdl = f64::NAN;
        let mut fwd = self.fwd.to_pairs();
        let from = fwd.len() as u32;
        let mut bits = 0u128;
        for &(term, tf) in &doc.counts {
            let t = term as usize;
            if self.max_tf.len() <= t {
                self.max_tf.resize(t + 1, 0);
                self.min_len.resize(t + 1, u32::MAX);
            }
            let shape = shape_id(&mut self.shapes, &mut self.shape_ids, tf, doc.len);
            fwd.push((term, shape));
            bits |= term_bits(term);
            self.max_tf[t] = self.max_tf[t].max(tf);
            self.min_len[t] = self.min_len[t].min(doc.len);
        }
        self.meta.push(DocMeta::new(bits, f64::NAN, f64::NAN, (from, fwd.len() as u32)));
        self.fwd = Forward::new(fwd, self.max_tf.len(), self.shapes.len());
        self.alive.push(true);
        self.total_len += u64::from(doc.len);
        self.live += 1;
        self.common.rows.push(CommonRow { len: doc.len, tf: [0; COMMON_TERMS] });
        self.rebuild_lists();
        slot
    }

    /// Removes the document in `slot` (no-op when already removed).
    pub fn remove(&mut self, slot: u32) {
        let s = slot as usize;
        if !self.alive.get(s).copied().unwrap_or(false) {
            return;
        }
        // The slot's forward entries stay (unreachable: its postings are gone).
        self.alive[s] = false;
        self.total_len -= u64::from(self.common.rows[s].len);
        self.live -= 1;
        self.common.rows[s].len = 0;
        self.rebuild_lists();
    }

    /// Builds the posting lists from the live documents' forward entries, in slot order
    /// (the order documents were added), each list sized exactly. Adding or removing one
    /// document costs a rebuild: catalogs are built in one piece ([`Self::from_set`],
    /// [`Self::from_docs`]); single changes are rare.
    fn rebuild_lists(&mut self) {
        let mut df = vec![0u32; self.max_tf.len()];
        let live_docs = || self.meta.iter().zip(&self.alive).filter(|(_, &alive)| alive).map(|(m, _)| m.fwd);
        for range in live_docs() {
            self.fwd.each(range, |term, _| df[term as usize] += 1);
        }
        let starts = list_starts(&df);
        let (shape_bits, slot_bits) = (bits_for(self.shapes.len()), bits_for(self.slots()));
        let packing = [10, 13, 16].into_iter().find(|&b| shape_bits <= b && slot_bits + b <= 32);
        self.starts = starts;
        self.postings = self.postings_packed(packing);
        let common_terms = most_frequent(&df, COMMON_TERMS);
        // per term: its place among the common terms (none: past the row)
        let mut place = vec![u8::MAX; df.len()];
        for (i, &t) in common_terms.iter().enumerate() {
            place[t as usize] = i as u8;
        }
        let mut rows = std::mem::take(&mut self.common.rows);
        for (slot, m) in self.meta.iter().enumerate().filter(|&(slot, _)| self.alive[slot]) {
            let row = &mut rows[slot];
            row.tf = [0; COMMON_TERMS];
            self.fwd.each(m.fwd, |term, shape| {
                if let Some(tf) = row.tf.get_mut(usize::from(place[term as usize])) {
                    *tf = u8::try_from(self.shapes[shape as usize].0).unwrap_or(u8::MAX);
                }
            });
        }
        self.common = CommonTf { terms: common_terms, rows };
    }

    /// The live documents' postings, packed with `shape_bits` (10, 13 or 16) or as pairs
    /// (`None`), list after list as `starts` places them.
    pub(super) fn postings_packed(&self, shape_bits: Option<u32>) -> Postings {
        match shape_bits {
            Some(10) => Postings::Packed10(self.fill_lists(Packed::<10>)),
            Some(13) => Postings::Packed13(self.fill_lists(Packed::<13>)),
            Some(16) => Postings::Packed16(self.fill_lists(Packed::<16>)),
            _ => Postings::Wide(self.fill_lists(Wide)),
        }
    }

    /// The live documents' postings in `layout`, list after list as `starts` places them.
    fn fill_lists<L: Layout>(&self, layout: L) -> Vec<L::Entry> {
        let starts = &self.starts;
        let mut cursor: Vec<u32> = starts[..starts.len() - 1].to_vec();
        let mut postings = vec![L::Entry::default(); starts[starts.len() - 1] as usize];
        // (a packed entry holds the largest slot and shape whole, so it holds every one)
        let (last_slot, last_shape) = (self.slots().saturating_sub(1) as u32, self.shapes.len().saturating_sub(1) as u32);
        let last = layout.entry(last_slot, last_shape);
        assert!(layout.slot(last) == last_slot && layout.shape(last) == last_shape);
        for (slot, m) in self.meta.iter().enumerate().filter(|&(slot, _)| self.alive[slot]) {
            self.fwd.each(m.fwd, |term, shape| {
                // (pruned search reads these unchecked: terms index the per-term arrays —
                // `cursor` has one entry per term — and shapes index `shapes`; postings
                // take their shapes from here)
                assert!((shape as usize) < self.shapes.len());
                postings[cursor[term as usize] as usize] = layout.entry(slot as u32, shape);
                cursor[term as usize] += 1;
            });
        }
        postings
    }

    /// Recomputes the saturation table for the current average length (after documents
    /// were added or removed), so searches take the table path again.
    pub fn refresh_saturation(&mut self) {
        let avgdl = self.avgdl();
        if self.one_tf_valid(avgdl) {
            return;
        }
        let (k1, b) = (self.k1, self.b);
        self.shape_sat = self.shapes.iter().map(|&(tf, len)| saturation(tf, len, k1, b, avgdl)).collect();
        for (m, row) in self.meta.iter_mut().zip(&self.common.rows) {
            let len = row.len;
            let mut top_tf = 1;
            self.fwd.each(m.fwd, |_, shape| top_tf = top_tf.max(self.shapes[shape as usize].0));
            *m = DocMeta::new(m.sig, saturation(1, len, k1, b, avgdl), saturation(top_tf, len, k1, b, avgdl), m.fwd);
        }
        self.sat_avgdl = avgdl;
        // max_sat is only a bound: recompute it for this average length too.
        let mut max_sat = vec![0.0; self.terms()];
        with_lists!(self, |lists| {
            for (t, m) in max_sat.iter_mut().enumerate() {
                *m = lists.get(t as u32).iter().map(|&p| self.shape_sat[lists.layout.shape(p) as usize] / (k1 + 1.0)).fold(0.0, f64::max);
            }
        });
        self.max_sat = max_sat;
    }
}

/// Where each term's list starts in one array of all lists, given each term's list length;
/// one more entry at the end (the total).
fn list_starts(lengths: &[u32]) -> Vec<u32> {
    let mut starts = Vec::with_capacity(lengths.len() + 1);
    let mut at = 0u32;
    starts.push(0);
    for &n in lengths {
        at += n;
        starts.push(at);
    }
    starts
}

/// The (at most) `k` terms with the largest document frequency, most frequent first (ties:
/// the lower id); terms in no document are never chosen.
fn most_frequent(df: &[u32], k: usize) -> Vec<u32> {
    let by_df = |&t: &u32| (std::cmp::Reverse(df[t as usize]), t);
    let mut terms: Vec<u32> = (0..df.len() as u32).filter(|&t| df[t as usize] > 0).collect();
    if terms.len() > k && k > 0 {
        terms.select_nth_unstable_by_key(k - 1, by_df);
        terms.truncate(k);
    }
    terms.sort_unstable_by_key(by_df);
    terms
}

/// The id of the (tf, len) shape, added to the table when new.
#[inline]
fn shape_id(shapes: &mut Vec<(u32, u32)>, ids: &mut HashMap<u64, u32>, tf: u32, len: u32) -> u32 {
    let key = (u64::from(tf) << 32) | u64::from(len);
    *ids.entry(key).or_insert_with(|| {
        shapes.push((tf, len));
        (shapes.len() - 1) as u32
    })
}
