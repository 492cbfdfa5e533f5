//! Field-weighted BM25 (BM25F) over analysed units.
//!
//! Per field, term frequencies are length-normalised and weighted, summed into one pseudo
//! frequency, then saturated once (Robertson & Zaragoza's BM25F). All of that depends only
//! on the document, so each posting stores its final saturated value and a query costs one
//! multiply-add per posting.

use std::cell::RefCell;
use std::collections::HashMap;

use super::analyzer::{analyze, analyze_to_vec, is_cjk, Unit};
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
    /// Two adjacent query words found adjacent in a document (after stopwords).
    pub w_pair: f32,
    /// Exponent on the idf (above 1 favours rare words more).
    pub idf_pow: f32,
    /// Coordination: scores are multiplied by (matched query units / units)^coord.
    pub coord: f32,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            field_weight: [2.0, 1.0, 0.6, 0.8, 0.4],
            field_b: [0.5, 0.75, 0.75, 0.75, 0.75],
            k1: 1.2,
            w_stem: 1.0,
            w_surface: 0.25,
            w_whole: 1.0,
            w_cjk: 1.0,
            w_cjk_expanded: 0.5,
            w_fuzzy: [0.5, 0.3],
            w_prefix: 0.0,
            prefix_min: 4.0,
            prefix_ratio: 0.0,
            w_pair: 0.0,
            idf_pow: 1.0,
            coord: 0.0,
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

/// Term for two adjacent words (a space never occurs inside a word term).
fn pair_term(a: &str, b: &str) -> String {
    let mut t = String::with_capacity(a.len() + b.len() + 1);
    t.push_str(a);
    t.push(' ');
    t.push_str(b);
    t
}

/// A letter word worth matching a typo against: 3+ characters, all alphabetic, not CJK.
fn fuzzy_eligible(text: &str) -> bool {
    text.chars().count() >= 3 && text.chars().all(char::is_alphabetic)
}

#[derive(Debug, Clone, Copy)]
struct QueryTerm {
    term: u32,
    weight: f32,
    group: u32,
}

/// Query terms under construction: one group per query unit that matched something.
#[derive(Default)]
struct QueryTerms {
    terms: Vec<QueryTerm>,
    groups: u32,
    group_used: bool,
}

impl QueryTerms {
    fn add(&mut self, term: u32, weight: f32) {
        self.group_used = true;
        match self.terms.iter_mut().find(|x| x.term == term) {
            Some(x) => x.weight = x.weight.max(weight),
            None => self.terms.push(QueryTerm { term, weight, group: self.groups }),
        }
    }

