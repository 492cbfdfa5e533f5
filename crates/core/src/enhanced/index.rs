//! Field-weighted BM25 (BM25F) over analysed units.
//!
//! Per field, term frequencies are length-normalised and weighted, summed into one pseudo
//! frequency, then saturated once (Robertson & Zaragoza's BM25F). All of that depends only
//! on the document, so each posting stores its final saturated value and a query costs one
//! multiply-add per posting.

use std::cell::RefCell;
use std::collections::HashMap;

use super::analyzer::{analyze, analyze_to_vec, is_cjk, word_unit, Unit};
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
    pub w_cjk: f32,
    /// A single CJK character that is not indexed alone matches bigrams containing it.
    pub w_cjk_expanded: f32,
    /// Typo matches count less than real ones: one edit, two edits.
    pub w_fuzzy: [f32; 2],
    /// Related word forms: a query stem that is a prefix of an indexed stem, or the reverse
    /// (`rent` ~ `rental`), for stems of `prefix_min`+ characters.
    pub w_prefix: f32,
    pub prefix_min: f32,
    pub prefix_ratio: f32,
    /// Exponent on the idf (above 1 favours rare words more).
    pub idf_pow: f32,
    /// Coverage: scores are multiplied by (idf-weighted share of query words matched)^coord.
    pub coord: f32,
    /// Share of a word's coverage credit given for a prefix/typo match only.
    pub coord_weak: f32,
    /// 0: each query word counts 1 in the coverage; 1: it counts its idf.
    pub coord_idf: f32,
    /// experimental: per-term contribution exponent
    pub term_pow: f32,
    pub decompound: f32,
    pub pos_ramp: f32,
}

/// Tuned on the even (0-based) query lines of the MetaTool set only; see
/// `examples/quality.rs`. Nothing here refers to that set's tools or words.
impl Default for Tuning {
    fn default() -> Self {
        Self {
            field_weight: [2.5, 1.0, 0.6, 0.8, 0.4],
            field_b: [0.4, 0.15, 0.75, 0.75, 0.75],
            k1: 4.0,
            w_stem: 1.0,
            w_surface: 0.05,
            w_whole: 0.5,
            w_cjk: 1.0,
            w_cjk_expanded: 0.5,
            w_fuzzy: [0.2, 0.2],
            w_prefix: 0.3,
            prefix_min: 3.0,
            prefix_ratio: 0.65,
            idf_pow: 1.5,
            coord: 0.0,
            coord_weak: 0.5,
            coord_idf: 1.0,
            term_pow: 1.0,
            decompound: 0.0,
            pos_ramp: 0.0,
        }
    }
}

const MAX_CJK_EXPANSIONS: usize = 64;
const MAX_FUZZY: usize = 3;
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
    dict: HashMap<Box<str>, u32>,
    idf: Vec<f32>,
    /// CSR postings: term t's postings are `offsets[t]..offsets[t+1]`, by ascending doc
    offsets: Vec<u32>,
    post_doc: Vec<u32>,
    post_val: Vec<f32>,
    fuzzy: FuzzyIndex,
    /// ASCII word stems, sorted, for prefix relations
    stems: Vec<(Box<str>, u32)>,
    /// CJK character → bigram terms containing it (for one-character query runs)
    cjk_bigrams: HashMap<char, Vec<u32>>,
}

