//! Field-weighted BM25 (BM25F) over analysed units, re-weighted by how much of each
//! document the query covers.
//!
//! Per field, term frequencies are length-normalised and weighted, summed into one pseudo
//! frequency, then saturated once (Robertson & Zaragoza's BM25F). All of that depends only
//! on the document, so each posting stores its final saturated value and a query costs one
//! multiply-add per posting.
//!
//! Coverage: BM25 rewards a document for each query word it contains but not for how much
//! of the document those words account for. A tool whose short name or description is
//! mostly matched by the query is a better answer than one that shares a single word with
//! it, so per field the score is multiplied by `1 + w · (idf mass of the field's distinct
//! words that the query matched / idf mass of all of them)`.

use std::cell::RefCell;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::analyzer::{stem, tokenize, Token};
use super::fuzzy::FuzzyIndex;

/// Searchable fields of a tool or skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// Tool id or skill name.
    Name,
    Description,
    /// Input-schema parameter names and descriptions.
    Params,
    /// Skill body.
    Body,
    /// Skill reference files.
    References,
}

const FIELDS: usize = 5;

impl Field {
    fn idx(self) -> usize {
        match self {
            Field::Name => 0,
            Field::Description => 1,
            Field::Params => 2,
            Field::Body => 3,
            Field::References => 4,
        }
    }
}

/// Scoring knobs. The defaults are the shipped ranking; other values exist for the
/// quality harness only.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// Per-field weight (Name, Description, Params, Body, References). Names are short
    /// and precise; long free text weighs less per hit.
    pub field_weight: [f32; FIELDS],
    /// Per-field length normalisation strength.
    pub field_b: [f32; FIELDS],
    pub k1: f32,
    /// Query weights: a word's stem; extra credit when its exact inflected form matches too.
    pub w_stem: f32,
    pub w_surface: f32,
    /// Joined identifiers (`sendemail` from `send_email`).
    pub w_whole: f32,
    /// CJK bigrams and katakana words …
    pub w_cjk: f32,
    /// … and single CJK characters: lower, so a document with the exact bigram outranks
    /// one that only has its characters apart.
    pub w_cjk_part: f32,
    /// Typo matches count less than real ones: one edit, two edits.
    pub w_fuzzy: [f32; 2],
    /// Related word forms: a query stem that is a prefix of an indexed stem, or the reverse
    /// (`rent` ~ `rental`), for stems of `prefix_min`+ characters.
    pub w_prefix: f32,
    pub prefix_min: f32,
    pub prefix_ratio: f32,
    /// Exponent on the idf (above 1 favours rare words more).
    pub idf_pow: f32,
    /// Per-field coverage weight `w` (see the module docs); 0 turns a field's factor off.
    pub coverage: [f32; FIELDS],
}

/// Tuned on the even (0-based) query lines of the MetaTool set only; see
/// `examples/quality.rs`. Nothing here refers to that set's tools or words. Coverage for
/// Params, Body and References is off: that set has no such fields to tune it on.
/// `w_cjk_part` was chosen on the dev split of `data/multilingual` (MetaTool has no CJK).
impl Default for Tuning {
    fn default() -> Self {
        Self {
            field_weight: [1.2, 1.0, 0.6, 0.8, 0.4],
            field_b: [0.4, 0.0, 0.75, 0.75, 0.75],
            k1: 4.0,
            w_stem: 1.0,
            w_surface: 0.05,
            w_whole: 0.5,
            w_cjk: 1.0,
            w_cjk_part: 0.15,
            w_fuzzy: [0.2, 0.2],
            w_prefix: 0.3,
            prefix_min: 3.0,
            prefix_ratio: 0.65,
            idf_pow: 1.5,
            coverage: [0.7, 1.0, 0.0, 0.0, 0.0],
        }
    }
}

const MAX_FUZZY: usize = 3;

/// Relative slack on bounds of f32 scores: a sum of a few hundred f32 roundings (2^-24
/// each) stays far below it.
const SCORE_SLACK: f64 = 1e-4;

/// Query word → its near terms and their distances.
type TypoMemory = FxHashMap<Box<str>, Box<[(u32, usize)]>>;

/// Query words an index remembers the typo lookups of.
const TYPO_MEMORY: usize = 2048;
const MAX_PREFIX: usize = 128;

/// One document: its fields' text. A field may repeat; its texts are concatenated.
#[derive(Debug, Clone, Default)]
pub struct FieldDoc {
    pub fields: Vec<(Field, String)>,
}

impl FieldDoc {
    pub fn new(fields: Vec<(Field, String)>) -> Self {
        Self { fields }
    }
}

#[derive(Debug, Default)]
pub struct EnhancedIndex {
    tuning: Tuning,
    docs: usize,
    dict: FxHashMap<Box<str>, u32>,
    idf: Vec<f32>,
    /// CSR postings: term t's postings are `offsets[t]..offsets[t+1]`, by ascending doc
    offsets: Vec<u32>,
    postings: Postings,
    /// per term: its largest posting value (bounds what it adds to any score)
    max_val: Vec<f32>,
    /// per document and field: idf mass of the field's distinct words (coverage denominator)
    cov_mass: Vec<f32>,
    /// the fields with a coverage weight, ascending: `cov_mass` holds, per document, one
    /// value for each of them (and the per-document matched mass of a search likewise)
    covered: Vec<usize>,
    /// (surface term, term it stands for) of words a typo may be matched against
    fuzzy_terms: Vec<(u32, u32)>,
    /// ASCII word stems of 3+ letters, for prefix relations
    stem_terms: Vec<u32>,
    /// Lookup structures only some queries need, built by the first one that does: a
    /// catalog that is built and rarely searched never pays for them.
    lazy: OnceLock<Lazy>,
}

#[derive(Debug, Default)]
struct Lazy {
    fuzzy: FuzzyIndex,
    /// `stem_terms` with their text, sorted by text
    stems: SortedStems,
    /// per `prefix_min`-character head: where the stems starting with it begin in `stems`
    /// (a hash lookup per query word instead of a binary search of string comparisons)
    heads: FxHashMap<Box<str>, u32>,
    /// Typo lookups already made (word → near terms and distances): queries repeat their
    /// unknown words, and a lookup costs far more than a hash probe. Emptied when full.
    typos: std::sync::Mutex<TypoMemory>,
}

/// Sorted stems and their terms, the text in one buffer: a query word's prefix relatives
/// are a run of neighbours, read in one sequential sweep rather than one pointer (and a
/// likely cache miss) per stem.
#[derive(Debug, Default)]
struct SortedStems {
    text: String,
    /// per stem: where its text ends in `text` (it starts where the previous one ends)
    ends: Vec<u32>,
    terms: Vec<u32>,
}

impl SortedStems {
    fn new(sorted: &[(&str, u32)]) -> Self {
        let mut stems = Self { text: String::new(), ends: Vec::with_capacity(sorted.len()), terms: Vec::with_capacity(sorted.len()) };
        for &(text, term) in sorted {
            stems.text.push_str(text);
            stems.ends.push(u32::try_from(stems.text.len()).expect("stem text under 4 GiB"));
            stems.terms.push(term);
        }
        stems
    }

    fn len(&self) -> usize {
        self.terms.len()
    }

    /// The `i`-th stem and its term.
    fn get(&self, i: usize) -> (&str, u32) {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        (&self.text[start..self.ends[i] as usize], self.terms[i])
    }

