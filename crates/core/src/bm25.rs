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

    /// Heap bytes of this vocabulary's own maps (hash tables' buckets and control bytes).
    pub fn heap_bytes(&self) -> usize {
        self.short.capacity() * 33 + self.long.capacity() * 25 + self.long.keys().map(|k| k.len()).sum::<usize>()
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

/// Term counts of many documents in three flat arrays (one allocation each instead of
/// one per document): document i's (term, tf) pairs, in first-occurrence order, are
/// `counts[ends[i - 1]..ends[i]]`, and `lens[i]` is its token count.
#[derive(Debug, Clone, Default)]
pub struct DocSet {
    pub counts: Vec<(u32, u32)>,
    pub ends: Vec<u32>,
    pub lens: Vec<u32>,
}

impl DocSet {
    /// Appends a document given as term counts.
    pub fn push(&mut self, doc: &TermCounts) {
        self.counts.extend_from_slice(&doc.counts);
        self.ends.push(self.counts.len() as u32);
        self.lens.push(doc.len);
    }

    /// Appends a document given as its terms in order (duplicates count).
    pub fn push_terms(&mut self, terms: &[u32]) {
        let from = self.counts.len();
        for &t in terms {
            // Tool documents are short; a linear probe beats hashing here.
            match self.counts[from..].iter_mut().find(|(term, _)| *term == t) {
                Some((_, tf)) => *tf += 1,
                None => self.counts.push((t, 1)),
            }
        }
        self.ends.push(self.counts.len() as u32);
        self.lens.push(terms.len() as u32);
    }

    /// Appends every document of `other`, renumbering its terms through `remap`.
    pub fn append_remapped(&mut self, other: DocSet, remap: &[u32]) {
        let base = self.counts.len() as u32;
        self.counts.extend(other.counts.into_iter().map(|(t, tf)| (remap[t as usize], tf)));
        self.ends.extend(other.ends.into_iter().map(|e| e + base));
        self.lens.extend(other.lens);
    }

    pub fn len(&self) -> usize {
        self.lens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }
}

/// One posting: a document slot and its shape — the (tf, document length) pair, an index
/// into [`Bm25Index::shapes`]. Catalogs have few distinct shapes, so a term's saturation
/// in a document is one lookup in a small table instead of two divisions.
#[derive(Debug, Clone, Copy, Default)]
struct Posting {
    slot: u32,
    shape: u32,
}

/// How the posting lists store a (slot, shape) pair: [`Packed`] or [`Wide`].
trait Layout: Copy {
    type Entry: Copy + Default;
    fn entry(self, slot: u32, shape: u32) -> Self::Entry;
    fn slot(self, e: Self::Entry) -> u32;
    fn shape(self, e: Self::Entry) -> u32;
}

/// `slot << B | shape` in one u32, when every slot and shape id fit: half the memory of a
/// pair (~7 MB at 100,000 realistic tools) and half the bytes a search reads. B is a
/// constant (a few are compiled): shifting by a variable costs more µops per posting
/// than the halved reads save.
#[derive(Debug, Clone, Copy)]
struct Packed<const B: u32>;

impl<const B: u32> Layout for Packed<B> {
    type Entry = u32;
    #[inline(always)]
    fn entry(self, slot: u32, shape: u32) -> u32 {
        (slot << B) | shape
    }
    #[inline(always)]
    fn slot(self, e: u32) -> u32 {
        e >> B
    }
    #[inline(always)]
    fn shape(self, e: u32) -> u32 {
        e & ((1 << B) - 1)
    }
}

/// A [`Posting`] pair, for catalogs whose slots and shapes do not fit one u32.
#[derive(Debug, Clone, Copy)]
struct Wide;

impl Layout for Wide {
    type Entry = Posting;
    #[inline(always)]
    fn entry(self, slot: u32, shape: u32) -> Posting {
        Posting { slot, shape }
    }
    #[inline(always)]
    fn slot(self, e: Posting) -> u32 {
        e.slot
    }
    #[inline(always)]
    fn shape(self, e: Posting) -> u32 {
        e.shape
    }
}

/// Bits that hold every value below `n` (at least 1).
fn bits_for(n: usize) -> u32 {
    (usize::BITS - n.saturating_sub(1).leading_zeros()).max(1)
}

/// All posting lists, one after another, in one layout: packed with 10, 13 or 16 bits of
/// shape id (the fewest that hold the catalog's shapes) when the slots fit the rest.
#[derive(Debug)]
enum Postings {
    Packed10(Vec<u32>),
    Packed13(Vec<u32>),
    Packed16(Vec<u32>),
    Wide(Vec<Posting>),
}

/// The posting lists in layout `L`: term t's is `entries[starts[t]..starts[t + 1]]`.
#[derive(Clone, Copy)]
struct Lists<'a, L: Layout> {
    entries: &'a [L::Entry],
    starts: &'a [u32],
    layout: L,
}

