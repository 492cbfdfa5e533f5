//! Indexing: analysing every document's fields, per-field length normalisation and
//! saturation into one value per posting, coverage masses, and the lookup tables the
//! first query that needs them builds.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::super::action::{sibling_families, Actions};
use super::super::analyzer::{stem, tokenize, Token};
use super::super::fuzzy::FuzzyIndex;
use super::postings::Postings;
use super::{EnhancedIndex, Field, FieldDoc, Lazy, SortedStems, Tuning, FIELDS};

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
pub(super) fn fuzzy_eligible(text: &str) -> bool {
    text.chars().count() >= 3 && text.chars().all(char::is_alphabetic)
}

/// The first text of `field` in `doc` ("" when it has none).
fn field_text(doc: &FieldDoc, field: Field) -> &str {
    doc.fields.iter().find(|(f, _)| *f == field).map_or("", |(_, t)| t.as_str())
}

/// Per document, the actions its tool performs among siblings and its sibling family (see
/// [`sibling_families`]); both empty when no document has a sibling.
fn document_actions(docs: &[FieldDoc]) -> (Vec<Actions>, Vec<u32>) {
    let rows = sibling_families(docs.iter().map(|doc| (field_text(doc, Field::Name), field_text(doc, Field::Description))));
    if rows.iter().any(|(a, _)| !a.is_empty()) { rows.into_iter().unzip() } else { (Vec::new(), Vec::new()) }
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
                let pivot = f64::from(tuning.long_pivot[f]);
                if pivot > 0.0 {
                    let over = f64::from(lens[f]) / (pivot * avg[f]);
                    if over > 1.0 {
                        norm[f] /= over as f32;
                    }
                }
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
        let (actions, families) = if tuning.actions_on() { document_actions(docs) } else { (Vec::new(), Vec::new()) };
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
            actions,
            families,
            lazy: OnceLock::new(),
        }
    }

    pub(super) fn lazy(&self) -> &Lazy {
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
}