    /// The stems from the `from`-th on, with their terms.
    fn iter_from(&self, from: usize) -> impl Iterator<Item = (&str, u32)> + '_ {
        (from..self.len()).map(|i| self.get(i))
    }
}

/// Per-thread search buffers, reused across queries and indexes: the accumulators of both
/// layouts (see [`Accumulators`]) and the documents touched.
#[derive(Default)]
struct Scratch {
    packed: Packed,
    split2: Split<2>,
    split_all: Split<FIELDS>,
    touched: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Per-document accumulators of a search: the score, and the idf mass of the covering query
/// terms matched per covered field ("place" k: the k-th covered field).
trait Accumulators<const K: usize> {
    /// Adds `x` to document `d`'s score; whether it was 0 before.
    fn add(&mut self, d: usize, x: f32) -> bool;
    /// [`Self::add`] for the `list`-th covering term, `credit` its idf, matched in the
    /// covered fields whose bits `cov` sets (`bit_of`: each place's field bit).
    fn add_covering(&mut self, d: usize, x: f32, cov: u8, list: usize, credit: f32, bit_of: &[u8; K]) -> bool;
    /// Document `d`'s score; the score is 0 afterwards.
    fn take_score(&mut self, d: usize) -> f32;
    /// Sets document `d`'s matched mass to 0.
    fn clear_matched(&mut self, d: usize);
    /// Bit k set: place k has matched mass.
    fn matched_places(&self, d: usize) -> usize;
    /// Document `d`'s matched mass per place (`credits`: per covering term, its idf), 0
    /// afterwards.
    fn take_matched(&mut self, d: usize, credits: &[f32]) -> [f32; K];
}

/// The postings of all terms (CSR by [`EnhancedIndex::offsets`]): per posting its document,
/// its value and its coverage bits (bit f set when the term is a word (stem) or CJK unit of
/// field f, for fields with a coverage weight).
#[derive(Debug)]
enum Postings {
    /// `doc << 8 | id` of the posting's (value, coverage bits) pair in `pairs`, when a
    /// catalog has at most 256 distinct pairs (100,000 realistic tools have ~110: values
    /// depend on a few field lengths and tfs) and fewer than 2^24 documents: 4 bytes a
    /// posting instead of 9 and one array read instead of three (100k search p50 −8%).
    /// (`pairs` is padded to 256, so an id indexes it without a bounds check)
    Packed { entries: Vec<u32>, pairs: Box<[(f32, u8); 256]> },
    Split { doc: Vec<u32>, val: Vec<f32>, cov: Vec<u8> },
}

impl Default for Postings {
    fn default() -> Self {
        Postings::Split { doc: Vec::new(), val: Vec::new(), cov: Vec::new() }
    }
}

impl Postings {
    /// Packed when the catalog fits it.
    fn new(doc: Vec<u32>, val: Vec<f32>, cov: Vec<u8>, docs: usize) -> Self {
        if docs < 1 << 24 {
            let mut pairs = Box::new([(0.0f32, 0u8); 256]);
            let mut ids: FxHashMap<(u32, u8), u32> = FxHashMap::default();
            let mut entries: Vec<u32> = Vec::with_capacity(doc.len());
            for ((&d, &v), &c) in doc.iter().zip(&val).zip(&cov) {
                let next = ids.len() as u32;
                let id = *ids.entry((v.to_bits(), c)).or_insert(next);
                if id == 256 {
                    return Postings::Split { doc, val, cov };
                }
                pairs[id as usize] = (v, c);
                entries.push((d << 8) | id);
            }
            return Postings::Packed { entries, pairs };
        }
        Postings::Split { doc, val, cov }
    }

    /// The value of document `doc`'s posting among `range`, if it has one.
    fn value_of(&self, range: std::ops::Range<usize>, doc: u32) -> Option<f32> {
        match self {
            Postings::Packed { entries, pairs } => {
                let list = &entries[range];
                list.binary_search_by_key(&doc, |&e| e >> 8).ok().map(|i| pairs[(list[i] & 255) as usize].0)
            }
            Postings::Split { doc: docs, val, .. } => docs[range.clone()].binary_search(&doc).ok().map(|i| val[range.start + i]),
        }
    }

    /// The same postings as three arrays (tests).
    #[cfg(test)]
    fn to_split(&self) -> Postings {
        match self {
            Postings::Packed { entries, pairs } => Postings::Split {
                doc: entries.iter().map(|&e| e >> 8).collect(),
                val: entries.iter().map(|&e| pairs[(e & 255) as usize].0).collect(),
                cov: entries.iter().map(|&e| pairs[(e & 255) as usize].1).collect(),
            },
            Postings::Split { doc, val, cov } => Postings::Split { doc: doc.clone(), val: val.clone(), cov: cov.clone() },
        }
    }

    /// Every posting's value (tests).
    #[cfg(test)]
    fn values(&self) -> Vec<f32> {
        match self {
            Postings::Packed { entries, pairs } => entries.iter().map(|&e| pairs[(e & 255) as usize].0).collect(),
            Postings::Split { val, .. } => val.clone(),
        }
    }
}

/// Scores and matched masses in separate arrays (any number of places and covering terms).
#[derive(Default)]
struct Split<const K: usize> {
    scores: Vec<f32>,
    matched: Vec<[f32; K]>,
}

/// A search's view of [`Split`] accumulators (slices, so the loops keep their bases in
/// registers).
struct SplitView<'a, const K: usize> {
    scores: &'a mut [f32],
    matched: &'a mut [[f32; K]],
}

impl<const K: usize> Split<K> {
    /// The accumulators of `docs` documents, all at 0.
    fn view(&mut self, docs: usize) -> SplitView<'_, K> {
        if self.scores.len() < docs {
            self.scores.resize(docs, 0.0);
            self.matched.resize(docs, [0.0; K]);
        }
        SplitView { scores: &mut self.scores[..docs], matched: &mut self.matched[..docs] }
    }
}

impl<const K: usize> Accumulators<K> for SplitView<'_, K> {
    #[inline(always)]
    fn add(&mut self, d: usize, x: f32) -> bool {
        let s = &mut self.scores[d];
        let first = *s == 0.0;
        *s += x;
        first
    }

    #[inline(always)]
    fn add_covering(&mut self, d: usize, x: f32, cov: u8, _list: usize, credit: f32, bit_of: &[u8; K]) -> bool {
        let first = self.add(d, x);
        if cov != 0 {
            // Branch-free over the places: a place whose bit is clear gets + 0.0, which
            // leaves its (non-negative) mass unchanged.
            let m = &mut self.matched[d];
            for (k, &bit) in bit_of.iter().enumerate() {
                m[k] += credit * ((u32::from(cov) >> bit) & 1) as f32;
            }
        }
        first
    }

    #[inline(always)]
    fn take_score(&mut self, d: usize) -> f32 {
        std::mem::take(&mut self.scores[d])
    }

    #[inline(always)]
    fn clear_matched(&mut self, d: usize) {
        self.matched[d] = [0.0; K];
    }

    #[inline(always)]
    fn matched_places(&self, d: usize) -> usize {
        self.matched[d].iter().enumerate().fold(0, |mask, (k, &x)| mask | usize::from(x > 0.0) << k)
    }

    #[inline(always)]
    fn take_matched(&mut self, d: usize, _credits: &[f32]) -> [f32; K] {
        std::mem::replace(&mut self.matched[d], [0.0; K])
    }
}

/// Per covered field (place) of [`Packed`]: how many covering terms it can tell apart.
const PACKED_TERMS: usize = 16;