impl<'a, L: Layout> Lists<'a, L> {
    /// Term `term`'s posting list (empty for an unknown term).
    #[inline]
    fn get(&self, term: u32) -> &'a [L::Entry] {
        match (self.starts.get(term as usize), self.starts.get(term as usize + 1)) {
            (Some(&from), Some(&to)) => &self.entries[from as usize..to as usize],
            _ => &[],
        }
    }
}

/// Runs `$body` with `$lists` bound to `$index`'s posting lists in their layout (the
/// loops are compiled once per layout).
macro_rules! with_lists {
    ($index:expr, |$lists:ident| $body:expr) => {
        match &$index.postings {
            Postings::Packed10(entries) => {
                let $lists = Lists { entries, starts: &$index.starts, layout: Packed::<10> };
                $body
            }
            Postings::Packed13(entries) => {
                let $lists = Lists { entries, starts: &$index.starts, layout: Packed::<13> };
                $body
            }
            Postings::Packed16(entries) => {
                let $lists = Lists { entries, starts: &$index.starts, layout: Packed::<16> };
                $body
            }
            Postings::Wide(entries) => {
                let $lists = Lists { entries, starts: &$index.starts, layout: Wide };
                $body
            }
        }
    };
}

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

/// The forward index's (term, shape) pairs, each packed into one u32 (term above
/// `shape_bits` bits of shape) when every term and shape id fit — half the memory of a
/// pair, ~7 MB at 100,000 realistic tools; a pair each otherwise.
#[derive(Debug)]
enum Forward {
    Packed { entries: Vec<u32>, shape_bits: u32 },
    Wide(Vec<(u32, u32)>),
}

impl Default for Forward {
    fn default() -> Self {
        Forward::Wide(Vec::new())
    }
}

impl Forward {
    /// `pairs`, packed when terms below `terms` and shapes below `shapes` fit in 32 bits.
    fn new(pairs: Vec<(u32, u32)>, terms: usize, shapes: usize) -> Self {
        let shape_bits = bits_for(shapes);
        if shape_bits + bits_for(terms) > 32 || pairs.iter().any(|&(t, s)| t as usize >= terms || s as usize >= shapes) {
            let mut pairs = pairs;
            // (grown by doubling; giving back the spare capacity moves nothing)
            pairs.shrink_to_fit();
            return Forward::Wide(pairs);
        }
        Forward::Packed { entries: pairs.iter().map(|&(t, s)| (t << shape_bits) | s).collect(), shape_bits }
    }

    fn len(&self) -> usize {
        match self {
            Forward::Packed { entries, .. } => entries.len(),
            Forward::Wide(pairs) => pairs.len(),
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Forward::Packed { entries, .. } => entries.capacity() * 4,
            Forward::Wide(pairs) => pairs.capacity() * 8,
        }
    }

    /// Calls `f(term, shape)` for the entries in `range`, in order.
    #[inline(always)]
    fn each(&self, range: (u32, u32), mut f: impl FnMut(u32, u32)) {
        let (from, to) = (range.0 as usize, range.1 as usize);
        match self {
            Forward::Packed { entries, shape_bits } => {
                let mask = (1u32 << shape_bits) - 1;
                for &e in &entries[from..to] {
                    f(e >> shape_bits, e & mask);
                }
            }
            Forward::Wide(pairs) => {
                for &(term, shape) in &pairs[from..to] {
                    f(term, shape);
                }
            }
        }
    }

    /// All entries as pairs.
    fn to_pairs(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::with_capacity(self.len());
        self.each((0, self.len() as u32), |term, shape| out.push((term, shape)));
        out
    }
}

/// How many of the most frequent terms [`CommonTf`] keeps a tf for.
const COMMON_TERMS: usize = 12;

/// The tf of the catalog's most frequent terms (the longest posting lists) in every
/// document, with the document's length: 16 bytes a document. Pruned search leaves those
/// lists unread, so without this a candidate could only be bounded by the terms' largest
/// possible scores; with it, a candidate's unread common words add their exact score (up to
/// rounding), and far fewer candidates need their exact score from the forward index.
/// The tfs are rebuilt with the posting lists, so the chosen terms follow the current
/// frequencies.
#[derive(Debug, Default)]
struct CommonTf {
    /// The chosen terms, most frequent first.
    terms: Vec<u32>,
    /// Per slot: its length (0 once removed) and each chosen term's tf (255: 255 or more).
    rows: Vec<CommonRow>,
}

#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(16))]
struct CommonRow {
    len: u32,
    tf: [u8; COMMON_TERMS],
}

impl CommonTf {
    /// Which place `term` has among the chosen terms.
    fn place(&self, term: u32) -> Option<usize> {
        self.terms.iter().position(|&t| t == term)
    }
}

/// Per-slot facts [`Bm25Index::score_top`] reads for each candidate document, packed so a
/// candidate costs one cache miss instead of one per array.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
struct DocMeta {
    /// A two-bit-per-term filter of its terms (a clear bit proves a term absent).
    sig: u128,
    /// [`saturation`] at `sat_avgdl` and the document's length, at tf 1 and at its largest
    /// tf (equal when no term repeats in it), rounded up to f32 (they only bound scores);
    /// NaN until known.
    one_sat: f32,
    top_sat: f32,
    /// Its range in the forward index.
    fwd: (u32, u32),
}

