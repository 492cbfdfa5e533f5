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
//!
//! One file per concern: [`build`] indexes documents, [`postings`] stores the posting
//! lists, [`expand`] turns a query into weighted terms (stems, surface forms, prefix
//! relatives, typos), [`accumulate`] holds the per-document accumulators of a search and
//! [`score`] ranks the documents.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::action::Actions;
use super::fuzzy::FuzzyIndex;

mod accumulate;
mod build;
mod expand;
mod postings;
mod score;
#[cfg(test)]
mod tests;

use postings::Postings;

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
    /// Per-field outlier pivot `c` (0: off): a field longer than `c` times the catalog's
    /// average counts its length in full past that point (its words weigh `c · avg / len`
    /// as much). Ordinary lengths are untouched, but a description stuffed with common words
    /// to match every request cannot outweigh the tools each of those requests is about.
    pub long_pivot: [f32; FIELDS],
    /// Action match (see [`super::action`]): among sibling tools, a document's score is
    /// multiplied by `action_bonus` when its tool performs an action the query asks for, by
    /// `action_penalty` when the query asks for actions and the tool performs only unrelated
    /// others. Both 1: off.
    pub action_bonus: f32,
    pub action_penalty: f32,
    /// English words of the software vocabulary in a request's CJK text (see
    /// [`super::glossary`]), as a share of a typed word's weight; 0: off.
    pub w_glossary: f32,
    /// Words for what a request names by its shape (a file path, a URL, an email address, an
    /// owner/repo, a #channel, a ticket key; see [`super::shapes`]), as a share of a typed
    /// word's weight; 0: off.
    pub w_shape: f32,
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
            // (MetaTool's dev lines: 3 leaves recall where it was; lower pivots cost recall)
            long_pivot: [0.0, 3.0, 0.0, 0.0, 0.0],
            // (data/mcp's dev requests, examples/mcp.rs --sweep: 1.1–1.6 and 0.6–0.9 all lift
            // recall@1 0.450 -> 0.52–0.545; MetaTool has no sibling families, so it is unchanged)
            action_bonus: 1.2,
            action_penalty: 0.7,
            // (data/mcp dev, examples/mcp.rs: CJK requests for English tools, enhanced recall@1
            // 0.24 -> 0.72, recall@5 0.54 -> 0.87 at 1; 0.5–1.5 all within 0.03 of it;
            // multilingual dev enhanced recall@5 0.543 -> 0.599; English requests have no CJK text)
            w_glossary: 1.0,
            // (data/mcp's dev requests, examples/mcp.rs: recall@5 enhanced 0.887 -> 0.895, hybrid
            // 0.882 -> 0.887; 0.75–2 read a request or two more, but then a shape's word, which
            // one sibling's description happens to hold, outweighs the asked action among
            // siblings (siblings.spec.ts): half a typed word, as the user did not type it.
            // MetaTool, BFCL and the multilingual set's recall@5 no lower, bench/quality.mjs)
            w_shape: 0.5,
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
    /// per document: the actions its tool performs among siblings (empty when the tuning
    /// has no action factor or no document has a sibling)
    actions: Vec<Actions>,
    /// per document: its sibling family (`action::NO_FAMILY` for none), beside `actions`
    families: Vec<u32>,
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

impl Tuning {
    /// Whether the action match changes any score.
    fn actions_on(&self) -> bool {
        self.action_bonus != 1.0 || self.action_penalty != 1.0
    }
}

impl EnhancedIndex {
    /// The actions `query` asks for, as this index reads them (none when its documents
    /// perform none or its tuning has no action factor).
    pub fn query_actions(&self, query: &str) -> Actions {
        if self.actions.is_empty() {
            Actions::NONE
        } else {
            super::action::request_actions(query)
        }
    }

    /// Document `doc`'s action factor for a query asking for `wanted`.
    pub fn action_factor(&self, wanted: Actions, doc: u32) -> f32 {
        match self.actions.get(doc as usize) {
            Some(&performed) => super::action::action_factor(wanted, performed, self.tuning.action_bonus, self.tuning.action_penalty),
            None => 1.0,
        }
    }

    /// Document `doc`'s sibling family (see [`super::action::sibling_families`]), None when
    /// it has no sibling or the index reads no actions.
    pub fn sibling_family(&self, doc: u32) -> Option<u32> {
        self.families.get(doc as usize).copied().filter(|&f| f != super::action::NO_FAMILY)
    }

    /// The largest action factor any document can get for a query asking for `wanted`.
    fn max_action_factor(&self, wanted: Actions) -> f32 {
        if wanted.is_empty() || self.actions.is_empty() {
            1.0
        } else {
            self.tuning.action_bonus.max(1.0).max(self.tuning.action_penalty)
        }
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.docs
    }

    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }
}