/// The score and, per place (two at most), a bit per covering term matched there, in one
/// 8-byte entry: a covering term's posting touches one cache line instead of two, and the
/// masses are summed from the bits for the few documents that need them (in term order,
/// as [`Split`] sums them, so they are the same floats). For queries of up to
/// [`PACKED_TERMS`] covering terms.
#[derive(Default)]
struct Packed {
    acc: Vec<(f32, u32)>,
}

/// A search's view of [`Packed`] accumulators.
struct PackedView<'a> {
    acc: &'a mut [(f32, u32)],
}

impl Packed {
    /// The accumulators of `docs` documents, all at 0.
    fn view(&mut self, docs: usize) -> PackedView<'_> {
        if self.acc.len() < docs {
            self.acc.resize(docs, (0.0, 0));
        }
        PackedView { acc: &mut self.acc[..docs] }
    }
}

impl Accumulators<2> for PackedView<'_> {
    #[inline(always)]
    fn add(&mut self, d: usize, x: f32) -> bool {
        let s = &mut self.acc[d].0;
        let first = *s == 0.0;
        *s += x;
        first
    }

    #[inline(always)]
    fn add_covering(&mut self, d: usize, x: f32, cov: u8, list: usize, _credit: f32, bit_of: &[u8; 2]) -> bool {
        // (the caller uses this layout only for queries of up to PACKED_TERMS covering terms)
        debug_assert!(list < PACKED_TERMS);
        let e = &mut self.acc[d];
        let first = e.0 == 0.0;
        e.0 += x;
        let cov = u32::from(cov);
        e.1 |= (((cov >> bit_of[0]) & 1) << list) | (((cov >> bit_of[1]) & 1) << (PACKED_TERMS + list));
        first
    }

    #[inline(always)]
    fn take_score(&mut self, d: usize) -> f32 {
        std::mem::take(&mut self.acc[d].0)
    }

    #[inline(always)]
    fn clear_matched(&mut self, d: usize) {
        self.acc[d].1 = 0;
    }

    #[inline(always)]
    fn matched_places(&self, d: usize) -> usize {
        let bits = self.acc[d].1;
        usize::from(bits & 0xffff != 0) | usize::from(bits >> PACKED_TERMS != 0) << 1
    }

    #[inline(always)]
    fn take_matched(&mut self, d: usize, credits: &[f32]) -> [f32; 2] {
        let bits = std::mem::take(&mut self.acc[d].1);
        std::array::from_fn(|k| {
            let mut place = (bits >> (k * PACKED_TERMS)) & 0xffff;
            let mut mass = 0.0f32;
            while place != 0 {
                mass += credits[place.trailing_zeros() as usize];
                place &= place - 1;
            }
            mass
        })
    }
}

/// A query term's posting list as [`EnhancedIndex::score_top`] reads it.
struct RankedList {
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

struct Builder {
    dict: FxHashMap<Box<str>, u32>,
    /// Surface word → (stem term, surface term): most words repeat across documents, so
    /// each distinct word is stemmed and looked up once.
    words: FxHashMap<Box<str>, (u32, u32)>,
    fuzzy_terms: Vec<(u32, u32)>,
    fuzzy_seen: Vec<bool>,
    stem_terms: Vec<u32>,
    stem_seen: Vec<bool>,
}

impl Builder {
    fn intern(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.dict.get(term) {
            return id;
        }
        let id = self.dict.len() as u32;
        self.dict.insert(term.into(), id);
        self.fuzzy_seen.push(false);
        self.stem_seen.push(false);
        id
    }

    /// Registers `surface` (term `sid`) as a typo target standing for `target`.
    fn fuzzy_candidate(&mut self, surface: &str, sid: u32, target: u32) {
        if !self.fuzzy_seen[sid as usize] && fuzzy_eligible(surface) {
            self.fuzzy_seen[sid as usize] = true;
            self.fuzzy_terms.push((sid, target));
        }
    }

    fn word(&mut self, surface: &str) -> (u32, u32) {
        if let Some(&ids) = self.words.get(surface) {
            return ids;
        }
        let st = stem(surface);
        let sid = self.intern(&st);
        let fid = if *st == *surface { sid } else { self.intern(surface) };
        // first sighting of this word: the stem may be new too
        if st.len() >= 3 && st.bytes().all(|c| c.is_ascii_alphabetic()) && !self.stem_seen[sid as usize] {
            self.stem_seen[sid as usize] = true;
            self.stem_terms.push(sid);
        }
        self.fuzzy_candidate(surface, fid, sid);
        self.words.insert(surface.into(), (sid, fid));
        (sid, fid)
    }
}

/// Term counts of all documents, flattened: document d's entries are
/// `start[d]..start[d+1]`, each term once.
struct DocTerms {
    start: Vec<u32>,
    term: Vec<u32>,
    tf: Vec<[u16; FIELDS]>,
    cov: Vec<u8>,
    /// term → 1 + its entry index in the current document, 0 when absent
    slot_of: Vec<u32>,
}

impl DocTerms {
    fn bump(&mut self, id: u32, f: usize, cov_bit: u8) {
        let id = id as usize;
        if self.slot_of.len() <= id {
            self.slot_of.resize((id + 1).max(self.slot_of.len() * 2), 0);
        }
        let s = &mut self.slot_of[id];
        if *s == 0 {
            self.term.push(id as u32);
            self.tf.push([0; FIELDS]);
            self.cov.push(0);
            *s = self.term.len() as u32;
        }
        let e = *s as usize - 1;
        self.tf[e][f] = self.tf[e][f].saturating_add(1);
        self.cov[e] |= cov_bit;
    }

    fn end_doc(&mut self) {
        let from = *self.start.last().unwrap_or(&0) as usize;
        for &t in &self.term[from..] {
            self.slot_of[t as usize] = 0;
        }
        self.start.push(self.term.len() as u32);
    }
}

/// A letter word worth matching a typo against: 3+ characters, all alphabetic, not CJK.
fn fuzzy_eligible(text: &str) -> bool {
    text.chars().count() >= 3 && text.chars().all(char::is_alphabetic)
}

/// Weighted query terms, each term once (highest weight kept); `covers`: the term is a
/// query word itself (not a relative, typo or joined form), so it counts toward coverage.
#[derive(Default)]
struct QueryTerms {
    terms: Vec<(u32, f32, bool)>,
}

impl QueryTerms {
    fn add(&mut self, term: u32, weight: f32, covers: bool) {
        match self.terms.iter_mut().find(|x| x.0 == term) {
            Some(x) => {
                x.1 = x.1.max(weight);
                x.2 |= covers;
            }
            None => self.terms.push((term, weight, covers)),
        }
    }
}

impl EnhancedIndex {
    /// Indexes `docs`; document `i` is `docs[i]`.
    pub fn build(docs: &[FieldDoc]) -> Self {
        Self::build_tuned(docs, Tuning::default())
    }