thread_local! {
    /// Per-thread score accumulator, reused across queries and indexes.
    static SCRATCH: RefCell<(Vec<f32>, Vec<u64>, Vec<u32>)> = const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

struct Builder {
    dict: HashMap<Box<str>, u32>,
    /// term → is it a fuzzy target (surface word or whole identifier) and its stem term
    fuzzy_terms: Vec<(String, u32)>,
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
}

/// Names written as one run-together word (`socialsearch`) also index the words they are
/// made of, when the rest of the catalog's vocabulary spells them out completely.
fn decompound_names(analysed: &mut [Vec<(usize, Vec<Unit>)>]) {
    const MIN_PART: usize = 3;
    const MIN_WORD: usize = 6;
    let mut vocab: std::collections::HashSet<String> = std::collections::HashSet::new();
    for doc in analysed.iter() {
        for (_, units) in doc {
            for u in units {
                if let Unit::Word { surface, .. } = u {
                    if surface.len() >= MIN_PART && surface.bytes().all(|c| c.is_ascii_lowercase()) {
                        vocab.insert(surface.clone());
                    }
                }
            }
        }
    }
    for doc in analysed.iter_mut() {
        for (f, units) in doc.iter_mut() {
            if *f != Field::Name.idx() {
                continue;
            }
            let mut extra = Vec::new();
            for u in units.iter() {
                let Unit::Word { surface, .. } = u else { continue };
                let w = surface.as_bytes();
                if w.len() < MIN_WORD || w.len() > 40 || !w.iter().all(|c| c.is_ascii_lowercase()) {
                    continue;
                }
                // fewest parts covering the word; best[i] = (parts, start of last part)
                let n = w.len();
                let mut best: Vec<Option<(u32, usize)>> = vec![None; n + 1];
                best[0] = Some((0, 0));
                for i in MIN_PART..=n {
                    for j in 0..=i - MIN_PART {
                        let Some((k, _)) = best[j] else { continue };
                        if (j, i) != (0, n) && vocab.contains(&surface[j..i]) && best[i].is_none_or(|(b, _)| k + 1 < b) {
                            best[i] = Some((k + 1, j));
                        }
                    }
                }
                if best[n].is_some() {
                    let mut i = n;
                    let mut parts = Vec::new();
                    while i > 0 {
                        let (_, j) = best[i].unwrap_or((0, 0));
                        parts.push(&surface[j..i]);
                        i = j;
                    }
                    extra.extend(parts.into_iter().rev().map(|p| word_unit(p.to_owned())));
                }
            }
            units.extend(extra);
        }
    }
}

/// A letter word worth matching a typo against: 3+ characters, all alphabetic, not CJK.
fn fuzzy_eligible(text: &str) -> bool {
    text.chars().count() >= 3 && text.chars().all(char::is_alphabetic)
}

/// Query-word group for terms that count toward no word's coverage (joined identifiers).
const NO_GROUP: u8 = u8::MAX;
/// Coverage tracks at most this many distinct query words (bits of two u32 masks).
const MAX_GROUPS: usize = 32;

#[derive(Clone, Copy)]
struct QueryTerm {
    term: u32,
    weight: f32,
    group: u8,
    /// The word itself (stem, surface, CJK unit) rather than a prefix/typo relative.
    strong: bool,
}

/// Weighted query terms, each term once (highest weight kept), with the query word
/// ("group") each came from, for coverage.
#[derive(Default)]
struct QueryTerms {
    terms: Vec<QueryTerm>,
    /// per group: its weight in the coverage denominator
    group_weight: Vec<f32>,
    cur: Option<u8>,
}

impl QueryTerms {
    /// Starts a new query word; `None` when too many words already.
    fn open_group(&mut self) {
        self.cur = (self.group_weight.len() < MAX_GROUPS).then(|| {
            self.group_weight.push(0.0);
            (self.group_weight.len() - 1) as u8
        });
    }

    fn add(&mut self, term: u32, weight: f32, strong: bool) {
        let group = self.cur.unwrap_or(NO_GROUP);
        match self.terms.iter_mut().find(|x| x.term == term) {
            Some(x) => {
                x.weight = x.weight.max(weight);
                x.strong |= strong;
            }
            None => self.terms.push(QueryTerm { term, weight, group, strong }),
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
            dict: HashMap::new(),
            fuzzy_terms: Vec::new(),
            fuzzy_seen: Vec::new(),
            stem_terms: Vec::new(),
            stem_seen: Vec::new(),
        };
        // per doc: (term, per-field tf) and per-field lengths
        let mut doc_terms: Vec<Vec<(u32, [u16; FIELDS])>> = Vec::with_capacity(docs.len());
        let mut doc_lens: Vec<[u32; FIELDS]> = Vec::with_capacity(docs.len());
        let mut slot_of: Vec<u32> = Vec::new(); // term → 1 + position in the current doc's list
        let mut analysed: Vec<Vec<(usize, Vec<Unit>)>> = docs
            .iter()
            .map(|doc| doc.fields.iter().map(|(field, text)| (field.idx(), analyze_to_vec(text))).collect())
            .collect();
        if tuning.decompound > 0.0 {
            decompound_names(&mut analysed);
        }
        for doc in &analysed {
            let mut terms: Vec<(u32, [u16; FIELDS])> = Vec::new();
            let mut lens = [0u32; FIELDS];
            for (f, units) in doc {
                let f = *f;
                lens[f] = lens[f].saturating_add(units.len() as u32);
                let mut bump = |b: &mut Builder, terms: &mut Vec<(u32, [u16; FIELDS])>, t: &str| -> u32 {
                    let id = b.intern(t);
                    if slot_of.len() < b.dict.len() {
                        slot_of.resize(b.dict.len(), 0);
                    }
                    let s = &mut slot_of[id as usize];
                    if *s == 0 {
                        terms.push((id, [0; FIELDS]));
                        *s = terms.len() as u32;
                    }
                    let tf = &mut terms[*s as usize - 1].1[f];
                    *tf = tf.saturating_add(1);
                    id
                };
                for unit in units {
                    let mut stem_id = None;
                    unit.for_each_term(|t| {
                        let id = bump(&mut b, &mut terms, t);
                        stem_id.get_or_insert(id);
                    });
                    if let (Unit::Word { stem, .. }, Some(sid)) = (unit, stem_id) {
                        if !b.stem_seen[sid as usize] && stem.len() >= 3 && stem.bytes().all(|c| c.is_ascii_alphabetic()) {
                            b.stem_seen[sid as usize] = true;
                            b.stem_terms.push(sid);
                        }
                    }
                    let (surface, target) = match unit {
                        Unit::Word { surface, .. } => (surface.as_str(), stem_id),
                        Unit::Whole(t) => (t.as_str(), stem_id),
                        Unit::Cjk(_) => continue,
                    };
                    if let (Some(target), Some(sid)) = (target, b.dict.get(surface).copied()) {
                        if !b.fuzzy_seen[sid as usize] && fuzzy_eligible(surface) {
                            b.fuzzy_seen[sid as usize] = true;
                            b.fuzzy_terms.push((surface.to_owned(), target));
                        }
                    }
                }
            }
            for &(t, _) in &terms {
                slot_of[t as usize] = 0;
            }
            doc_terms.push(terms);
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
        for terms in &doc_terms {
            for &(t, _) in terms {
                offsets[t as usize + 1] += 1;
            }
        }
        for t in 0..n_terms {
            offsets[t + 1] += offsets[t];
        }
        let total = offsets[n_terms] as usize;
        let mut post_doc = vec![0u32; total];
        let mut post_val = vec![0f32; total];
        let mut fill: Vec<u32> = offsets[..n_terms].to_vec();
        for (d, terms) in doc_terms.iter().enumerate() {
            let lens = &doc_lens[d];
            let mut norm = [0f32; FIELDS];
            for f in 0..FIELDS {
                norm[f] = field_weight[f] / (1.0 - field_b[f] + field_b[f] * (f64::from(lens[f]) / avg[f]) as f32);
            }
            for &(t, tf) in terms {
                let pseudo: f32 = (0..FIELDS).map(|f| f32::from(tf[f]) * norm[f]).sum();
                let pos = fill[t as usize] as usize;
                fill[t as usize] += 1;
                post_doc[pos] = d as u32;
                post_val[pos] = pseudo * (k1 + 1.0) / (k1 + pseudo);
            }
        }
        let n = docs.len() as f64;
        let idf: Vec<f32> = (0..n_terms)
            .map(|t| {
                let df = f64::from(offsets[t + 1] - offsets[t]);
                (((n - df + 0.5) / (df + 0.5) + 1.0).ln() as f32).powf(tuning.idf_pow)
            })
            .collect();

        let mut cjk_bigrams: HashMap<char, Vec<u32>> = HashMap::new();
        let mut cjk_terms: Vec<(&str, u32)> = b
            .dict
            .iter()
            .filter(|(k, _)| k.chars().count() == 2 && k.chars().all(is_cjk))
            .map(|(k, &v)| (&**k, v))
            .collect();
        cjk_terms.sort_unstable_by_key(|&(_, id)| id);
        for (k, id) in cjk_terms {
            let mut chars = k.chars();
            if let (Some(a), Some(c)) = (chars.next(), chars.next()) {
                cjk_bigrams.entry(a).or_default().push(id);
                if c != a {
                    cjk_bigrams.entry(c).or_default().push(id);
                }
            }
        }

        let mut stems: Vec<(Box<str>, u32)> = b.stem_terms.iter().map(|&id| (id, id)).map(|(_, id)| (Box::<str>::from(""), id)).collect();
        let mut names: Vec<Option<&str>> = vec![None; n_terms];
        for (k, &v) in &b.dict {
            names[v as usize] = Some(k);
        }
        for st in &mut stems {
            st.0 = names[st.1 as usize].unwrap_or("").into();
        }
        stems.sort();
        let fuzzy = FuzzyIndex::build(b.fuzzy_terms);
        Self { tuning, docs: docs.len(), stems, dict: b.dict, idf, offsets, post_doc, post_val, fuzzy, cjk_bigrams }
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.docs
    }

    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// Weighted term ids for a query, grouped by query word.
    fn query_terms(&self, query: &str) -> QueryTerms {
        let mut units = Vec::new();
        analyze(query, &mut units);
        let tu = &self.tuning;
        let mut q = QueryTerms::default();
        for unit in &units {
            match unit {
                Unit::Word { surface, stem } => {
                    q.open_group();
                    // Documents index a word's stem and, when different, its surface form,
                    // so a surface hit implies a stem hit: the surface weight is a bonus.
                    let s = self.dict.get(stem.as_str()).copied();
                    let f = if surface != stem { self.dict.get(surface.as_str()).copied() } else { None };
                    if s.is_none() && f.is_none() {
                        self.add_fuzzy(surface, &mut q);
                    }
                    if let Some(s) = s {
                        q.add(s, tu.w_stem, true);
                    }
                    if let Some(f) = f {
                        q.add(f, tu.w_surface, true);
                    }
                    if tu.w_prefix > 0.0 {
                        self.add_prefix_relatives(stem, &mut q);
                    }
                }
                Unit::Whole(t) => {
                    // the parts were already counted as words
                    q.cur = None;
                    match self.dict.get(t.as_str()) {
                        Some(&id) => q.add(id, tu.w_whole, true),
                        None => self.add_fuzzy(t, &mut q),
                    }
                }
                Unit::Cjk(t) => {
                    q.open_group();
                    match self.dict.get(t.as_str()) {
                        Some(&id) => q.add(id, tu.w_cjk, true),
                        None => {
                            let mut chars = t.chars();
                            if let (Some(c), None) = (chars.next(), chars.next()) {
                                if let Some(list) = self.cjk_bigrams.get(&c) {
                                    for &id in list.iter().take(MAX_CJK_EXPANSIONS) {
                                        q.add(id, tu.w_cjk_expanded, false);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        if tu.pos_ramp != 0.0 {
            let n = q.group_weight.len().max(1) as f32;
            for qt in &mut q.terms {
                if (qt.group as usize) < MAX_GROUPS {
                    qt.weight *= 1.0 - tu.pos_ramp * (1.0 - (qt.group as f32 + 1.0) / n);
                }
            }
        }
        for qt in &q.terms {
            if let Some(w) = q.group_weight.get_mut(qt.group as usize) {
                let iw = if tu.coord_idf > 0.0 { self.idf[qt.term as usize] } else { 1.0 };
                *w = w.max(iw);
            }
        }
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
        let start = self.stems.partition_point(|(t, _)| &**t < head);
        for (t, id) in self.stems[start..].iter().take_while(|(t, _)| t.starts_with(head)).take(MAX_PREFIX) {
            if &**t == stem {
                continue;
            }
            let cp = t.bytes().zip(stem.bytes()).take_while(|(a, b)| a == b).count();
            let prefix_of = cp == t.len() || cp == stem.len();
            if prefix_of || (ratio > 0.0 && cp as f32 >= ratio * t.len().max(stem.len()) as f32) {
                q.add(*id, w, false);
            }
        }
    }

    fn add_fuzzy(&self, term: &str, q: &mut QueryTerms) {
        if !fuzzy_eligible(term) {
            return;
        }
        for (target, d) in self.fuzzy.lookup(term, MAX_FUZZY) {
            q.add(target, self.tuning.w_fuzzy[d.clamp(1, 2) - 1], false);
        }
    }

    /// Per query term: (term, contribution) to `doc`'s score before coverage. Debugging aid.
    #[doc(hidden)]
    pub fn explain(&self, query: &str, doc: u32) -> Vec<(String, f32)> {
        let q = self.query_terms(query);
        let name = |t: u32| self.dict.iter().find(|(_, &v)| v == t).map(|(k, _)| k.to_string()).unwrap_or_default();
        let mut out = Vec::new();
        for qt in &q.terms {
            let t = qt.term as usize;
            let (a, b) = (self.offsets[t] as usize, self.offsets[t + 1] as usize);
            if let Ok(i) = self.post_doc[a..b].binary_search(&doc) {
                out.push((name(qt.term), qt.weight * self.idf[t] * self.post_val[a + i]));
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
        if self.docs == 0 || limit == 0 {
            return Vec::new();
        }
        let q = self.query_terms(query);
        if q.terms.is_empty() {
            return Vec::new();
        }
        let total: f32 = q.group_weight.iter().sum();
        let coord = if total > 0.0 { self.tuning.coord } else { 0.0 };
        let weak_share = self.tuning.coord_weak;
        let tp = self.tuning.term_pow;
        SCRATCH.with(|cell| {
            let mut guard = cell.borrow_mut();
            let (scores, masks, touched) = &mut *guard;
            if scores.len() < self.docs {
                scores.resize(self.docs, 0.0);
                masks.resize(self.docs, 0);
            }
            touched.clear();
            for qt in &q.terms {
                let t = qt.term as usize;
                let (a, b) = (self.offsets[t] as usize, self.offsets[t + 1] as usize);
                let qw = qt.weight * self.idf[t];
                // a zero contribution would leave the score at 0 and re-list the document
                if !(qw > 0.0) {
                    continue;
                }
                // low 32 bits: words matched by themselves; high: by a relative
                let bit = if (qt.group as usize) < MAX_GROUPS { 1u64 << (qt.group as u32 + if qt.strong { 0 } else { 32 }) } else { 0 };
                for (&d, &v) in self.post_doc[a..b].iter().zip(&self.post_val[a..b]) {
                    let s = &mut scores[d as usize];
                    if *s == 0.0 {
                        touched.push(d);
                    }
                    *s += if tp == 1.0 { qw * v } else { (qw * v).powf(tp) };
                    masks[d as usize] |= bit;
                }
            }
            let mut hits: Vec<(u32, f32)> = Vec::with_capacity(touched.len());
            for &d in touched.iter() {
                let mut s = scores[d as usize];
                if coord > 0.0 {
                    let m = masks[d as usize];
                    let (strong, weak) = (m as u32, (m >> 32) as u32 & !(m as u32));
                    let mut cov = 0.0f32;
                    for (g, &w) in q.group_weight.iter().enumerate() {
                        if strong >> g & 1 == 1 {
                            cov += w;
                        } else if weak >> g & 1 == 1 {
                            cov += weak_share * w;
                        }
                    }
                    s *= (cov / total).powf(coord);
                }
                hits.push((d, s));
                scores[d as usize] = 0.0;
                masks[d as usize] = 0;
            }
            let cmp = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
            hits.retain(|h| h.1 > 0.0);
            if limit < hits.len() {
                hits.select_nth_unstable_by(limit - 1, cmp);
                hits.truncate(limit);
            }
            hits.sort_unstable_by(cmp);
            hits.into_iter().map(|(d, s)| (d, f64::from(s))).collect()
        })
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
        let docs: Vec<FieldDoc> = ["calendar", "calendars of events", "calender tool"]
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
        let same: Vec<FieldDoc> = (0..4).map(|_| FieldDoc::new(vec![(Field::Description, "same words".into())])).collect();
        let r = EnhancedIndex::build(&same).search("words");
        assert_eq!(r.iter().map(|h| h.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert!(r.windows(2).all(|w| w[0].1 == w[1].1));
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
            "\u{0}", "\u{FEFF}email", "ｅｍａｉｌ", "🏳️‍🌈 email", "a\u{301}", "İstanbul", "ß", "々", "ー", "・", "ᄀ",
            "𠀀𠀁𠀂", "\u{10FFFF}", "e.g.", "__init__", &long_x, &long_han,
        ];
        for q in queries {
            let a = idx.search(q);
            assert_eq!(a, idx.search(q));
        }
    }
}