impl DocMeta {
    fn new(sig: u128, one_sat: f64, top_sat: f64, fwd: (u32, u32)) -> Self {
        Self { sig, one_sat: f32_at_least(one_sat), top_sat: f32_at_least(top_sat), fwd }
    }
}

/// How many candidates ahead [`Bm25Index::score_top`] requests document records.
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

/// The largest f32 not above `x` (NaN stays NaN).
fn f32_at_most(x: f64) -> f32 {
    -f32_at_least(-x)
}

/// The smallest f32 not below `x` (NaN stays NaN).
fn f32_at_least(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) < x {
        if f == 0.0 {
            f32::from_bits(1)
        } else if f > 0.0 {
            f32::from_bits(f.to_bits() + 1)
        } else {
            f32::from_bits(f.to_bits() - 1)
        }
    } else {
        f
    }
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
    fn postings_packed(&self, shape_bits: Option<u32>) -> Postings {
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

    /// Number of terms with a (possibly empty) posting list.
    fn terms(&self) -> usize {
        self.starts.len() - 1
    }

    /// Document frequency of a term.
    pub fn df(&self, term: u32) -> usize {
        match (self.starts.get(term as usize), self.starts.get(term as usize + 1)) {
            (Some(&from), Some(&to)) => (to - from) as usize,
            _ => 0,
        }
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
}

impl Bm25Index {
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

/// Two bits of a 128-bit per-document term filter.
#[inline(always)]
fn term_bits(term: u32) -> u128 {
    let h = u64::from(term).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (1u128 << (h >> 57)) | (1u128 << ((h >> 50) & 127))
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

/// One query term's BM25 contribution to one document, with the reference's operations in
/// the reference's order (every path that produces a returned score uses this, or the
/// precomputed [`saturation`] for tf 1, which is the same operations).
#[inline(always)]
fn term_score(idf: f64, tf: u32, len: u32, k1: f64, b: f64, avgdl: f64) -> f64 {
    idf * saturation(tf, len, k1, b, avgdl)
}

/// `tf·(k1 + 1) / (tf + k1(1 - b + b·len/avgdl))`, as the reference computes it.
#[inline(always)]
fn saturation(tf: u32, len: u32, k1: f64, b: f64, avgdl: f64) -> f64 {
    let tf = f64::from(tf);
    let numerator = tf * (k1 + 1.0);
    let denominator = tf + k1 * (1.0 - b + b * (f64::from(len) / avgdl));
    numerator / denominator
}

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
        let layout = lists.layout;
        let avgdl = self.avgdl();
        let (k1, b) = (self.k1, self.b);
        // The bounds need tf/(tf + k1(1 - b + b·len/avgdl)) to grow with tf and shrink with
        // len; long queries would make the distinct-term bookkeeping quadratic.
        let bounded = k1 > 0.0 && (0.0..=1.0).contains(&b) && avgdl > 0.0 && avgdl.is_finite();
        if !bounded || query_terms.len() > MAX_PRUNED_QUERY_TOKENS || limit > SMALL_LIMIT {
            return self.top_exhaustive(query_terms, limit);
        }
        let mut terms: Vec<PruneTerm<'_, L::Entry>> = Vec::new();
        // per query token (in order) with a non-empty list: its distinct-term index
        let mut seq: Vec<u8> = Vec::with_capacity(query_terms.len());
        let mut total = 0usize;
        for (pos, &t) in query_terms.iter().enumerate() {
            let Some(t) = t else { continue };
            let list = lists.get(t);
            if list.is_empty() {
                continue;
            }
            let u = match terms.iter().position(|x| x.id == t) {
                Some(u) => u,
                None => {
                    total += list.len();
                    terms.push(PruneTerm { id: t, list, idf: self.idf(list.len()), first: pos as u32, mult: 0, bound: 0.0 });
                    terms.len() - 1
                }
            };
            terms[u].mult += 1;
            seq.push(u as u8);
        }
        if terms.is_empty() {
            return Vec::new();
        }
        // Small problems: scoring everything is as cheap as the bookkeeping.
        if total <= limit.saturating_mul(4).max(min_postings) || terms.len() == 1 {
            return self.top_exhaustive(query_terms, limit);
        }
        for t in &mut terms {
            t.bound = self.term_bound(t.id, t.idf, avgdl) * f64::from(t.mult) * (1.0 + BOUND_MARGIN);
        }
        // distinct terms by descending bound; rest[i] = sum of the bounds of order[i..]
        let mut order: Vec<usize> = (0..terms.len()).collect();
        order.sort_by(|&x, &y| terms[y].bound.total_cmp(&terms[x].bound));
        let mut rest = vec![0.0f64; order.len() + 1];
        for i in (0..order.len()).rev() {
            rest[i] = rest[i + 1] + terms[order[i]].bound;
        }
        // `cannot(bound, theta)`: a document whose score is at most `bound` ranks below the
        // `limit`-th best. Strict, so documents tying the threshold are still scored.
        let cannot = |bound: f64, theta: f64| bound * (1.0 + BOUND_MARGIN) < theta;
        let fast = self.one_tf_valid(avgdl);

        let mut scratch = PRUNE.with(|cell| std::mem::take(&mut *cell.borrow_mut()));
        let PruneScratch { partial, query_term, contrib, candidates: candidates_scratch } = &mut scratch;
        if partial.len() < self.slots() {
            partial.resize(self.slots(), 0.0);
        }
        if query_term.len() < self.terms() {
            query_term.resize(self.terms(), 0);
        }
        for (u, t) in terms.iter().enumerate() {
            query_term[t.id as usize] = u as u8 + 1;
        }
        // What the unchecked accesses below rely on, besides what `rebuild_lists` checked
        // (every forward entry's term and shape): every list's slots index `partial` (a
        // list is in slot order, so its last posting has the largest slot), `query_term`
        // covers every term, its places fit a u8, and with `fast` the saturation table
        // matches the shapes.
        assert!(terms.iter().all(|t| t.list.last().is_none_or(|&p| (layout.slot(p) as usize) < partial.len())));
        assert!(query_term.len() >= self.terms() && terms.len() < usize::from(u8::MAX));
        assert!(!fast || self.shape_sat.len() == self.shapes.len());
        // (place 0 takes the writes of a document's other terms; query term u is place u + 1)
        contrib.clear();
        contrib.resize(terms.len() + 1, 0.0);
        let idf_at: Vec<f64> = std::iter::once(0.0).chain(terms.iter().map(|t| t.idf)).collect();
        assert!(contrib.len() == terms.len() + 1 && idf_at.len() == contrib.len());
        // A document's exact score, from its own term list (the forward index): the
        // exhaustive path's arithmetic (0 + each matching query token's score, in query
        // order) and its first matching query token, which orders ties.
        let exact = |d: u32, contrib: &mut [f64], query_term: &[u8]| -> Ranked {
            contrib.iter_mut().for_each(|c| *c = 0.0);
            let range = self.meta[d as usize].fwd;
            if fast {
                // Branch-free: every term of the document writes, the query's to their places.
                self.fwd.each(range, |term, shape| {
                    // SAFETY: see the checks after `query_term` is filled; its places
                    // index `contrib` and `idf_at` (checked below).
                    unsafe {
                        let u = usize::from(*query_term.get_unchecked(term as usize));
                        *contrib.get_unchecked_mut(u) = idf_at.get_unchecked(u) * self.shape_sat.get_unchecked(shape as usize);
                    }
                });
            } else {
                self.fwd.each(range, |term, shape| {
                    let u = usize::from(query_term[term as usize]);
                    if u != 0 {
                        contrib[u] = self.contribution(idf_at[u], shape, fast, avgdl);
                    }
                });
            }
            let mut score = 0.0f64;
            let mut first = u32::MAX;
            for &u in &seq {
                let x = contrib[u as usize + 1];
                if x != 0.0 {
                    score += x;
                    first = first.min(terms[u as usize].first);
                }
            }
            Ranked { score, first, slot: d }
        };
        // The result so far: exactly scored documents, best first, distinct. Once it holds
        // `limit`, `limit` documents score at least its last, which sets the threshold.
        let mut best: Vec<Ranked> = Vec::with_capacity(limit + 1);
        let threshold = |best: &[Ranked]| if best.len() == limit { best[limit - 1].score * (1.0 - BOUND_MARGIN) } else { f64::NEG_INFINITY };
        // Scores document `d` exactly and offers it to the result, unless it is there already.
        let admit = |d: u32, best: &mut Vec<Ranked>, contrib: &mut [f64], query_term: &[u8]| {
            if !best.iter().any(|b| b.slot == d) {
                offer(best, limit, exact(d, contrib, query_term));
            }
        };
        // Offers the `limit` best documents by partial score among those the lists
        // `order[..lists]` touched, scored exactly, to the result.
        let offer_leaders = |lists: usize, partial: &[f32], contrib: &mut [f64], query_term: &[u8], best: &mut Vec<Ranked>| {
            let mut leaders: Vec<(f64, u32)> = Vec::with_capacity(limit + 1);
            // the last leader's score once `limit` are held (scores are never below 0)
            let mut floor = f64::NEG_INFINITY;
            for &i in &order[..lists] {
                for &p in terms[i].list {
                    let slot = layout.slot(p);
                    // SAFETY: see the checks after `query_term` is filled.
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
                admit(d, best, contrib, query_term);
            }
        };
        // Phase 1: whole lists, highest bounds first, until documents in none of the read
        // lists cannot make the top. The threshold is taken once while reading
        // (MAX_THRESHOLDS), after the first list(s).
        let mut theta = f64::NEG_INFINITY;
        let mut read = 0usize;
        let mut touched_at_most = 0usize;
        let mut thresholds = 0;
        while read < order.len() {
            if touched_at_most >= limit && !cannot(rest[read], theta) && thresholds < MAX_THRESHOLDS {
                thresholds += 1;
                offer_leaders(read, partial, contrib, query_term, &mut best);
                theta = theta.max(threshold(&best));
            }
            if cannot(rest[read], theta) {
                break;
            }
            let t = &terms[order[read]];
            // (partial scores only guide pruning: f32, half the memory traffic, with
            // PARTIAL_SLACK covering their rounding)
            let weight = t.idf * f64::from(t.mult);
            if fast {
                let sat = &self.shape_sat[..];
                let partial = &mut partial[..];
                for &p in t.list {
                    // SAFETY: see the checks after `query_term` is filled.
                    unsafe {
                        *partial.get_unchecked_mut(layout.slot(p) as usize) += (weight * *sat.get_unchecked(layout.shape(p) as usize)) as f32;
                    }
                }
            } else {
                for &p in t.list {
                    let (tf, len) = self.shapes[layout.shape(p) as usize];
                    partial[layout.slot(p) as usize] += (weight * saturation(tf, len, k1, b, avgdl)) as f32;
                }
            }
            touched_at_most += t.list.len();
            read += 1;
        }
        // Phase 2: the touched documents (each once: its partial score is reset on the
        // first visit) that can still reach the threshold by the unread lists' bounds...
        // (Branch-free: a repeat visit reads 0, and 0 + the unread bounds cannot make it,
        // or phase 1 would not have stopped.)
        let read_postings: usize = order[..read].iter().map(|&i| terms[i].list.len()).sum();
        // The best documents by partial score are almost always in the first (highest
        // bound, usually shortest) lists: their leaders, scored exactly, raise the threshold
        // before the touched documents are collected, so far fewer are kept.
        let mut lists = 1usize;
        let mut leader_postings = terms[order[0]].list.len();
        while lists < read && leader_postings + terms[order[lists]].list.len() <= read_postings / LEADER_SHARE {
            leader_postings += terms[order[lists]].list.len();
            lists += 1;
        }
        if read > 0 {
            offer_leaders(lists.min(read), partial, contrib, query_term, &mut best);
            theta = theta.max(threshold(&best));
        }
        // (reused across searches: only ever grown, every kept entry is written first)
        let mut candidates = std::mem::take(candidates_scratch);
        if candidates.len() < read_postings {
            candidates.resize(read_postings, (0.0, 0));
        }
        let mut kept = 0usize;
        // A kept document's partial score (times 1 + PARTIAL_SLACK) plus the unread bounds
        // can reach the threshold; at least the smallest positive f32, so repeat visits
        // (which read 0) never count.
        let reach = f32_at_most((theta / (1.0 + BOUND_MARGIN) - rest[read]) / (1.0 + PARTIAL_SLACK)).max(f32::from_bits(1));
        // The last read lists (lowest bounds, usually the longest) whose bounds together
        // stay below `reach` cannot lift a document to it alone: every kept document is in
        // one of the others, so those lists are only walked to reset their documents.
        let mut collect = read;
        let mut tail = 0.0f64;
        while collect > 0 && (tail + terms[order[collect - 1]].bound) * (1.0 + PARTIAL_SLACK) < f64::from(reach) {
            tail += terms[order[collect - 1]].bound;
            collect -= 1;
        }
        let partial = &mut partial[..];
        // (slots: see the checks after `query_term` is filled; `kept` counts at most the
        // postings walked so far, and `candidates` has room for all read postings)
        assert!(candidates.len() >= read_postings);
        for &i in &order[..collect] {
            for &p in terms[i].list {
                let slot = layout.slot(p);
                // SAFETY: see above.
                unsafe {
                    let partial_score = std::mem::take(partial.get_unchecked_mut(slot as usize));
                    *candidates.get_unchecked_mut(kept) = (partial_score, slot);
                    kept += usize::from(partial_score >= reach);
                }
            }
        }
        // The other lists' documents are reset: by walking those lists, or, when they hold
        // many postings for the catalog's size, by clearing every partial score (one
        // sequential pass instead of a scattered write per posting).
        let tail_postings: usize = order[collect..read].iter().map(|&i| terms[i].list.len()).sum();
        if tail_postings.saturating_mul(RESET_ALL_FROM) >= self.slots() {
            partial[..self.slots()].fill(0.0);
        } else {
            for &i in &order[collect..read] {
                for &p in terms[i].list {
                    // SAFETY: see above.
                    unsafe { *partial.get_unchecked_mut(layout.slot(p) as usize) = 0.0 };
                }
            }
        }
        let mut candidates_all = candidates;
        let candidates = &mut candidates_all[..kept];
        // ...the best of them by partial score, scored exactly, raise the threshold...
        if candidates.len() > limit {
            let (leaders, _, _) = candidates.select_nth_unstable_by(limit, |a, b| b.0.total_cmp(&a.0));
            for &(_, d) in leaders.iter() {
                admit(d, &mut best, contrib, query_term);
            }
            theta = theta.max(threshold(&best));
        }
        // ...then each that can still reach it by the unread terms it may hold (its term
        // filter) at its own length is scored exactly; the threshold rises as they come.
        // (unread terms highest bound first)
        let unread: Vec<UnreadTerm> = order[read..]
            .iter()
            .map(|&i| {
                let t = &terms[i];
                UnreadTerm {
                    bits: term_bits(t.id),
                    bound: t.bound,
                    weight: t.idf * f64::from(t.mult) * (1.0 + BOUND_MARGIN),
                    once_only: self.max_tf[t.id as usize] == 1,
                    common: self.common.place(t.id).unwrap_or(usize::MAX),
                }
            })
            .collect();
        // When every unread term is a common one, a candidate's common-term row bounds them
        // all exactly and its document record is only read if it is scored.
        let needs_meta = unread.iter().any(|u| u.common >= COMMON_TERMS);
        'candidates: for (i, &(partial_score, d)) in candidates.iter().enumerate() {
            // (the records of candidates a few places ahead are requested now: their cache
            // misses overlap with this one's work)
            if let Some(&(_, ahead)) = candidates.get(i + PREFETCH_AHEAD) {
                if needs_meta {
                    prefetch(&self.meta[ahead as usize]);
                }
                prefetch(&self.common.rows[ahead as usize]);
            }
            let mut bound = f64::from(partial_score) * (1.0 + PARTIAL_SLACK) + rest[read];
            if cannot(bound, theta) {
                continue;
            }
            // Tighten the unread terms' bounds for this document, largest first, and drop
            // it as soon as it cannot make the top: a term its filter proves absent adds
            // nothing; a term that occurs once here (it never repeats, or nothing repeats in
            // this document) adds exactly its score at this document's length.
            let meta = &self.meta[d as usize];
            let row = &self.common.rows[d as usize];
            for u in &unread {
                if let Some(&tf) = row.tf.get(u.common) {
                    if tf == 0 {
                        bound -= u.bound;
                    } else if tf < u8::MAX {
                        // (the saturation exact scoring computes; the weight's margin covers
                        // the rounding of adding it `mult` times)
                        bound -= u.bound - (u.weight * saturation(u32::from(tf), row.len, k1, b, avgdl)).min(u.bound);
                    }
                } else if meta.sig & u.bits != u.bits {
                    bound -= u.bound;
                } else if fast {
                    // (at most its score at the document's largest tf; exactly the tf-1 one
                    // when it never repeats)
                    bound -= u.bound - (u.weight * f64::from(if u.once_only { meta.one_sat } else { meta.top_sat })).min(u.bound);
                } else {
                    continue;
                }
                if cannot(bound, theta) {
                    continue 'candidates;
                }
            }
            admit(d, &mut best, contrib, query_term);
            theta = theta.max(threshold(&best));
        }
        for t in &terms {
            query_term[t.id as usize] = 0;
        }
        *candidates_scratch = candidates_all;
        PRUNE.with(|cell| *cell.borrow_mut() = scratch);
        best.into_iter().map(|r| Scored { slot: r.slot, score: r.score }).collect()
    }

    /// An upper bound on `term`'s score in any document holding it: its score at the
    /// largest tf and the shortest document among its postings (the score grows with tf
    /// and falls with length); the caller adds the rounding margin.
    /// Whether `shape_sat` holds this average length's values for every shape.
    #[inline]
    fn one_tf_valid(&self, avgdl: f64) -> bool {
        avgdl.to_bits() == self.sat_avgdl.to_bits() && self.shape_sat.len() == self.shapes.len()
    }

    /// [`term_score`] of a posting; `fast` = [`Self::one_tf_valid`].
    #[inline(always)]
    fn contribution(&self, idf: f64, shape: u32, fast: bool, avgdl: f64) -> f64 {
        if fast {
            idf * self.shape_sat[shape as usize]
        } else {
            let (tf, len) = self.shapes[shape as usize];
            term_score(idf, tf, len, self.k1, self.b, avgdl)
        }
    }

    /// `top_by_score(self.score(query_terms), limit)`, the fastest way for `limit`.
    fn top_exhaustive(&self, query_terms: &[Option<u32>], limit: usize) -> Vec<Scored> {
        if limit <= SMALL_LIMIT {
            self.top_dense(query_terms, limit)
        } else {
            top_by_score(self.score(query_terms), limit)
        }
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
struct PruneScratch {
    /// partial scores by slot
    partial: Vec<f32>,
    /// by term id: 1 + the term's index among the query's distinct terms, 0 = not in the query
    query_term: Vec<u8>,
    /// per distinct query term: its contribution to the document being scored exactly
    contrib: Vec<f64>,
    /// (partial score, slot) of the documents phase 2 considers
    candidates: Vec<(f32, u32)>,
}

thread_local! {
    static PRUNE: std::cell::RefCell<PruneScratch> = std::cell::RefCell::new(PruneScratch::default());
    /// Per-thread scratch for [`Bm25Index::top_dense`]: scores by slot (zeros between calls), touched slots.
    static DENSE: std::cell::RefCell<(Vec<f64>, Vec<u32>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
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

    /// Random catalogs over tiny vocabularies (many exact ties, repeated words, empty and
    /// long documents, removed and re-added documents) and random queries with repeated
    /// and unknown words: the pruned top equals the exhaustive one exactly, bit for bit,
    /// and each search leaves its partial scores cleared.
    #[test]
    fn pruned_top_equals_exhaustive_on_random_catalogs() {
        let mut next = crate::test_support::xorshift(0x9E37_79B9_7F4A_7C15u64);
        let mut checked = 0usize;
        for round in 0..150 {
            let words = 2 + next(40) as usize;
            let docs = 1 + next(if round % 3 == 0 { 3000 } else { 400 }) as usize;
            let mut vocab = Vocab::new();
            let mut built = Vec::new();
            for _ in 0..docs {
                let cap = if next(10) == 0 { 60 } else { 12 };
                let len = next(cap) as usize;
                // skewed word choice: low ids are common, like stopwords
                let terms: Vec<u32> = (0..len)
                    .map(|_| {
                        let spread = 1 + next(words as u64);
                        vocab.intern(&format!("w{}", next(spread)))
                    })
                    .collect();
                built.push(TermCounts::from_terms(terms));
            }
            let batch = round % 2 == 0;
            let mut index;
            // the same catalog in the packed layouts, to compare with the pair layouts
            let mut packed_twin = None;
            // (one by one only for small sets: each add rebuilds the lists)
            if batch && docs <= 400 {
                // the batch build's precomputed tf-1 values give the incremental build's bits
                let mut incremental = Bm25Index::default();
                for d in &built {
                    incremental.add(d.clone());
                }
                index = Bm25Index::from_docs(built, vocab.len());
                let all: Vec<Option<u32>> = (0..vocab.len() as u32).map(Some).collect();
                let bits = |i: &Bm25Index| i.score(&all).iter().map(|s| (s.slot, s.score.to_bits())).collect::<Vec<_>>();
                assert_eq!(bits(&index), bits(&incremental), "round {round}");
            } else if batch {
                index = Bm25Index::from_docs(built, vocab.len());
            } else if round % 5 == 1 {
                // the other layouts: the pairs of catalogs whose terms, slots and shapes do
                // not fit one u32, and wider packings (more shapes)
                index = Bm25Index::from_docs(built.clone(), vocab.len());
                packed_twin = Some(Bm25Index::from_docs(built, vocab.len()));
                assert!(matches!(index.postings, Postings::Packed10(_)));
                let layout = [None, Some(13), Some(16)][round / 5 % 3];
                if layout.is_none() {
                    index.fwd = Forward::Wide(index.fwd.to_pairs());
                }
                index.postings = index.postings_packed(layout);
            } else {
                index = Bm25Index::from_docs(built, vocab.len());
                // then removals and re-additions, which move documents to new slots
                for _ in 0..next(5) {
                    let slot = next(docs as u64) as u32;
                    if let Some(doc) = index.doc(slot) {
                        index.remove(slot);
                        if next(2) == 0 {
                            index.add(doc);
                        }
                    }
                }
            }
            for _ in 0..24 {
                let qlen = 1 + next(20) as usize;
                let terms: Vec<Option<u32>> = (0..qlen)
                    .map(|_| {
                        let spread = 1 + next(words as u64 + 3);
                        vocab.get(&format!("w{}", next(spread)))
                    })
                    .collect();
                if let Some(twin) = &packed_twin {
                    let bits = |i: &Bm25Index| i.score(&terms).iter().map(|s| (s.slot, s.score.to_bits())).collect::<Vec<_>>();
                    assert_eq!(bits(&index), bits(twin), "round {round}");
                }
                for limit in [1, 2, 10, 65, 200] {
                    let exhaustive = top_by_score(index.score(&terms), limit);
                    let pruned = index.score_top_from(&terms, limit, 0);
                    // (every partial score is back at 0 for the next search, whichever way
                    // it was reset)
                    PRUNE.with(|cell| assert!(cell.borrow().partial.iter().all(|&x| x == 0.0), "round {round} limit {limit}"));
                    assert_eq!(pruned.len(), exhaustive.len(), "round {round} limit {limit}");
                    for (p, e) in pruned.iter().zip(&exhaustive) {
                        assert_eq!((p.slot, p.score.to_bits()), (e.slot, e.score.to_bits()), "round {round} limit {limit}");
                    }
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 150 * 24 * 5);
    }

    /// The common-term table holds the most frequent terms' tf (capped at 255) and each
    /// live document's length, after a batch build and after removals and additions; a
    /// word repeated past the cap still prunes exactly.
    #[test]
    fn common_tf_rows_follow_the_documents() {
        let mut vocab = Vocab::new();
        let mut docs = Vec::new();
        for d in 0..300u32 {
            let mut terms: Vec<u32> = Vec::new();
            for w in 0..20u32 {
                // word w is in about 1/(w+1) of the documents, up to 3 times
                if d % (w + 1) == 0 {
                    for _ in 0..=(d + w) % 3 {
                        terms.push(vocab.intern(&format!("w{w}")));
                    }
                }
            }
            if d == 7 {
                terms.extend(std::iter::repeat_n(vocab.intern("w0"), 300));
            }
            docs.push(TermCounts::from_terms(terms));
        }
        let check = |index: &Bm25Index| {
            assert_eq!(index.common.terms.len(), COMMON_TERMS);
            let dfs: Vec<usize> = index.common.terms.iter().map(|&t| index.df(t)).collect();
            assert!(dfs.windows(2).all(|w| w[0] >= w[1]), "most frequent first: {dfs:?}");
            let least = *dfs.last().unwrap();
            assert!((0..index.terms() as u32).filter(|t| !index.common.terms.contains(t)).all(|t| index.df(t) <= least));
            for slot in 0..index.slots() as u32 {
                let Some(doc) = index.doc(slot) else { continue };
                let row = &index.common.rows[slot as usize];
                assert_eq!(row.len, doc.len, "slot {slot}");
                for (place, &term) in index.common.terms.iter().enumerate() {
                    let tf = doc.counts.iter().find(|c| c.0 == term).map_or(0, |c| c.1);
                    assert_eq!(u32::from(row.tf[place]), tf.min(255), "slot {slot} term {term}");
                }
            }
        };
        let mut index = Bm25Index::from_docs(docs, vocab.len());
        check(&index);
        assert_eq!(index.common.rows[7].tf[index.common.place(vocab.get("w0").unwrap()).unwrap()], u8::MAX);
        for slot in [3, 7, 150] {
            let doc = index.doc(slot).unwrap();
            index.remove(slot);
            check(&index);
            index.add(doc);
            check(&index);
        }
        index.refresh_saturation();
        let w = |i: u32| vocab.get(&format!("w{i}"));
        for query in [vec![w(0), w(1), w(19)], vec![w(0), w(0), w(2), w(3), w(4), w(18)], vec![w(17), w(0), w(5), w(1)]] {
            for limit in [1, 3, 10] {
                let exhaustive = top_by_score(index.score(&query), limit);
                let pruned = index.score_top_from(&query, limit, 0);
                let bits = |v: &[Scored]| v.iter().map(|s| (s.slot, s.score.to_bits())).collect::<Vec<_>>();
                assert_eq!(bits(&pruned), bits(&exhaustive));
            }
        }
    }

    /// Forward entries pack into one u32 while every term and shape id fits, and read back
    /// the same either way.
    #[test]
    fn forward_entries_pack_when_they_fit() {
        let pairs = vec![(0, 0), (5, 2), (1023, 4), (7, 0)];
        let packed = Forward::new(pairs.clone(), 1024, 5);
        assert!(matches!(packed, Forward::Packed { shape_bits: 3, .. }));
        assert_eq!(packed.to_pairs(), pairs);
        let mut middle = Vec::new();
        packed.each((1, 3), |t, s| middle.push((t, s)));
        assert_eq!(middle, pairs[1..3]);
        assert_eq!([1, 2, 3, 4, 5, 1 << 20, (1 << 20) + 1].map(bits_for), [1, 1, 2, 2, 3, 20, 21]);
        // 2^29 terms need 29 bits, 5 shapes 3: 32 fit; 9 shapes need 4
        assert!(matches!(Forward::new(pairs.clone(), 1 << 29, 5), Forward::Packed { .. }));
        let wide = Forward::new(pairs.clone(), 1 << 29, 9);
        assert!(matches!(wide, Forward::Wide(_)));
        assert_eq!(wide.to_pairs(), pairs);
        // an entry outside the stated ranges is kept as it is
        assert!(matches!(Forward::new(vec![(3, 9)], 4, 5), Forward::Wide(_)));
        assert!(matches!(Forward::new(Vec::new(), 0, 0), Forward::Packed { .. }));
        // a built catalog packs
        let (index, _) = index_of(&["alpha beta beta", "beta gamma", "delta"]);
        assert!(matches!(index.fwd, Forward::Packed { .. }));
        assert!(!matches!(index.postings, Postings::Wide(_)));
        let (batch, vocab) = index_of(&["alpha beta beta", "beta gamma", "delta"]);
        let docs: Vec<TermCounts> = (0..3).map(|s| batch.doc(s).unwrap()).collect();
        assert!(matches!(Bm25Index::from_docs(docs, vocab.len()).fwd, Forward::Packed { .. }));
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
        let docs: Vec<TermCounts> = (0..3).map(|s| incremental.doc(s).unwrap()).collect();
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