    #[doc(hidden)]
    pub fn build_tuned(docs: &[FieldDoc], tuning: Tuning) -> Self {
        let (field_weight, field_b, k1) = (tuning.field_weight, tuning.field_b, tuning.k1);
        let mut b = Builder {
            dict: FxHashMap::default(),
            words: FxHashMap::default(),
            fuzzy_terms: Vec::new(),
            fuzzy_seen: Vec::new(),
            stem_terms: Vec::new(),
            stem_seen: Vec::new(),
        };
        // a rough guess of a dozen distinct terms per document saves most regrowth
        let guess = docs.len() * 12;
        let mut dt = DocTerms {
            start: Vec::with_capacity(docs.len() + 1),
            term: Vec::with_capacity(guess),
            tf: Vec::with_capacity(guess),
            cov: Vec::with_capacity(guess),
            slot_of: Vec::new(),
        };
        dt.start.push(0);
        let mut doc_lens: Vec<[u32; FIELDS]> = Vec::with_capacity(docs.len());
        for doc in docs {
            let mut lens = [0u32; FIELDS];
            for (field, text) in &doc.fields {
                let f = field.idx();
                let cov_bit = if tuning.coverage[f] > 0.0 { 1u8 << f } else { 0 };
                tokenize(text, &mut |tok| {
                    // characters of CJK words are extra index entries, not extra length
                    if !matches!(tok, Token::CjkPart(_)) {
                        lens[f] = lens[f].saturating_add(1);
                    }
                    match tok {
                        Token::Word(w) => {
                            let (sid, fid) = b.word(w);
                            dt.bump(sid, f, cov_bit);
                            if fid != sid {
                                dt.bump(fid, f, 0);
                            }
                        }
                        Token::Whole(w) => {
                            let id = b.intern(w);
                            dt.bump(id, f, 0);
                            b.fuzzy_candidate(w, id, id);
                        }
                        Token::Cjk(w) => {
                            let id = b.intern(w);
                            dt.bump(id, f, cov_bit);
                        }
                        Token::CjkPart(w) => {
                            let id = b.intern(w);
                            dt.bump(id, f, 0);
                        }
                    }
                });
            }
            dt.end_doc();
            doc_lens.push(lens);
        }

        let n_terms = b.dict.len();
        let mut avg = [0f64; FIELDS];
        let mut nonempty = [0usize; FIELDS];
        for lens in &doc_lens {
            for f in 0..FIELDS {
                if lens[f] > 0 {
                    avg[f] += f64::from(lens[f]);
                    nonempty[f] += 1;
                }
            }
        }
        for f in 0..FIELDS {
            avg[f] = if nonempty[f] > 0 { avg[f] / nonempty[f] as f64 } else { 1.0 };
        }

        let mut offsets = vec![0u32; n_terms + 1];
        for &t in &dt.term {
            offsets[t as usize + 1] += 1;
        }
        for t in 0..n_terms {
            offsets[t + 1] += offsets[t];
        }
        let n = docs.len() as f64;
        let idf: Vec<f32> = (0..n_terms)
            .map(|t| {
                let df = f64::from(offsets[t + 1] - offsets[t]);
                (((n - df + 0.5) / (df + 0.5) + 1.0).ln() as f32).powf(tuning.idf_pow)
            })
            .collect();
        let total = offsets[n_terms] as usize;
        let mut post_doc = vec![0u32; total];
        let mut post_val = vec![0f32; total];
        let mut post_cov = vec![0u8; total];
        let covered: Vec<usize> = (0..FIELDS).filter(|&f| tuning.coverage[f] > 0.0).collect();
        let mut place = [0usize; FIELDS];
        for (k, &f) in covered.iter().enumerate() {
            place[f] = k;
        }
        let mut cov_mass = vec![0f32; docs.len() * covered.len()];
        let mut fill: Vec<u32> = offsets[..n_terms].to_vec();
        for (d, lens) in doc_lens.iter().enumerate() {
            let mut norm = [0f32; FIELDS];
            for f in 0..FIELDS {
                norm[f] = field_weight[f] / (1.0 - field_b[f] + field_b[f] * (f64::from(lens[f]) / avg[f]) as f32);
            }
            let (from, to) = (dt.start[d] as usize, dt.start[d + 1] as usize);
            for e in from..to {
                let (t, tf, cov) = (dt.term[e] as usize, &dt.tf[e], dt.cov[e]);
                let pseudo: f32 = (0..FIELDS).map(|f| f32::from(tf[f]) * norm[f]).sum();
                let pos = fill[t] as usize;
                fill[t] += 1;
                post_doc[pos] = d as u32;
                post_val[pos] = pseudo * (k1 + 1.0) / (k1 + pseudo);
                post_cov[pos] = cov;
                if cov != 0 {
                    // (coverage bits are only set for covered fields)
                    let mass = &mut cov_mass[d * covered.len()..(d + 1) * covered.len()];
                    for &f in &covered {
                        if cov >> f & 1 == 1 {
                            mass[place[f]] += idf[t];
                        }
                    }
                }
            }
        }
        let max_val = (0..n_terms)
            .map(|t| post_val[offsets[t] as usize..offsets[t + 1] as usize].iter().fold(0f32, |m, &v| m.max(v)))
            .collect();
        Self {
            tuning,
            docs: docs.len(),
            dict: b.dict,
            idf,
            offsets,
            postings: Postings::new(post_doc, post_val, post_cov, docs.len()),
            max_val,
            cov_mass,
            covered,
            fuzzy_terms: b.fuzzy_terms,
            stem_terms: b.stem_terms,
            lazy: OnceLock::new(),
        }
    }

    fn lazy(&self) -> &Lazy {
        self.lazy.get_or_init(|| {
            let mut names: Vec<&str> = vec![""; self.dict.len()];
            for (k, &v) in &self.dict {
                names[v as usize] = k;
            }
            let fuzzy =
                FuzzyIndex::build(self.fuzzy_terms.iter().map(|&(s, t)| (names[s as usize].to_owned(), t)).collect());
            let mut sorted: Vec<(&str, u32)> = self.stem_terms.iter().map(|&id| (names[id as usize], id)).collect();
            sorted.sort_unstable();
            let stems = SortedStems::new(&sorted);
            let min = self.tuning.prefix_min as usize;
            let mut heads: FxHashMap<Box<str>, u32> = FxHashMap::default();
            for i in (0..stems.len()).rev() {
                let (t, _) = stems.get(i);
                if let Some(head) = t.get(..min) {
                    heads.insert(head.into(), i as u32);
                }
            }
            Lazy { fuzzy, stems, heads, typos: Default::default() }
        })
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.docs
    }

    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// Weighted term ids for a query.
    fn query_terms(&self, query: &str) -> QueryTerms {
        let tu = &self.tuning;
        let mut q = QueryTerms::default();
        tokenize(query, &mut |tok| match tok {
            Token::Word(surface) => {
                let stem = stem(surface);
                // Documents index a word's stem and, when different, its surface form,
                // so a surface hit implies a stem hit: the surface weight is a bonus.
                let s = self.dict.get(&*stem).copied();
                let f = if *stem != *surface { self.dict.get(surface).copied() } else { None };
                if s.is_none() && f.is_none() {
                    self.add_fuzzy(surface, &mut q);
                }
                if let Some(s) = s {
                    q.add(s, tu.w_stem, true);
                }
                if let Some(f) = f {
                    q.add(f, tu.w_surface, false);
                }
                if tu.w_prefix > 0.0 {
                    self.add_prefix_relatives(&stem, &mut q);
                }
            }
            Token::Whole(t) => match self.dict.get(t) {
                Some(&id) => q.add(id, tu.w_whole, false),
                None => self.add_fuzzy(t, &mut q),
            },
            Token::Cjk(t) => {
                if let Some(&id) = self.dict.get(t) {
                    q.add(id, tu.w_cjk, true);
                }
            }
            Token::CjkPart(t) => {
                if let Some(&id) = self.dict.get(t) {
                    q.add(id, tu.w_cjk_part, false);
                }
            }
        });
        q
    }