    fn next_group(&mut self) {
        if self.group_used {
            self.groups += 1;
            self.group_used = false;
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
        let analysed: Vec<Vec<(usize, Vec<Unit>)>> = docs
            .iter()
            .map(|doc| doc.fields.iter().map(|(field, text)| (field.idx(), analyze_to_vec(text))).collect())
            .collect();
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
                let mut prev_stem: Option<&str> = None;
                for unit in units {
                    let mut stem_id = None;
                    unit.for_each_term(|t| {
                        let id = bump(&mut b, &mut terms, t);
                        stem_id.get_or_insert(id);
                    });
                    // Adjacent words also index as a pair, for phrase-like matches.
                    match unit {
                        Unit::Word { stem, .. } => {
                            if let (Some(p), true) = (prev_stem, tuning.w_pair > 0.0) {
                                bump(&mut b, &mut terms, &pair_term(p, stem));
                            }
                            prev_stem = Some(stem);
                        }
                        Unit::Whole(_) => {}
                        Unit::Cjk(_) => prev_stem = None,
                    }
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

    /// Weighted term ids for a query, each term once (highest weight kept), with the
    /// query unit ("group") it came from, and the number of groups that matched anything.
    fn query_terms(&self, query: &str) -> QueryTerms {
        let mut units = Vec::new();
        analyze(query, &mut units);
        let tu = &self.tuning;
        let mut q = QueryTerms::default();
        let mut prev_stem: Option<&str> = None;
        for unit in &units {
            match unit {
                Unit::Word { stem, .. } => {
                    if let (Some(p), true) = (prev_stem, tu.w_pair > 0.0) {
                        if let Some(&id) = self.dict.get(pair_term(p, stem).as_str()) {
                            q.add(id, tu.w_pair);
                            q.next_group();
                        }
                    }
                    prev_stem = Some(stem);
                }
                Unit::Whole(_) => {}
                Unit::Cjk(_) => prev_stem = None,
            }
            match unit {
                Unit::Word { surface, stem } => {
                    // Documents index a word's stem and, when different, its surface form,
                    // so a surface hit implies a stem hit: the surface weight is a bonus.
                    let s = self.dict.get(stem.as_str()).copied();
                    let f = if surface != stem { self.dict.get(surface.as_str()).copied() } else { None };
                    if s.is_none() && f.is_none() {
                        self.add_fuzzy(surface, &mut q);
                    }
                    if let Some(s) = s {
                        q.add(s, tu.w_stem);
                    }
                    if let Some(f) = f {
                        q.add(f, tu.w_surface);
                    }
                    if tu.w_prefix > 0.0 {
                        self.add_prefix_relatives(stem, &mut q);
                    }
                }
                Unit::Whole(t) => match self.dict.get(t.as_str()) {
                    Some(&id) => q.add(id, tu.w_whole),
                    None => self.add_fuzzy(t, &mut q),
                },
                Unit::Cjk(t) => match self.dict.get(t.as_str()) {
                    Some(&id) => q.add(id, tu.w_cjk),
                    None => {
                        let mut chars = t.chars();
                        if let (Some(c), None) = (chars.next(), chars.next()) {
                            if let Some(list) = self.cjk_bigrams.get(&c) {
                                for &id in list.iter().take(MAX_CJK_EXPANSIONS) {
                                    q.add(id, tu.w_cjk_expanded);
                                }
                            }
                        }
                    }
                },
            }
            q.next_group();
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
                q.add(*id, w);
            }
        }
    }

    fn add_fuzzy(&self, term: &str, q: &mut QueryTerms) {
        if !fuzzy_eligible(term) {
            return;
        }
        for (target, d) in self.fuzzy.lookup(term, MAX_FUZZY) {
            q.add(target, self.tuning.w_fuzzy[d.clamp(1, 2) - 1]);
        }
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
        let (terms, groups) = (&q.terms, q.groups);
        if terms.is_empty() {
            return Vec::new();
        }
        let coord = self.tuning.coord;
        SCRATCH.with(|cell| {
            let mut guard = cell.borrow_mut();
            let (scores, masks, touched) = &mut *guard;
            if scores.len() < self.docs {
                scores.resize(self.docs, 0.0);
                masks.resize(self.docs, 0);
            }
            touched.clear();
            for qt in terms {
                let t = qt.term as usize;
                let (a, b) = (self.offsets[t] as usize, self.offsets[t + 1] as usize);
                let qw = qt.weight * self.idf[t];
                let bit = 1u64 << qt.group.min(63);
                for (&d, &v) in self.post_doc[a..b].iter().zip(&self.post_val[a..b]) {
                    let s = &mut scores[d as usize];
                    if *s == 0.0 {
                        touched.push(d);
                    }
                    *s += qw * v;
                    masks[d as usize] |= bit;
                }
            }
            let groups = groups.clamp(1, 64) as f32;
            let mut hits: Vec<(u32, f32)> = touched
                .iter()
                .map(|&d| {
                    let matched = masks[d as usize].count_ones() as f32;
                    (d, scores[d as usize] * (matched / groups).powf(coord))
                })
                .collect();
            for &d in touched.iter() {
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
        assert_eq!(r.len(), 1);
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