    /// Stems related to `stem` by prefix: longer indexed stems starting with it, and
    /// shorter indexed stems it starts with (both at least `prefix_min` characters).
    fn add_prefix_relatives(&self, stem: &str, q: &mut QueryTerms) {
        let min = self.tuning.prefix_min as usize;
        if stem.len() < min || !stem.bytes().all(|c| c.is_ascii_alphabetic()) {
            return;
        }
        let w = self.tuning.w_prefix;
        let ratio = self.tuning.prefix_ratio;
        let head = &stem[..min];
        let Lazy { stems, heads, .. } = self.lazy();
        let Some(&start) = heads.get(head) else { return };
        for (t, id) in stems.iter_from(start as usize).take_while(|(t, _)| t.starts_with(head)).take(MAX_PREFIX) {
            if t == stem {
                continue;
            }
            let cp = t.bytes().zip(stem.bytes()).take_while(|(a, b)| a == b).count();
            let prefix_of = cp == t.len() || cp == stem.len();
            if prefix_of || (ratio > 0.0 && cp as f32 >= ratio * t.len().max(stem.len()) as f32) {
                q.add(id, w, false);
            }
        }
    }

    fn add_fuzzy(&self, term: &str, q: &mut QueryTerms) {
        if !fuzzy_eligible(term) {
            return;
        }
        let lazy = self.lazy();
        // (a poisoned lock only means another thread panicked mid-insert: the map is whole)
        let mut typos = lazy.typos.lock().unwrap_or_else(|e| e.into_inner());
        let add = |near: &[(u32, usize)], q: &mut QueryTerms| {
            for &(target, d) in near {
                q.add(target, self.tuning.w_fuzzy[d.clamp(1, 2) - 1], false);
            }
        };
        // (one hash lookup for a remembered word)
        if let Some(near) = typos.get(term) {
            add(near, q);
            return;
        }
        if typos.len() >= TYPO_MEMORY {
            typos.clear();
        }
        let near: Box<[(u32, usize)]> = lazy.fuzzy.lookup(term, MAX_FUZZY).into();
        add(&near, q);
        typos.insert(term.into(), near);
    }

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
    fn search_top_bounded(&self, query: &str, limit: usize, by_fields: bool) -> Vec<(u32, f64)> {
        self.search_top_with(query, limit, by_fields, self.docs >= PACKED_CATALOG)
    }

    /// [`Self::search_top_bounded`]; `packed`: allow the [`Packed`] accumulators (tests
    /// compare both layouts).
    fn search_top_with(&self, query: &str, limit: usize, by_fields: bool, packed: bool) -> Vec<(u32, f64)> {
        if self.docs == 0 || limit == 0 {
            return Vec::new();
        }
        let q = self.query_terms(query);
        if q.terms.is_empty() {
            return Vec::new();
        }
        let (lists, credits) = self.ranked_lists(&q);
        // The matched mass is kept for the covered fields only, densely numbered: with the
        // shipped tuning, as bits beside the score when the query has few enough covering
        // terms, or 8 bytes a document beside the scores (fewer cache misses on big catalogs
        // than one place per field).
        SCRATCH.with(|cell| {
            let Scratch { packed: packed_acc, split2, split_all, touched } = &mut *cell.borrow_mut();
            if self.covered.len() <= 2 && packed && credits.len() <= PACKED_TERMS {
                self.score_top::<2, _>(&lists, &credits, limit, by_fields, packed_acc.view(self.docs), touched)
            } else if self.covered.len() <= 2 {
                self.score_top::<2, _>(&lists, &credits, limit, by_fields, split2.view(self.docs), touched)
            } else {
                self.score_top::<FIELDS, _>(&lists, &credits, limit, by_fields, split_all.view(self.docs), touched)
            }
        })
    }

    /// The query's posting lists by descending bound, and the covering ones' idf (their
    /// credits toward coverage) in that order.
    fn ranked_lists(&self, q: &QueryTerms) -> (Vec<RankedList>, Vec<f32>) {
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
    fn score_top<const K: usize, A: Accumulators<K>>(
        &self,
        lists: &[RankedList],
        credits: &[f32],
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
        let max_factor = coverage.iter().filter(|&&w| w > 0.0).fold(1.0f32, |p, &w| p * (1.0 + w)) * 1.001;
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
                let bound = most * f64::from(if covering { max_factor } else { 1.001 });
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
            if keep_top && hits.len() == limit && s * max_factor < hits[limit - 1].1 {
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
                if by_fields && keep_top && hits.len() == limit && s * factor_of_mask[acc.matched_places(d_)] < hits[limit - 1].1 {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A small multilingual catalog: Traditional and Simplified Chinese, Japanese, Korean,
    /// English, mixed scripts and full-width characters.
    const CATALOG: &[(&str, &str, &str)] = &[
        ("weather_forecast", "取得指定城市的天氣預報與氣溫", "city: 城市名稱"),
        ("send_email", "发送电子邮件给联系人", "to: 收件人地址\nsubject: 邮件主题"),
        ("translate_text", "テキストを別の言語に翻訳します", "target: 翻訳先の言語"),
        ("restaurant_search", "근처 맛집과 식당을 검색합니다", "location: 지역 이름"),
        ("createIssue", "Create a new issue in a GitHub repository", "title: Issue title\nbody: Issue body"),
        ("stock_price", "Get the latest stock prices and market data", "ticker: Stock ticker symbol"),
        ("calendar_schedule", "Schedule meetings and events on the calendar", "when: Start time"),
        ("unit_converter", "Ｃｏｎｖｅｒｔ　ｕｎｉｔｓ：長さと重さを変換", ""),
        ("github_pr_review", "审查 GitHub pull requests 并留下评论", "pr: Pull request number"),
        ("image_resize", "Resize and crop images 画像のサイズを変更", "width: 幅\nheight: 高さ"),
    ];

    fn index() -> EnhancedIndex {
        let docs: Vec<FieldDoc> = CATALOG
            .iter()
            .map(|(id, desc, params)| {
                FieldDoc::new(vec![
                    (Field::Name, (*id).into()),
                    (Field::Description, (*desc).into()),
                    (Field::Params, (*params).into()),
                ])
            })
            .collect();
        EnhancedIndex::build(&docs)
    }

    /// The matched-fields bound and the packed accumulators of large catalogs change
    /// nothing: on random catalogs, the top with either or both forced equals the top
    /// without them and the head of all hits.
    #[test]
    fn matched_field_bound_keeps_the_top() {
        let mut next = crate::test_support::xorshift(21);
        let words = ["weather", "forecast", "email", "send", "calendar", "event", "issue", "review", "code", "rain", "天气", "预报", "메일", "送る"];
        let pick = |n: u64, next: &mut dyn FnMut(u64) -> u64| random_text(&words, n, next);
        for round in 0..40 {
            let docs = random_catalog(&words, 300, &mut next);
            let idx = EnhancedIndex::build(&docs);
            for _ in 0..30 {
                let q = pick(5, &mut next);
                let all = idx.search(&q);
                for limit in [1, 3, 10] {
                    let bounded = idx.search_top_bounded(&q, limit, true);
                    assert_eq!(bounded, idx.search_top_bounded(&q, limit, false), "round {round} {q} {limit}");
                    for (by_fields, packed) in [(true, true), (false, true), (true, false)] {
                        assert_eq!(bounded, idx.search_top_with(&q, limit, by_fields, packed), "round {round} {q} {limit}");
                    }
                    assert_eq!(bounded[..], all[..limit.min(all.len())], "round {round} {q} {limit}");
                }
            }
        }
    }

    /// With a covered field weighted 0, postings can be worth 0 (a document then stays at 0
    /// and is listed again at its next touch): the top still equals the head of all hits.
    #[test]
    fn zero_posting_values_keep_the_top() {
        let mut next = crate::test_support::xorshift(33);
        let words = ["weather", "forecast", "email", "send", "calendar", "event", "rain", "天气", "预报"];
        let pick = |n: u64, next: &mut dyn FnMut(u64) -> u64| (0..1 + next(n)).map(|_| words[next(words.len() as u64) as usize]).collect::<Vec<_>>().join(" ");
        let mut tuning = Tuning::default();
        tuning.field_weight[Field::Description.idx()] = 0.0;
        for round in 0..20 {
            let docs: Vec<FieldDoc> = (0..30 + next(200))
                .map(|i| FieldDoc::new(vec![(Field::Name, format!("{}_{i}", pick(1, &mut next).replace(' ', "_"))), (Field::Description, pick(8, &mut next))]))
                .collect();
            let idx = EnhancedIndex::build_tuned(&docs, tuning);
            assert!(idx.postings.values().contains(&0.0), "round {round}");
            for _ in 0..20 {
                let q = pick(4, &mut next);
                let all = idx.search(&q);
                for limit in [1, 3, 10] {
                    for (by_fields, packed) in [(false, false), (true, true)] {
                        assert_eq!(idx.search_top_with(&q, limit, by_fields, packed)[..], all[..limit.min(all.len())], "round {round} {q} {limit}");
                    }
                }
            }
        }
    }

    /// 1 to `n` of `words`, drawn by `next`, joined by spaces.
    fn random_text(words: &[&str], n: u64, next: &mut dyn FnMut(u64) -> u64) -> String {
        (0..1 + next(n)).map(|_| words[next(words.len() as u64) as usize]).collect::<Vec<_>>().join(" ")
    }

    /// 20 to 20 + `spread` random documents with a name, a description and parameters.
    fn random_catalog(words: &[&str], spread: u64, next: &mut dyn FnMut(u64) -> u64) -> Vec<FieldDoc> {
        (0..20 + next(spread))
            .map(|i| {
                FieldDoc::new(vec![
                    (Field::Name, format!("{}_{i}", random_text(words, 2, next).replace(' ', "_"))),
                    (Field::Description, random_text(words, 12, next)),
                    (Field::Params, random_text(words, 3, next)),
                ])
            })
            .collect()
    }

    /// Packed postings (one u32 each, values and coverage bits from a table of distinct
    /// pairs) search exactly as the three arrays do; a catalog with more than 256 distinct
    /// pairs keeps the arrays.
    #[test]
    fn packed_postings_search_as_the_arrays_do() {
        let mut next = crate::test_support::xorshift(57);
        let words = ["weather", "forecast", "email", "send", "calendar", "event", "issue", "review", "rain", "天气", "预报", "메일", "送る"];
        for round in 0..30 {
            let docs = random_catalog(&words, 400, &mut next);
            let packed = EnhancedIndex::build(&docs);
            assert!(matches!(packed.postings, Postings::Packed { .. }), "round {round}");
            let mut split = EnhancedIndex::build(&docs);
            split.postings = split.postings.to_split();
            for _ in 0..20 {
                let q = random_text(&words, 5, &mut next);
                let bits = |v: Vec<(u32, f64)>| v.into_iter().map(|(d, s)| (d, s.to_bits())).collect::<Vec<_>>();
                assert_eq!(bits(packed.search(&q)), bits(split.search(&q)), "round {round} {q}");
                for limit in [1, 5] {
                    for (by_fields, packing) in [(false, false), (true, true)] {
                        assert_eq!(bits(packed.search_top_with(&q, limit, by_fields, packing)), bits(split.search_top_with(&q, limit, by_fields, packing)), "round {round} {q}");
                    }
                }
                let d = next(docs.len() as u64) as u32;
                assert_eq!(packed.explain(&q, d), split.explain(&q, d), "round {round} {q} {d}");
            }
        }
        // 256 distinct (value, coverage) pairs pack, 257 do not
        let vals = |n: usize| (0..n).map(|i| 1.0 + i as f32).collect::<Vec<f32>>();
        let p = Postings::new((0..256).collect(), vals(256), vec![1; 256], 256);
        assert!(matches!(p, Postings::Packed { .. }));
        assert_eq!(p.values(), vals(256));
        assert_eq!(p.value_of(10..20, 15), Some(16.0));
        assert_eq!(p.value_of(10..20, 25), None);
        assert!(matches!(Postings::new((0..257).collect(), vals(257), vec![1; 257], 257), Postings::Split { .. }));
        // the same value with other coverage bits is another pair
        assert!(matches!(Postings::new((0..300).collect(), vec![2.0; 300], (0..300).map(|i| (i % 255) as u8).collect(), 300), Postings::Packed { .. }));
        let two_values: Vec<f32> = (0..300).map(|i| if i < 256 { 2.0 } else { 3.0 }).collect();
        assert!(matches!(Postings::new((0..300).collect(), two_values, (0..300).map(|i| (i % 256) as u8).collect(), 300), Postings::Split { .. }));
        assert!(matches!(Postings::new(vec![1, 2], vec![1.0, 2.0], vec![0, 0], 1 << 24), Postings::Split { .. }));
    }

    /// Remembered typo lookups give what fresh ones give, also after the memory fills and
    /// starts over.
    #[test]
    fn remembered_typo_lookups_equal_fresh_ones() {
        let idx = index();
        let queries = ["calender", "emial", "reposiotry", "scheduel meetings", "wether forcast", "imgaes resize"];
        let fresh: Vec<_> = queries.iter().map(|q| index().search(q)).collect();
        for round in 0..3 {
            for (q, want) in queries.iter().zip(&fresh) {
                assert_eq!(&idx.search(q), want, "{q} round {round}");
            }
            // more unknown words than the memory keeps
            for i in 0..TYPO_MEMORY + 10 {
                let letters: String = (0..3).map(|k| (b'a' + (i / 26usize.pow(k) % 26) as u8) as char).collect();
                idx.search(&format!("zq{letters}x"));
            }
        }
        let remembered = idx.lazy().typos.lock().unwrap().len();
        assert!(remembered > 0 && remembered <= TYPO_MEMORY, "{remembered}");
    }

    /// The head table finds, for any query stem, the same first stem sharing its head as a
    /// binary search of the sorted stems would, and the same relatives follow.
    #[test]
    fn prefix_heads_point_where_a_binary_search_would() {
        let mut next = crate::test_support::xorshift(5u64);
        let letters = b"renta";
        let mut word = || (0..2 + next(7)).map(|_| letters[next(5) as usize] as char).collect::<String>();
        let text: Vec<String> = (0..400).map(|_| word()).collect();
        let docs: Vec<FieldDoc> = text.chunks(8).map(|w| FieldDoc::new(vec![(Field::Description, w.join(" "))])).collect();
        let idx = EnhancedIndex::build(&docs);
        let Lazy { stems, heads, .. } = idx.lazy();
        assert!(stems.len() > 50, "{}", stems.len());
        let min = idx.tuning.prefix_min as usize;
        for _ in 0..500 {
            let head: String = (0..min).map(|_| letters[next(5) as usize] as char).collect();
            let all: Vec<(&str, u32)> = stems.iter_from(0).collect();
            assert!(all.windows(2).all(|w| w[0].0 < w[1].0));
            let start = all.partition_point(|(t, _)| *t < &*head);
            let expected: Vec<u32> = all[start..].iter().take_while(|(t, _)| t.starts_with(&head)).map(|&(_, id)| id).collect();
            let found: Vec<u32> = heads.get(&*head).map_or(Vec::new(), |&at| {
                stems.iter_from(at as usize).take_while(|(t, _)| t.starts_with(&head)).map(|(_, id)| id).collect()
            });
            assert_eq!(found, expected, "{head}");
        }
    }

    fn first(idx: &EnhancedIndex, q: &str) -> Option<&'static str> {
        idx.search(q).first().map(|&(d, _)| CATALOG[d as usize].0)
    }

    #[test]
    fn same_language_queries() {
        let idx = index();
        for (q, want) in [
            ("天氣預報", "weather_forecast"),
            ("电子邮件", "send_email"),
            ("翻訳", "translate_text"),
            ("言語を翻訳", "translate_text"),
            ("맛집 검색", "restaurant_search"),
            ("식당", "restaurant_search"),
            ("重さを変換", "unit_converter"),
            ("画像のサイズ", "image_resize"),
            ("审查评论", "github_pr_review"),
        ] {
            assert_eq!(first(&idx, q), Some(want), "{q}");
        }
    }

    #[test]
    fn cross_script_queries() {
        let idx = index();
        for (q, want) in [
            // Simplified query, Traditional description, and the reverse
            ("天气预报", "weather_forecast"),
            ("气温", "weather_forecast"),
            ("發送郵件", "send_email"),
            ("電子郵件", "send_email"),
            // full-width ↔ ASCII
            ("convert units", "unit_converter"),
            ("ＳＥＮＤ　ＥＭＡＩＬ", "send_email"),
            // mixed scripts in one query
            ("GitHub 评论", "github_pr_review"),
            ("pull request 审查", "github_pr_review"),
            ("resize 画像", "image_resize"),
            // one CJK character matches the bigrams containing it
            ("天", "weather_forecast"),
            ("幅", "image_resize"),
        ] {
            assert_eq!(first(&idx, q), Some(want), "{q}");
        }
    }

    #[test]
    fn english_inflections_identifiers_and_typos() {
        let idx = index();
        for (q, want) in [
            ("emails", "send_email"),
            ("issues created", "createIssue"),
            ("createIssue", "createIssue"),
            ("create-issue", "createIssue"),
            ("CreateIssue", "createIssue"),
            ("scheduling meetings", "calendar_schedule"),
            ("stock pricing", "stock_price"),
            ("converting", "unit_converter"),
            ("resized images", "image_resize"),
            // typos: one edit from 4 letters, two from 8
            ("calender", "calendar_schedule"),
            ("emial", "send_email"),
            ("reposiotry", "createIssue"),
            ("schedlue meetngs", "calendar_schedule"),
            // parameter names and descriptions are searchable
            ("ticker symbol", "stock_price"),
        ] {
            assert_eq!(first(&idx, q), Some(want), "{q}");
        }
    }

    #[test]
    fn exact_terms_beat_typo_and_related_forms() {
        // equal lengths, so coverage is equal and the surface bonus decides
        let docs: Vec<FieldDoc> = ["calendar of meetings", "calendars of events", "calender tool"]
            .iter()
            .map(|d| FieldDoc::new(vec![(Field::Description, (*d).into())]))
            .collect();
        let idx = EnhancedIndex::build(&docs);
        let r = idx.search("calender");
        assert_eq!(r[0].0, 2, "the exact (misspelt) word wins: typo expansion only runs for unmatched terms");
        // `calendar` still shares a long prefix with `calender`, at a much lower weight
        assert!(r[1..].iter().all(|h| h.1 < r[0].1 / 2.0));
        let r = idx.search("calendars");
        assert_eq!(r[0].0, 1, "exact surface form first");
        assert!(r.iter().any(|h| h.0 == 0), "stem match also found");
    }

    #[test]
    fn ordering_limits_and_empty_input() {
        let idx = index();
        let all = idx.search("github issue pull request");
        assert!(all.len() >= 2);
        assert!(all.windows(2).all(|w| w[0].1 > w[1].1 || (w[0].1 == w[1].1 && w[0].0 < w[1].0)));
        assert!(all.iter().all(|h| h.1 > 0.0));
        for k in 0..=all.len() + 1 {
            assert_eq!(idx.search_top("github issue pull request", k), all[..k.min(all.len())].to_vec());
        }
        assert!(idx.search("").is_empty());
        assert!(idx.search("   ,,, !!").is_empty());
        assert!(idx.search("the of and is").is_empty(), "stopwords alone match nothing");
        assert!(idx.search("zzzzqqq").is_empty());
        let empty = EnhancedIndex::build(&[]);
        assert!(empty.is_empty() && empty.search("anything").is_empty());
        // ties are broken by document index
        let same: Vec<FieldDoc> =
            (0..4).map(|_| FieldDoc::new(vec![(Field::Description, "same words".into())])).collect();
        let r = EnhancedIndex::build(&same).search("words");
        assert_eq!(r.iter().map(|h| h.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert!(r.windows(2).all(|w| w[0].1 == w[1].1));
    }

    #[test]
    fn coverage_prefers_documents_the_query_explains() {
        let docs: Vec<FieldDoc> = [
            "weather forecast plus maps radar alerts tides pollen",
            "weather forecast",
            "天气预报 和 地图 雷达 路况 潮汐",
            "天气预报",
        ]
        .iter()
        .map(|d| FieldDoc::new(vec![(Field::Description, (*d).into())]))
        .collect();
        let idx = EnhancedIndex::build(&docs);
        // no length normalisation on descriptions: BM25 alone ties these
        let flat = EnhancedIndex::build_tuned(&docs, Tuning { coverage: [0.0; FIELDS], ..Tuning::default() });
        for (q, short, long) in [("weather forecast", 1, 0), ("天氣預報", 3, 2)] {
            let r = flat.search(q);
            assert_eq!(r[0].1, r[1].1, "{q}");
            let r = idx.search(q);
            assert_eq!((r[0].0, r[1].0), (short, long), "{q}");
            assert!(r[0].1 > r[1].1 * 1.5, "{q}");
        }
    }

    #[test]
    fn exact_bigrams_beat_scattered_characters() {
        // both documents have 天 and 气 (the second three times each), only the first as
        // 天气; the others make the characters rare enough to matter
        let mut texts = vec!["今天天气", "天空 气球 天上 气温 天真 气候"];
        texts.extend([
            "地图 路线",
            "邮件 发送",
            "股票 价格",
            "翻译 文本",
            "日历 会议",
            "图片 裁剪",
            "订单 查询",
            "汇率 换算",
        ]);
        let docs: Vec<FieldDoc> =
            texts.iter().map(|d| FieldDoc::new(vec![(Field::Description, (*d).into())])).collect();
        let flat = Tuning { coverage: [0.0; FIELDS], ..Tuning::default() };
        for idx in [EnhancedIndex::build(&docs), EnhancedIndex::build_tuned(&docs, flat)] {
            for q in ["天气", "天氣", "天气怎样"] {
                let r = idx.search(q);
                assert_eq!(r.iter().map(|h| h.0).collect::<Vec<_>>(), [0, 1], "{q}: characters alone still match");
                assert!(r[0].1 > r[1].1 * 2.0, "{q}: {r:?}");
            }
            // a one-character query matches every document with that character
            assert_eq!(idx.search("气").len(), 2);
        }
    }

    /// Catalog for the Korean and Japanese request tests.
    const ASIAN_CATALOG: &[(&str, &str)] = &[
        ("s3_upload", "S3 버킷에 파일을 업로드합니다"),
        ("weather_now", "현재 날씨와 기온을 조회합니다"),
        ("restaurant_search", "근처 맛집과 식당을 검색합니다"),
        ("order_cancel", "주문을 취소합니다"),
        ("weather_ja", "指定した都市の現在の天気と気温を返します"),
        ("mail_ja", "メールを送信します。宛先と件名を指定します"),
        ("translate_ja", "テキストを別の言語に翻訳します"),
    ];

    fn asian_index() -> EnhancedIndex {
        let docs: Vec<FieldDoc> = ASIAN_CATALOG
            .iter()
            .map(|(id, d)| FieldDoc::new(vec![(Field::Name, (*id).into()), (Field::Description, (*d).into())]))
            .collect();
        EnhancedIndex::build(&docs)
    }

    #[test]
    fn korean_requests_with_particles_and_endings() {
        let idx = asian_index();
        let first = |q: &str| idx.search(q).first().map(|&(d, _)| ASIAN_CATALOG[d as usize].0);
        for (q, want) in [
            ("S3에서 파일 찾아줘", "s3_upload"),
            ("S3에", "s3_upload"),
            ("오늘 날씨는 어때?", "weather_now"),
            ("날씨를 조회해 줘", "weather_now"),
            ("식당을 검색해줘", "restaurant_search"),
            ("주문 취소해줘", "order_cancel"),
        ] {
            assert_eq!(first(q), Some(want), "{q}");
        }
        // the particle alone matches nothing; the request word alone neither
        assert!(idx.search("에서 해 주세요").is_empty());
        // what S3에서 contributes is the word S3 only
        let s3 = idx.explain("S3에서", 0);
        assert_eq!(s3.iter().map(|t| t.0.as_str()).collect::<Vec<_>>(), ["s3"]);
    }

    #[test]
    fn japanese_sentences() {
        let idx = asian_index();
        let first = |q: &str| idx.search(q).first().map(|&(d, _)| ASIAN_CATALOG[d as usize].0);
        for (q, want) in [
            ("東京の天気を教えて", "weather_ja"),
            ("今日の気温は？", "weather_ja"),
            ("上司にメールを送って", "mail_ja"),
            ("この文を英語に翻訳してください", "translate_ja"),
        ] {
            assert_eq!(first(q), Some(want), "{q}");
        }
        // particles and okurigana match nothing on their own
        assert!(idx.search("をしてください").is_empty());
    }

    #[test]
    fn compact_matched_mass_scores_like_the_full_one() {
        // The shipped tuning keeps matched mass for its two covered fields only, as bits
        // beside the score or as masses; scoring with all five places must give the same
        // documents, order and score bits.
        let mut docs: Vec<FieldDoc> = Vec::new();
        let words = ["weather", "forecast", "email", "send", "天氣", "預報", "検索", "검색", "issue", "create", "rain"];
        let mut xorshift = crate::test_support::xorshift(5);
        let mut next = |k: usize| xorshift(k as u64) as usize;
        for i in 0..300 {
            let text = |next: &mut dyn FnMut(usize) -> usize, n: usize| (0..n).map(|_| words[next(words.len())]).collect::<Vec<_>>().join(" ");
            let name = format!("{}_{i}", words[next(words.len())]);
            let (desc_len, params_len) = (1 + next(12), next(4));
            let desc = text(&mut next, desc_len);
            let params = text(&mut next, params_len);
            docs.push(FieldDoc::new(vec![(Field::Name, name), (Field::Description, desc), (Field::Params, params)]));
        }
        let idx = EnhancedIndex::build(&docs);
        let covered: Vec<usize> = (0..FIELDS).filter(|&f| idx.tuning.coverage[f] > 0.0).collect();
        assert_eq!(covered.len(), 2, "the shipped tuning covers two fields");
        for q in ["weather forecast", "send email 天氣", "rain issue create", "검색 検索 weather", "wether forcast"] {
            let (lists, credits) = idx.ranked_lists(&idx.query_terms(q));
            assert!(credits.len() <= PACKED_TERMS, "{q}");
            for limit in [1, 5, 64, usize::MAX] {
                let bits = |r: &[(u32, f64)]| r.iter().map(|&(d, s)| (d, s.to_bits())).collect::<Vec<_>>();
                let mut first = None;
                for by_fields in [false, true] {
                    let (mut packed, mut two, mut all) = (Packed::default(), Split::<2>::default(), Split::<FIELDS>::default());
                    let mut touched = Vec::new();
                    let docs = idx.docs;
                    let packed = idx.score_top::<2, _>(&lists, &credits, limit, by_fields, packed.view(docs), &mut touched);
                    let two = idx.score_top::<2, _>(&lists, &credits, limit, by_fields, two.view(docs), &mut touched);
                    let all = idx.score_top::<FIELDS, _>(&lists, &credits, limit, by_fields, all.view(docs), &mut touched);
                    assert!(!two.is_empty(), "{q}");
                    assert_eq!(bits(&packed), bits(&two), "{q} {limit} {by_fields}");
                    assert_eq!(bits(&two), bits(&all), "{q} {limit} {by_fields}");
                    assert_eq!(*first.get_or_insert_with(|| bits(&two)), bits(&two), "{q} {limit}");
                }
            }
        }
    }

    #[test]
    fn lazy_tables_are_shared_across_threads() {
        let idx = index();
        let queries = ["calender", "emial", "天", "幅", "scheduling meetings", "reposiotry"];
        let expected: Vec<_> = {
            let fresh = index();
            queries.iter().map(|q| fresh.search(q)).collect()
        };
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for (q, want) in queries.iter().zip(&expected) {
                        assert_eq!(&idx.search(q), want, "{q}");
                    }
                });
            }
        });
    }

    #[test]
    fn fields_are_weighted() {
        let docs = vec![
            FieldDoc::new(vec![(Field::Name, "notes".into()), (Field::Description, "keep things".into())]),
            FieldDoc::new(vec![(Field::Name, "keeper".into()), (Field::Description, "stores notes".into())]),
            FieldDoc::new(vec![(Field::Name, "other".into()), (Field::References, "notes".into())]),
        ];
        let idx = EnhancedIndex::build(&docs);
        assert_eq!(idx.search("notes").iter().map(|h| h.0).collect::<Vec<_>>(), [0, 1, 2]);
    }

    #[test]
    fn deterministic_and_panic_free_on_odd_queries() {
        let idx = index();
        let long_x = "x".repeat(10_000);
        let long_han = "天".repeat(500);
        let queries = [
            "\u{0}",
            "\u{FEFF}email",
            "ｅｍａｉｌ",
            "🏳️‍🌈 email",
            "a\u{301}",
            "İstanbul",
            "ß",
            "々",
            "ー",
            "・",
            "ᄀ",
            "𠀀𠀁𠀂",
            "\u{10FFFF}",
            "e.g.",
            "__init__",
            &long_x,
            &long_han,
        ];
        for q in queries {
            let a = idx.search(q);
            assert_eq!(a, idx.search(q));
        }
    }
}
