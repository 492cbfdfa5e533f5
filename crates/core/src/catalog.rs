//! Tool catalogs: the searchable set of tools of one processor (static) or one request
//! (static + request-resolved overlay), with the reference's naming, lookup and ranking.
//!
//! Tools are identified by a *handle* chosen by the caller (the JS layer keeps the actual
//! `Tool` objects in arrays and maps handles back), so no JS object ever lives in Rust.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use crate::bm25::{top_by_score, Bm25Index, DocSet, Vocab};
use crate::enhanced::{self, EnhancedIndex, Field, FieldDoc};
use crate::semantic::{self, DocVectors, Fusion, SemanticDocs, StaticModel};
use crate::tokenizer::{for_each_compat_token, for_each_compat_token_with};

mod entries;

use entries::{Entries, Entry};
pub use entries::{JoinedError, ToolRef};

/// One `[key, tool]` entry as the catalog needs it.
#[derive(Debug, Clone)]
pub struct ToolEntry {
    pub key: String,
    /// `tool.id` when it is a non-empty string.
    pub id: Option<String>,
    pub description: String,
    pub handle: u32,
}

impl ToolEntry {
    /// The indexed name: `tool.id || key`.
    pub fn name(&self) -> &str {
        self.id.as_deref().unwrap_or(&self.key)
    }

    /// This tool, borrowed, with `params` as its parameter text.
    pub fn tool_ref<'a>(&'a self, params: &'a str) -> ToolRef<'a> {
        ToolRef { key: &self.key, id: self.id.as_deref(), description: &self.description, params, handle: self.handle }
    }
}

/// `entries` with their parameter texts (missing texts are empty), copied into one buffer.
fn entries_of(entries: &[ToolEntry], params: Option<&[String]>) -> Entries<'static> {
    let params = params.unwrap_or_default();
    Entries::from_tools(entries.iter().enumerate().map(|(i, e)| e.tool_ref(params.get(i).map_or("", String::as_str))))
}

/// A search hit: the tool to return (first tool whose id is the indexed name), the tool
/// whose name/description the document shows (the last one indexed under that name),
/// and the boosted score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub handle: u32,
    pub doc_handle: u32,
    pub score: f64,
}

/// What a hybrid hit rests on, for preload's confidence: its lexical score (0 when it was not
/// among the lexical candidates fused) and the model's plain cosine with the request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    pub lexical: f64,
    pub cosine: f64,
}

/// One `injectCatalog` row; see [`ToolCatalog::listing`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListingRow {
    /// The entry whose key this row is for.
    pub key_handle: u32,
    /// The tool the key resolves to (passed to the filter; its id names the row).
    pub tool_handle: u32,
    /// The tool whose description the row shows.
    pub doc_handle: Option<u32>,
}

/// Search knobs, as in `ToolSearchProcessorOptions.search`.
#[derive(Debug, Clone, Copy)]
pub struct SearchParams {
    pub top_k: usize,
    pub min_score: f64,
    /// A filter is configured: inspect every BM25 match (the caller stops after `top_k`
    /// allowed hits), instead of cutting at `top_k * 2` before boosting.
    pub inspect_all: bool,
}

#[derive(Debug)]
pub struct ToolCatalog {
    entries: Entries<'static>,
    names: Names,
    ranker: Ranker,
    /// doc slot -> entry position of the tool that (last) indexed it
    slot_entry: Vec<u32>,
}

/// Entry positions by key and by id.
#[derive(Debug, Clone, Default)]
struct Names {
    /// key -> position (the last, should keys repeat)
    key_pos: StrIndex,
    /// id -> first position with that id; when keys are unique, without the entries whose id
    /// is their own key (the common case: found through `key_pos`, half the memory)
    first_id_pos: StrIndex,
    ids_via_keys: bool,
}

/// JavaScript array-index keys (`"0"`, `"42"`, not `"01"`) enumerate first, ascending.
pub fn is_array_index(key: &str) -> bool {
    if key.is_empty() || key.len() > 10 || !key.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if key.len() > 1 && key.starts_with('0') {
        return false;
    }
    key.parse::<u64>().is_ok_and(|n| n < u64::from(u32::MAX))
}

/// Reusable buffers for tokenizing many documents.
#[derive(Default)]
struct Scratch {
    lower: String,
    terms: Vec<u32>,
}

/// Appends the document of `name` + `description` to `set`.
fn push_document(set: &mut DocSet, vocab: &mut Vocab, scratch: &mut Scratch, name: &str, description: &str) {
    // The reference indexes `${name} ${description}`; the space separates, so the two
    // parts tokenize independently.
    let Scratch { lower, terms } = scratch;
    terms.clear();
    for_each_compat_token_with(name, lower, |t| terms.push(vocab.intern(t)));
    for_each_compat_token_with(description, lower, |t| terms.push(vocab.intern(t)));
    set.push_terms(terms);
}

/// `text.to_lowercase()`, borrowing when there is nothing to lower (tool names mostly).
fn lowercase(text: &str) -> std::borrow::Cow<'_, str> {
    if text.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(text.to_lowercase())
    }
}

/// The set of adjacent byte pairs of `text`, hashed into 256 bits: a string can only
/// contain another whose pairs it has, so most name boosts skip the substring search.
fn byte_pairs(text: &str) -> [u64; 4] {
    let mut set = [0u64; 4];
    for w in text.as_bytes().windows(2) {
        let h = (usize::from(w[0]).wrapping_mul(31) + usize::from(w[1])) & 255;
        set[h / 64] |= 1 << (h % 64);
    }
    set
}

/// Whether every pair of `part` is in `whole`.
fn covers(whole: &[u64; 4], part: &[u64; 4]) -> bool {
    whole.iter().zip(part).all(|(w, p)| p & !w == 0)
}

/// How a catalog ranks: exactly like `@mastra/core` 1.59.0, or the enhanced analysis.
#[derive(Debug)]
enum Ranker {
    Compatible { vocab: Arc<Vocab>, index: Box<Bm25Index> },
    Enhanced(Box<EnhancedIndex>),
    /// Enhanced ranking fused with the static embedding model's (see [`crate::semantic`]).
    Hybrid(Box<HybridRanker>),
}

/// Entry positions by a string field (key or id) without copying the strings: 64-bit hash
/// -> position, verified against the entry; a different string with the same hash (in
/// practice never) goes to an exact map.
#[derive(Debug, Clone, Default)]
struct StrIndex {
    by_hash: HashMap<u64, u32>,
    collided: HashMap<String, u32>,
}

impl StrIndex {
    fn with_capacity(capacity: usize) -> Self {
        Self { by_hash: HashMap::with_capacity_and_hasher(capacity, Default::default()), collided: HashMap::default() }
    }

    fn hash(s: &str) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        s.hash(&mut h);
        h.finish()
    }

    /// Records `pos` for `s`; with `replace`, a later position wins, else the first stays.
    /// Returns whether `s` was there already.
    fn insert<'a>(&mut self, s: &str, pos: u32, field: impl Fn(u32) -> &'a str, replace: bool) -> bool {
        use std::collections::hash_map::Entry as Slot;
        match self.by_hash.entry(Self::hash(s)) {
            Slot::Vacant(v) => {
                v.insert(pos);
                false
            }
            Slot::Occupied(mut o) => {
                if field(*o.get()) == s {
                    if replace {
                        o.insert(pos);
                    }
                    true
                } else {
                    match self.collided.entry(s.to_owned()) {
                        Slot::Occupied(mut c) => {
                            if replace {
                                c.insert(pos);
                            }
                            true
                        }
                        Slot::Vacant(c) => {
                            c.insert(pos);
                            false
                        }
                    }
                }
            }
        }
    }

    fn get<'a>(&self, s: &str, field: impl Fn(u32) -> &'a str) -> Option<u32> {
        let pos = *self.by_hash.get(&Self::hash(s))?;
        if field(pos) == s {
            Some(pos)
        } else {
            self.collided.get(s).copied()
        }
    }
}

/// `score > min`, with NaN on either side counting as not above (as in JavaScript).
fn above(score: f64, min: f64) -> bool {
    score.partial_cmp(&min) == Some(std::cmp::Ordering::Greater)
}

/// Why a static catalog cannot resolve names unambiguously. The messages use the wording
/// of newer upstream Mastra, which rejects the same catalogs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogError {
    ReservedName { key: String, name: String },
    DuplicateName { name: String },
    KeyConflict { key: String, owner: String },
}

impl std::fmt::Display for CatalogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::ReservedName { key, name } => write!(
                f,
                "ToolSearchProcessor tool key and callable name must not use reserved meta-tool names: key=\"{key}\", name=\"{name}\"."
            ),
            Self::DuplicateName { name } => write!(
                f,
                "ToolSearchProcessor requires unique tool ids/callable names; duplicate name \"{name}\" was provided."
            ),
            Self::KeyConflict { key, owner } => write!(
                f,
                "ToolSearchProcessor tool key \"{key}\" conflicts with the callable name of tool key \"{owner}\". Tool keys and callable names must resolve unambiguously."
            ),
        }
    }
}

impl std::error::Error for CatalogError {}

/// A catalog whose names passed [`ToolCatalog::check_joined`], ready to build.
#[derive(Debug)]
pub struct CheckedCatalog {
    entries: Entries<'static>,
    enhanced: bool,
}

impl CheckedCatalog {
    /// Number of tools.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.len() == 0
    }
}

/// Why [`ToolCatalog::build_joined`] failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// The joined text does not split into the given number of tools.
    Joined(JoinedError),
    /// The tools' names are ambiguous.
    Catalog(CatalogError),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Joined(e) => e.fmt(f),
            Self::Catalog(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BuildError {}

/// Catalogs at least this large tokenize on two threads: tokenizing and interning is most
/// of a build, and a thread costs tens of microseconds to start.
const PARALLEL_MIN_DOCS: usize = 4096;

/// The live entries' documents, in entry order (= slot order).
fn tokenize_range(entries: &Entries<'_>, range: std::ops::Range<usize>, live: &[bool]) -> (Vocab, DocSet) {
    let mut vocab = Vocab::with_capacity(range.len());
    let mut scratch = Scratch::default();
    let mut set = DocSet::default();
    for pos in range.filter(|&pos| live[pos]) {
        let e = entries.get(pos);
        push_document(&mut set, &mut vocab, &mut scratch, e.name(), e.description);
    }
    (vocab, set)
}

/// Tokenizes the two halves of a catalog on two threads, then folds the second half's
/// vocabulary into the first's and renumbers its documents. Term numbering differs from a
/// single-threaded build, which is unobservable: scores and order depend on documents and
/// their positions, not on term ids.
fn tokenize_in_two(entries: &Entries<'_>, live: &[bool]) -> (Vocab, DocSet) {
    let (n, mid) = (entries.len(), entries.len() / 2);
    let (first, second) = std::thread::scope(|scope| {
        let second = std::thread::Builder::new().spawn_scoped(scope, || tokenize_range(entries, mid..n, live));
        (tokenize_range(entries, 0..mid, live), second.map(|handle| handle.join()))
    });
    let Ok(Ok((second_vocab, second_set))) = second else {
        // No thread could be started (or, impossibly, it panicked): finish on this thread.
        return tokenize_range(entries, 0..n, live);
    };
    let (mut vocab, mut set) = first;
    let remap = vocab.absorb(second_vocab);
    set.append_remapped(second_set, &remap);
    (vocab, set)
}

/// Whether a key equal to a different tool's callable name is an error. Every released
/// host (1.58–1.71) accepts it and resolves such a name key-first (id-first with a filter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyConflicts {
    Accept,
    Reject,
}

/// See [`ToolCatalog::check_unambiguous`].
fn check_entries(entries: &Entries<'_>, reserved: &[&str], key_conflicts: KeyConflicts) -> Result<(), CatalogError> {
    let mut owner_of_name: HashMap<&str, &str> = HashMap::with_capacity_and_hasher(entries.len(), Default::default());
    for pos in 0..entries.len() {
        let (key, name) = (entries.key(pos), entries.name(pos));
        if reserved.contains(&key) || reserved.contains(&name) {
            return Err(CatalogError::ReservedName { key: key.to_owned(), name: name.to_owned() });
        }
        if owner_of_name.insert(name, key).is_some() {
            return Err(CatalogError::DuplicateName { name: name.to_owned() });
        }
    }
    if key_conflicts == KeyConflicts::Accept {
        return Ok(());
    }
    for pos in 0..entries.len() {
        let key = entries.key(pos);
        if let Some(&owner) = owner_of_name.get(key) {
            if owner != key {
                return Err(CatalogError::KeyConflict { key: key.to_owned(), owner: owner.to_owned() });
            }
        }
    }
    Ok(())
}

/// Which entries end up indexed. The reference re-adds a repeated name, removing the older
/// document and appending the new one, so the live documents are the *last* entry of each
/// name, in entry order.
fn indexed_positions(entries: &Entries<'_>) -> Vec<bool> {
    let mut last: HashMap<&str, usize> = HashMap::with_capacity_and_hasher(entries.len(), Default::default());
    for pos in 0..entries.len() {
        last.insert(entries.name(pos), pos);
    }
    (0..entries.len()).map(|pos| last.get(entries.name(pos)) == Some(&pos)).collect()
}

impl ToolCatalog {
    /// Builds a catalog from entries in `Object.entries` order, ranking like the reference.
    pub fn build(entries: Vec<ToolEntry>) -> Self {
        Self::compatible(entries_of(&entries, None), None)
    }

    /// Builds a catalog with enhanced ranking; `params[i]` is entry i's parameter text.
    pub fn build_enhanced(entries: Vec<ToolEntry>, params: Vec<String>) -> Self {
        Self::enhanced(entries_of(&entries, Some(&params)))
    }

    /// Validates (see [`Self::check_unambiguous`]) and builds. Valid names are unique, so
    /// every entry is indexed and the duplicate-name pass is skipped. `params` selects
    /// enhanced ranking, as in [`Self::build_enhanced`].
    pub fn build_validated(entries: Vec<ToolEntry>, params: Option<Vec<String>>, reserved: &[&str]) -> Result<Self, CatalogError> {
        Self::build_validated_with(entries, params, reserved, KeyConflicts::Reject)
    }

    /// [`Self::build_validated`], with key/name conflicts accepted or rejected.
    pub fn build_validated_with(
        entries: Vec<ToolEntry>,
        params: Option<Vec<String>>,
        reserved: &[&str],
        key_conflicts: KeyConflicts,
    ) -> Result<Self, CatalogError> {
        Self::validated(entries_of(&entries, params.as_deref()), params.is_some(), reserved, key_conflicts)
    }

    /// Builds from a joined catalog — `key \0 id \0 description [\0 params] \0 key …`
    /// with `count` tools, an empty id meaning none, `params` present when `enhanced` —
    /// read in place: no string per tool is allocated. With `check`, validates as
    /// [`Self::build_validated_with`]; with `model`, ranks hybrid (`enhanced` must be set).
    pub fn build_joined(
        joined: &str,
        count: usize,
        enhanced: bool,
        check: Option<(&[&str], KeyConflicts)>,
        model: Option<Arc<StaticModel>>,
    ) -> Result<Self, BuildError> {
        let entries = Entries::from_joined(joined, count, enhanced).map_err(BuildError::Joined)?;
        let catalog = match check {
            Some((reserved, key_conflicts)) => Self::validated(entries, enhanced, reserved, key_conflicts).map_err(BuildError::Catalog)?,
            None if enhanced => Self::enhanced(entries),
            None => Self::compatible(entries, None),
        };
        Ok(catalog.with_model(model))
    }

    /// Checks [`Self::build_joined`]'s input (the same errors, first failure first) and
    /// keeps a copy of it, split into tools, for [`Self::build_checked`]: a server checks
    /// on its own thread, so a bad catalog throws from the constructor, then builds on
    /// another without checking again.
    pub fn check_joined(joined: &str, count: usize, enhanced: bool, reserved: &[&str], key_conflicts: KeyConflicts) -> Result<CheckedCatalog, BuildError> {
        let entries = Entries::from_joined(joined, count, enhanced).map_err(BuildError::Joined)?;
        check_entries(&entries, reserved, key_conflicts).map_err(BuildError::Catalog)?;
        Ok(CheckedCatalog { entries: entries.into_owned(), enhanced })
    }

    /// Builds a checked catalog; with `model`, ranking hybrid (the catalog must carry params).
    pub fn build_checked(checked: CheckedCatalog, model: Option<Arc<StaticModel>>) -> Self {
        Self::unique_names(checked.entries, checked.enhanced).with_model(model)
    }

    fn validated(entries: Entries<'_>, enhanced: bool, reserved: &[&str], key_conflicts: KeyConflicts) -> Result<Self, CatalogError> {
        check_entries(&entries, reserved, key_conflicts)?;
        Ok(Self::unique_names(entries, enhanced))
    }

    /// Builds entries whose names are known to be unique: every entry is indexed, so the
    /// duplicate-name pass is skipped.
    fn unique_names(entries: Entries<'_>, enhanced: bool) -> Self {
        let live = vec![true; entries.len()];
        if enhanced {
            Self::enhanced_with_live(entries, live)
        } else {
            Self::compatible_with_live(entries, None, live)
        }
    }

    /// This catalog, hybrid with `model` when one is given.
    fn with_model(self, model: Option<Arc<StaticModel>>) -> Self {
        match model {
            Some(model) => self.into_hybrid(model, None),
            None => self,
        }
    }

    /// Whether this catalog ranks with the enhanced analysis.
    pub fn is_enhanced(&self) -> bool {
        matches!(self.ranker, Ranker::Enhanced(_) | Ranker::Hybrid(_))
    }

    fn compatible(entries: Entries<'_>, base: Option<&ToolCatalog>) -> Self {
        let live = indexed_positions(&entries);
        Self::compatible_with_live(entries, base, live)
    }

    fn compatible_with_live(entries: Entries<'_>, base: Option<&ToolCatalog>, live: Vec<bool>) -> Self {
        let (base_vocab, base_index) = match base.map(|b| &b.ranker) {
            Some(Ranker::Compatible { vocab, index }) => (Some(vocab.clone()), Some(index)),
            _ => (None, None),
        };
        let (vocab, set) = if base_vocab.is_none() && entries.len() >= PARALLEL_MIN_DOCS {
            tokenize_in_two(&entries, &live)
        } else {
            let mut vocab = base_vocab.map_or_else(|| Vocab::with_capacity(entries.len()), Vocab::extending);
            let mut scratch = Scratch::default();
            let mut set = DocSet::default();
            for (e, _) in entries.iter().zip(&live).filter(|(_, &live)| live) {
                match e.slot.zip(base_index).and_then(|(s, index)| index.doc(s)) {
                    // an unchanged base document is reused, not re-tokenized
                    Some(doc) => set.push(&doc),
                    None => push_document(&mut set, &mut vocab, &mut scratch, e.name(), e.description),
                }
            }
            (vocab, set)
        };
        let vocab = Arc::new(vocab);
        let vocab_len = vocab.len();
        let marks: Vec<Option<()>> = live.iter().map(|&l| l.then_some(())).collect();
        let names_and_entries = move || {
            let (entries, names, slot_entry, _) = Self::lookups(entries, marks);
            // An indexed entry's text lives on as its document (overlays reuse that, never
            // the text), so its description is dropped; unindexed entries keep theirs,
            // since an overlay may index them.
            (entries.compacted(|e| e.slot.is_none()), names, slot_entry)
        };
        // (a large catalog's index and name maps are built on two threads: neither needs
        // the other)
        let ((entries, names, slot_entry), index) = if set.len() >= PARALLEL_MIN_DOCS {
            // (the documents wait here for the one thread that builds the index: the spawned
            // one, or this one if none could be started)
            let docs = std::sync::Mutex::new(Some(set));
            let index_here = || {
                let set = docs.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
                Bm25Index::from_set(set.expect("the documents are taken once"), vocab_len)
            };
            std::thread::scope(|scope| {
                let spawned = std::thread::Builder::new().spawn_scoped(scope, index_here);
                let named = names_and_entries();
                match spawned.map(|handle| handle.join()) {
                    Ok(Ok(index)) => (named, index),
                    Ok(Err(panic)) => std::panic::resume_unwind(panic),
                    Err(_) => (named, index_here()),
                }
            })
        } else {
            (names_and_entries(), Bm25Index::from_set(set, vocab_len))
        };
        Self { entries, names, ranker: Ranker::Compatible { vocab, index: Box::new(index) }, slot_entry }
    }

    fn enhanced(entries: Entries<'_>) -> Self {
        let live = indexed_positions(&entries);
        Self::enhanced_with_live(entries, live)
    }

    fn enhanced_with_live(entries: Entries<'_>, live: Vec<bool>) -> Self {
        let (entries, names, slot_entry, docs) = Self::lookups(entries, live.iter().map(|&l| l.then_some(())).collect());
        let field_docs: Vec<FieldDoc> = docs
            .iter()
            .zip(&slot_entry)
            .map(|(_, &pos)| {
                let e = entries.get(pos as usize);
                let mut fields = vec![(Field::Name, e.name().to_owned()), (Field::Description, e.description.to_owned())];
                if !e.params.is_empty() {
                    fields.push((Field::Params, e.params.to_owned()));
                }
                FieldDoc::new(fields)
            })
            .collect();
        let index = EnhancedIndex::build(&field_docs);
        let entries = entries.into_owned();
        Self { entries, names, ranker: Ranker::Enhanced(Box::new(index)), slot_entry }
    }

    /// The catalog of `{ ...base.tools, ...resolved }`: a resolved key replaces the base
    /// entry in place; new keys are appended (array-index keys sort to the front, as
    /// JavaScript enumerates them). Base documents are not re-tokenized.
    pub fn overlay(base: &ToolCatalog, resolved: Vec<ToolEntry>, resolved_params: Option<Vec<String>>) -> Self {
        let mut entries = base.entries.clone();
        let mut key_pos = base.names.key_pos.clone();
        let mut appended_index_keys = false;
        let params = resolved_params.unwrap_or_default();
        for (i, entry) in resolved.iter().enumerate() {
            let tool = entry.tool_ref(params.get(i).map_or("", String::as_str));
            match key_pos.get(tool.key, |p| entries.key(p as usize)) {
                Some(pos) => entries.replace(pos as usize, tool),
                None => {
                    appended_index_keys |= is_array_index(tool.key);
                    let pos = entries.len() as u32;
                    entries.push(tool, true);
                    key_pos.insert(tool.key, pos, |p| entries.key(p as usize), true);
                }
            }
        }
        if appended_index_keys {
            // Stable: array-index keys first by numeric value, the rest keep their order.
            entries.sort_by_key(|e| if is_array_index(e.key) { e.key.parse::<u64>().unwrap_or(0) } else { u64::MAX });
        }
        if let Ranker::Hybrid(hybrid) = &base.ranker {
            return Self::hybrid_overlay(base, hybrid, entries);
        }
        if base.is_enhanced() {
            Self::enhanced(entries)
        } else {
            Self::compatible(entries, Some(base))
        }
    }

    /// Key and id lookups plus the live documents: `docs[i]` is `Some` exactly for the
    /// entries whose document is indexed; their payloads come back in slot order.
    #[allow(clippy::type_complexity)]
    fn lookups<'t, T>(
        mut entries: Entries<'t>,
        docs: Vec<Option<T>>,
    ) -> (Entries<'t>, Names, Vec<u32>, Vec<T>) {
        let mut key_pos = StrIndex::with_capacity(entries.len());
        let mut first_id_pos = StrIndex::default();
        let mut slot_entry = Vec::with_capacity(entries.len());
        let mut live = Vec::with_capacity(entries.len());
        for (pos, doc) in docs.into_iter().enumerate() {
            entries.set_slot(pos, doc.as_ref().map(|_| live.len() as u32));
            if let Some(doc) = doc {
                slot_entry.push(pos as u32);
                live.push(doc);
            }
        }
        let key_of = |p: u32| entries.key(p as usize);
        let id_of = |p: u32| entries.id(p as usize).unwrap_or("");
        let mut unique_keys = true;
        for pos in 0..entries.len() {
            let key = entries.key(pos);
            unique_keys &= !key_pos.insert(key, pos as u32, key_of, true);
        }
        for pos in 0..entries.len() {
            if let Some(id) = entries.id(pos) {
                if !(unique_keys && id == entries.key(pos)) {
                    first_id_pos.insert(id, pos as u32, id_of, false);
                }
            }
        }
        (entries, Names { key_pos, first_id_pos, ids_via_keys: unique_keys }, slot_entry, live)
    }

    /// Rejects catalogs whose names are ambiguous: a key or name in `reserved`, two tools
    /// with one callable name (`id || key`), or a key that is another tool's callable name.
    pub fn check_unambiguous(&self, reserved: &[&str]) -> Result<(), CatalogError> {
        check_entries(&self.entries, reserved, KeyConflicts::Reject)
    }

    /// The catalog as `injectCatalog` lists it: one row per key in key order (the
    /// reference walks `Object.keys(catalog.tools)`), each with the tool that key resolves
    /// to (as [`Self::resolve`]), and the tool whose description the reference prints
    /// for that tool's name (`descriptions.get(tool.id || key)`: the last tool indexed
    /// under the name; `None` when no document carries it).
    pub fn listing(&self, prefer_id: bool) -> Vec<ListingRow> {
        let mut doc_of_name: HashMap<&str, u32> = HashMap::with_capacity_and_hasher(self.slot_entry.len(), Default::default());
        for &pos in &self.slot_entry {
            let e = self.entries.get(pos as usize);
            doc_of_name.insert(e.name(), e.handle);
        }
        let entry_of_handle: HashMap<u32, Entry<'_>> = self.entries.iter().map(|e| (e.handle, e)).collect();
        self.entries
            .iter()
            .map(|e| {
                let tool = self.resolve(e.key, prefer_id).unwrap_or(e.handle);
                let name = entry_of_handle.get(&tool).and_then(|t| t.id).unwrap_or(e.key);
                ListingRow { key_handle: e.handle, tool_handle: tool, doc_handle: doc_of_name.get(name).copied() }
            })
            .collect()
    }

    /// Number of entries (tools).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.len() == 0
    }

    /// Handle of the tool stored under a record key.
    pub fn by_key(&self, key: &str) -> Option<u32> {
        self.names.key_pos.get(key, |p| self.entries.key(p as usize)).map(|p| self.entries.handle(p as usize))
    }

    /// Handle of the first tool (in entry order) whose id is `id`.
    pub fn by_id(&self, id: &str) -> Option<u32> {
        let names = &self.names;
        let listed = names.first_id_pos.get(id, |p| self.entries.id(p as usize).unwrap_or(""));
        let own = if names.ids_via_keys {
            // the tool keyed `id` whose id is its key
            names.key_pos.get(id, |p| self.entries.key(p as usize)).filter(|&p| self.entries.id(p as usize) == Some(id))
        } else {
            None
        };
        let first = match (listed, own) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        first.map(|p| self.entries.handle(p as usize))
    }

    /// The reference's name resolution for load/active: key first without a filter,
    /// id first with one.
    pub fn resolve(&self, name: &str, prefer_id: bool) -> Option<u32> {
        if prefer_id {
            self.by_id(name).or_else(|| self.by_key(name))
        } else {
            self.by_key(name).or_else(|| self.by_id(name))
        }
    }

    /// Record keys (in key order) that contain, or are contained in, `requested`,
    /// case-insensitively: the candidates for "Did you mean".
    pub fn suggestion_keys(&self, requested: &str) -> Vec<&str> {
        if self.is_enhanced() {
            // Ranked by closeness (edit distance, shared words, substring), best first.
            let keys: Vec<&str> = self.entries.iter().map(|e| e.key).collect();
            return enhanced::suggest(requested, &keys, keys.len()).into_iter().map(|i| keys[i as usize]).collect();
        }
        let wanted = requested.to_lowercase();
        self.entries
            .iter()
            .filter(|e| {
                let key = e.key.to_lowercase();
                key.contains(&wanted) || wanted.contains(&key)
            })
            .map(|e| e.key)
            .collect()
    }

    /// BM25 + name boost + minScore + id resolution, in the reference's order.
    /// Without `inspect_all` at most `top_k` hits come back; with it, every candidate does.
    /// Heap bytes held, by part (capacities, not allocator overhead), for memory reports.
    #[doc(hidden)]
    pub fn heap_parts(&self) -> Vec<(&'static str, usize)> {
        let mut parts = vec![
            ("entries", self.entries.heap_bytes()),
            ("name maps", (self.names.key_pos.by_hash.capacity() + self.names.first_id_pos.by_hash.capacity()) * 13),
            ("slot_entry", self.slot_entry.capacity() * 4),
        ];
        if let Ranker::Compatible { vocab, index } = &self.ranker {
            parts.push(("vocab", vocab.heap_bytes()));
            parts.extend(index.heap_parts());
        }
        parts
    }

    pub fn search(&self, query: &str, params: SearchParams) -> Vec<Hit> {
        // No search returns more hits than there are tools: a larger `top_k` (up to
        // u32::MAX from JS) means the same and must not size the rankers' buffers.
        let params = SearchParams { top_k: params.top_k.min(self.len()), ..params };
        match &self.ranker {
            Ranker::Compatible { vocab, index } => self.search_compatible(vocab, index, query, params, true),
            Ranker::Enhanced(index) => self.search_enhanced(index, query, params),
            Ranker::Hybrid(hybrid) => self.search_hybrid(hybrid, query, params),
        }
    }

    /// [`Self::search`] scoring every matching document (no dynamic pruning, no top-k
    /// shortcut): the reference the fast paths are tested against.
    #[doc(hidden)]
    pub fn search_exhaustive(&self, query: &str, params: SearchParams) -> Vec<Hit> {
        match &self.ranker {
            Ranker::Compatible { vocab, index } => self.search_compatible(vocab, index, query, params, false),
            Ranker::Enhanced(index) => self.hits_from(index.search(query), params),
            Ranker::Hybrid(hybrid) => self.search_hybrid(hybrid, query, params),
        }
    }

    /// Enhanced ranking; minScore applies to the enhanced score, and search still returns
    /// only tools whose id is their name, as in compatible mode.
    fn search_enhanced(&self, index: &EnhancedIndex, query: &str, params: SearchParams) -> Vec<Hit> {
        let walk = |ranked: &[(u32, f64)]| self.hits_from(ranked.iter().copied(), params);
        if params.inspect_all {
            return walk(&index.search(query));
        }
        if params.top_k == 0 {
            return Vec::new();
        }
        let top = index.search_top(query, params.top_k);
        let hits = walk(&top);
        // Skipped candidates (minScore, id-less tools) may leave room for lower-ranked ones.
        if hits.len() < params.top_k && top.len() == params.top_k {
            return walk(&index.search(query));
        }
        hits
    }

    fn search_compatible(&self, vocab: &Vocab, index: &Bm25Index, query: &str, params: SearchParams, prune: bool) -> Vec<Hit> {
        if index.is_empty() {
            return Vec::new();
        }
        // The tokens, one after another in one string (no allocation per token).
        let (mut text, mut ends) = (String::with_capacity(query.len()), Vec::new());
        for_each_compat_token(query, |t| {
            text.push_str(t);
            ends.push(text.len());
        });
        if ends.is_empty() {
            return Vec::new();
        }
        let tokens: Vec<&str> = ends.iter().scan(0, |from, &end| Some(&text[std::mem::replace(from, end)..end])).collect();
        let terms: Vec<Option<u32>> = tokens.iter().map(|t| vocab.get(t)).collect();
        let limit = if params.inspect_all { index.len() } else { params.top_k.saturating_mul(2) };
        // The reference cuts at `topK * 2` before boosting; that cut is exactly the pruned
        // top (same documents, order and scores), so only a filter needs every match.
        let mut boosted = if prune && !params.inspect_all {
            index.score_top(&terms, limit)
        } else {
            top_by_score(index.score(&terms), limit)
        };
        let token_pairs: Vec<[u64; 4]> = tokens.iter().map(|t| byte_pairs(t)).collect();
        // The hits' names, gathered (and their first bytes read) before any is used: the
        // loads are independent, so their cache misses overlap instead of queueing.
        let names: Vec<&str> = boosted.iter().map(|hit| self.entries.name(self.slot_entry[hit.slot as usize] as usize)).collect();
        std::hint::black_box(names.iter().fold(0u8, |acc, name| acc ^ name.as_bytes().first().copied().unwrap_or(0)));
        for (hit, name) in boosted.iter_mut().zip(names) {
            let name = lowercase(name);
            let name_pairs = byte_pairs(&name);
            for (token, pairs) in tokens.iter().zip(&token_pairs) {
                if *name == **token {
                    hit.score += 5.0;
                } else if covers(&name_pairs, pairs) && name.contains(token) {
                    hit.score += 2.0;
                }
            }
        }
        boosted.sort_by(|a, b| b.score.total_cmp(&a.score));

        self.hits_from(boosted.into_iter().map(|s| (s.slot, s.score)), params)
    }

    /// Ranked `(slot, score)` pairs as hits, in order: scores above `minScore`, documents
    /// whose name is some tool's *id* (id-less tools never match, as in the reference), at
    /// most `top_k` of them unless `inspect_all`.
    fn hits_from(&self, ranked: impl IntoIterator<Item = (u32, f64)>, params: SearchParams) -> Vec<Hit> {
        self.slotted_hits_from(ranked, params).into_iter().map(|(hit, _)| hit).collect()
    }

    /// [`Self::hits_from`], each hit with its slot.
    fn slotted_hits_from(&self, ranked: impl IntoIterator<Item = (u32, f64)>, params: SearchParams) -> Vec<(Hit, u32)> {
        let mut hits = Vec::new();
        for (slot, score) in ranked {
            if !above(score, params.min_score) {
                continue;
            }
            let pos = self.slot_entry[slot as usize] as usize;
            let Some(handle) = self.by_id(self.entries.name(pos)) else { continue };
            hits.push((Hit { handle, doc_handle: self.entries.handle(pos), score }, slot));
            if !params.inspect_all && hits.len() >= params.top_k {
                break;
            }
        }
        hits
    }
}

/// Hybrid ranking state: the enhanced index, the documents' vectors (row = slot) and the
/// fusion knobs.
#[derive(Debug)]
pub struct HybridRanker {
    lexical: EnhancedIndex,
    semantic: SemanticDocs,
    fusion: Fusion,
}

// Hybrid search (opt-in): enhanced ranking fused with a static embedding model's.
impl ToolCatalog {
    /// Builds a catalog with hybrid ranking: enhanced, plus each indexed tool's
    /// `name + description` embedded with `model`.
    pub fn build_hybrid(entries: Vec<ToolEntry>, params: Vec<String>, model: Arc<StaticModel>) -> Self {
        Self::build_enhanced(entries, params).into_hybrid(model, None)
    }

    /// [`Self::build_validated_with`] with hybrid ranking.
    pub fn build_validated_hybrid(
        entries: Vec<ToolEntry>,
        params: Vec<String>,
        model: Arc<StaticModel>,
        reserved: &[&str],
        key_conflicts: KeyConflicts,
    ) -> Result<Self, CatalogError> {
        Ok(Self::build_validated_with(entries, Some(params), reserved, key_conflicts)?.into_hybrid(model, None))
    }

    /// Whether this catalog ranks with the hybrid (lexical + semantic) search.
    pub fn is_hybrid(&self) -> bool {
        matches!(self.ranker, Ranker::Hybrid(_))
    }

    /// Overrides the fusion knobs (quality tuning).
    #[doc(hidden)]
    pub fn set_fusion(&mut self, fusion: Fusion) {
        if let Ranker::Hybrid(h) = &mut self.ranker {
            h.fusion = fusion;
        }
    }

    /// An enhanced catalog turned hybrid. Documents whose name and description equal one
    /// of `base`'s keep its vector instead of being embedded again.
    fn into_hybrid(mut self, model: Arc<StaticModel>, base: Option<(&ToolCatalog, &HybridRanker)>) -> Self {
        let Ranker::Enhanced(lexical) = std::mem::replace(&mut self.ranker, Ranker::Enhanced(Box::default())) else {
            return self;
        };
        let mut base_rows: HashMap<(&str, &str), usize> = HashMap::default();
        if let Some((base, hybrid)) = base.filter(|(_, h)| h.semantic.model.as_ref().is_some_and(|m| Arc::ptr_eq(m, &model))) {
            for (slot, &pos) in base.slot_entry.iter().enumerate() {
                let e = base.entries.get(pos as usize);
                if slot < hybrid.semantic.vectors.len() {
                    base_rows.insert((e.name(), e.description), slot);
                }
            }
        }
        // Per slot: the base row to reuse, or the text to embed (all embedded in one batch).
        let reuse: Vec<Option<usize>> = self
            .slot_entry
            .iter()
            .map(|&pos| {
                let e = self.entries.get(pos as usize);
                base_rows.get(&(e.name(), e.description)).copied()
            })
            .collect();
        let texts: Vec<String> = self
            .slot_entry
            .iter()
            .zip(&reuse)
            .filter(|(_, r)| r.is_none())
            .map(|(&pos, _)| {
                let e = self.entries.get(pos as usize);
                semantic::tool_text(e.name(), e.description)
            })
            .collect();
        let embedded = DocVectors::build_many(&model, &texts);
        let vectors = match base {
            Some((_, hybrid)) if texts.len() < reuse.len() => {
                let mut vectors = DocVectors::new(model.dim());
                let mut next = 0;
                for r in &reuse {
                    match r {
                        Some(slot) => vectors.push_row_of(&hybrid.semantic.vectors, *slot),
                        None => {
                            vectors.push_row_of(&embedded, next);
                            next += 1;
                        }
                    }
                }
                vectors
            }
            _ => embedded,
        };
        let semantic = SemanticDocs::new(model, vectors, self.slot_scripts());
        self.ranker = Ranker::Hybrid(Box::new(HybridRanker { lexical: *lexical, semantic, fusion: Fusion::default() }));
        self
    }

    fn hybrid_overlay(base: &ToolCatalog, hybrid: &HybridRanker, entries: Entries<'_>) -> Self {
        // (a hybrid ranker's documents always come from a model: see `into_hybrid`)
        let Some(model) = hybrid.semantic.model.clone() else { return Self::enhanced(entries) };
        let mut catalog = Self::enhanced(entries).into_hybrid(model, Some((base, hybrid)));
        catalog.set_fusion(hybrid.fusion);
        catalog
    }

    /// Fused ranking (see [`crate::semantic::fusion`]): `score` is the fused score in
    /// (0, 1]; `minScore` applies to it; only tools whose id is their name are returned.
    fn search_hybrid(&self, hybrid: &HybridRanker, query: &str, params: SearchParams) -> Vec<Hit> {
        self.fused_hits(&hybrid.lexical, Some(&hybrid.semantic), hybrid.fusion, query, params, None).hits.into_iter().map(|(hit, _)| hit).collect()
    }

    /// Fused hits with their slots, and the lexical candidates fused: `lexical` fused with
    /// `over`'s semantic side (a user's embedder) when given, else with `semantic`'s.
    fn fused_hits(
        &self,
        lexical: &EnhancedIndex,
        semantic: Option<&SemanticDocs>,
        fusion: Fusion,
        query: &str,
        params: SearchParams,
        over: Option<Override<'_>>,
    ) -> Fused {
        if params.top_k == 0 && !params.inspect_all {
            return Fused { hits: Vec::new(), lexical: Vec::new(), embedded: None };
        }
        // A user's embedder takes its own semantic weights (its cosines are not the shipped model's).
        let fusion = &match over {
            Some(Override { weights: Some(knobs), .. }) => knobs.apply(fusion),
            _ => fusion,
        };
        let lexical_depth = if params.inspect_all { usize::MAX } else { fusion.lexical_depth.max(params.top_k) };
        let lexical = lexical.search_top(query, lexical_depth);
        let depth = fusion.semantic_depth.max(params.top_k);
        let mut embedded = None;
        let (ranked, cjk) = match (over, semantic) {
            (Some(Override { docs, query_vector, .. }), _) => (docs.top_for_vector(query, query_vector, depth, fusion), &docs.cjk),
            (None, Some(docs)) => {
                embedded = docs.embed(query);
                (docs.top_embedded(embedded.as_ref(), query, depth, fusion), &docs.cjk)
            }
            (None, None) => (Vec::new(), &Vec::new()),
        };
        let hits = self.slotted_hits_from(fusion.fuse(query, &lexical, &ranked, cjk), params);
        Fused { hits, lexical, embedded }
    }

    /// The text each document's vector embeds, in slot order (what a user's embedder embeds
    /// for [`Self::semantic_override`]): hybrid and enhanced catalogs; empty for compatible.
    pub fn semantic_texts(&self) -> Vec<String> {
        if matches!(self.ranker, Ranker::Compatible { .. }) {
            return Vec::new();
        }
        self.slot_entry
            .iter()
            .map(|&pos| {
                let e = self.entries.get(pos as usize);
                semantic::tool_text(e.name(), e.description)
            })
            .collect()
    }

    /// Each slot's script (see [`semantic::tool_script`]), in slot order.
    fn slot_scripts(&self) -> Vec<semantic::Script> {
        self.slot_entry
            .iter()
            .map(|&pos| {
                let e = self.entries.get(pos as usize);
                semantic::tool_script(e.name(), e.description)
            })
            .collect()
    }

    /// This catalog's documents with a user's vectors (`rows`: one per
    /// [`Self::semantic_texts`] text, `dim` each): hybrid catalogs keep their model beside them,
    /// enhanced ones get the vectors alone. None for compatible catalogs or rows that do not fit.
    pub fn semantic_override(&self, rows: &[f32], dim: usize) -> Option<SemanticDocs> {
        match &self.ranker {
            Ranker::Hybrid(hybrid) => hybrid.semantic.with_rows(rows, dim),
            Ranker::Enhanced(_) => SemanticDocs::from_rows(rows, dim, self.slot_scripts()),
            Ranker::Compatible { .. } => None,
        }
    }

    /// [`Self::search`] with the semantic side from `over` when given: a hybrid catalog's
    /// fusion with the user's vectors in place of the model's, an enhanced catalog's ranking
    /// fused with them (the default fusion); compatible catalogs ignore it.
    pub fn search_with(&self, query: &str, params: SearchParams, over: Option<Override<'_>>) -> Vec<Hit> {
        let fused = match (&self.ranker, over) {
            (Ranker::Hybrid(hybrid), Some(_)) => self.fused_hits(&hybrid.lexical, Some(&hybrid.semantic), hybrid.fusion, query, params, over),
            (Ranker::Enhanced(index), Some(_)) => self.fused_hits(index, None, Fusion::default(), query, params, over),
            _ => return self.search(query, params),
        };
        fused.hits.into_iter().map(|(hit, _)| hit).collect()
    }

    /// [`Self::search_with`], each hit with its [`Evidence`] when this catalog is hybrid (the
    /// other rankers have only their score to show). The evidence is the shipped model's
    /// (lexical score, its plain cosine) whatever ranks the semantic side, so that preload's
    /// confidence reads what it was fitted on.
    pub fn search_with_evidence(&self, query: &str, params: SearchParams, over: Option<Override<'_>>) -> Vec<(Hit, Option<Evidence>)> {
        let Ranker::Hybrid(hybrid) = &self.ranker else {
            return self.search_with(query, params, over).into_iter().map(|hit| (hit, None)).collect();
        };
        let Fused { hits, lexical, embedded } = self.fused_hits(&hybrid.lexical, Some(&hybrid.semantic), hybrid.fusion, query, params, over);
        let slots: Vec<u32> = hits.iter().map(|(_, slot)| *slot).collect();
        // (the query's vector from the fusion when the shipped model ranked; a user's embedder
        // ranked otherwise, and the evidence is still the shipped model's)
        let embedded = embedded.or_else(|| hybrid.semantic.embed(query));
        let cosines = hybrid.semantic.plain_cosines_of(embedded.as_ref(), &slots);
        let lexical_scores: rustc_hash::FxHashMap<u32, f64> = lexical.iter().copied().collect();
        let lexical_of = |slot: u32| lexical_scores.get(&slot).copied().unwrap_or(0.0);
        hits.into_iter()
            .zip(cosines)
            .map(|((hit, slot), cosine)| (hit, Some(Evidence { lexical: lexical_of(slot), cosine: f64::from(cosine) })))
            .collect()
    }
}

/// What [`ToolCatalog::fused_hits`] found: the hits with their slots, the lexical ranking, and
/// the query's vector when the shipped model embedded it (preload's evidence reuses it).
struct Fused {
    hits: Vec<(Hit, u32)>,
    lexical: Vec<(u32, f64)>,
    embedded: Option<(Vec<f32>, crate::semantic::Script)>,
}

/// A user's embedder on the semantic side of a hybrid search: the catalog's documents with
/// its vectors ([`ToolCatalog::semantic_override`]) and the query's vector.
#[derive(Clone, Copy)]
pub struct Override<'a> {
    pub docs: &'a SemanticDocs,
    pub query_vector: &'a [f32],
    /// The fusion's knobs for it (weights and corrections, see [`crate::semantic::EmbedderFusion`]); None keeps the catalog's.
    pub weights: Option<crate::semantic::EmbedderFusion>,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn entry(handle: u32, key: &str, id: Option<&str>, description: &str) -> ToolEntry {
        ToolEntry { key: key.into(), id: id.map(Into::into), description: description.into(), handle }
    }

    const SIX: [(&str, &str); 6] = [
        ("github_create_issue", "Create a new issue on GitHub"),
        ("github_create_pr", "Create a pull request on GitHub"),
        ("linear_create_issue", "Create a new issue in Linear"),
        ("weather_forecast", "Get weather forecast for a location"),
        ("send_email", "Send an email message"),
        ("calendar_schedule", "Schedule a calendar event"),
    ];

    fn six_tools() -> ToolCatalog {
        ToolCatalog::build(SIX.iter().enumerate().map(|(i, (id, d))| entry(i as u32, id, Some(id), d)).collect())
    }

    fn params(top_k: usize) -> SearchParams {
        SearchParams { top_k, min_score: 0.0, inspect_all: false }
    }

    fn rounded(hits: &[Hit]) -> Vec<(u32, f64)> {
        hits.iter().map(|h| (h.handle, crate::jsmath::js_round2(h.score))).collect()
    }

    #[test]
    fn a_top_k_past_the_catalog_means_every_hit() {
        let c = six_tools();
        let all = rounded(&c.search("create", params(6)));
        for top_k in [7, u32::MAX as usize, usize::MAX] {
            assert_eq!(rounded(&c.search("create", params(top_k))), all, "{top_k}");
        }
    }

    #[test]
    fn spec_scores() {
        let c = six_tools();
        assert_eq!(rounded(&c.search("github issue", params(5))), [(0, 6.81), (1, 3.41), (2, 3.41)]);
        assert_eq!(rounded(&c.search("create", params(5))), [(0, 2.95), (1, 2.95), (2, 2.95)]);
        assert_eq!(rounded(&c.search("weather forecast", params(5))), [(3, 8.4)]);
        assert_eq!(rounded(&c.search("email", params(5))), [(4, 4.31)]);
        assert_eq!(rounded(&c.search("email email", params(5))), [(4, 8.61)]);
        assert!(c.search("database", params(5)).is_empty());
        assert!(c.search("", params(5)).is_empty());
        assert!(c.search("create", params(0)).is_empty());
    }

    #[test]
    fn min_score_is_strict() {
        let c = six_tools();
        let exact = c.search("email", params(5))[0].score;
        assert!(c.search("email", SearchParams { min_score: exact, ..params(5) }).is_empty());
        assert_eq!(c.search("email", SearchParams { min_score: exact - 1e-9, ..params(5) }).len(), 1);
    }

    #[test]
    fn boost_applies_after_the_cut() {
        // tool-search.md §6 case 30
        let long: Vec<String> = (0..30).map(|i| format!("w{i}")).collect();
        let c = ToolCatalog::build(vec![
            entry(0, "alpha", Some("alpha"), "data data data"),
            entry(1, "beta", Some("beta"), "data data data"),
            entry(2, "gamma", Some("gamma"), "data data data"),
            entry(3, "data_loader", Some("data_loader"), &format!("loads {}", long.join(" "))),
        ]);
        assert_eq!(rounded(&c.search("data", params(1))), [(0, 0.21)]);
        let all = c.search("data", SearchParams { inspect_all: true, ..params(1) });
        assert_eq!(rounded(&all[..1]), [(3, 2.06)]);
    }

    #[test]
    fn name_boost_and_partial_words() {
        let c = ToolCatalog::build(vec![
            entry(0, "weather", Some("weather"), "Get the weather"),
            entry(1, "forecast_at_sea", Some("forecast_at_sea"), "Marine weather forecast"),
        ]);
        assert_eq!(rounded(&c.search("weather", params(5))), [(0, 5.28), (1, 0.17)]);
        assert_eq!(rounded(&c.search("at weather", params(5))), [(0, 7.28), (1, 2.8)]);
        assert!(c.search("weath", params(5)).is_empty());
    }

    #[test]
    fn duplicate_ids_show_the_last_description_and_return_the_first_tool() {
        let c = ToolCatalog::build(vec![entry(0, "a", Some("same"), "first alpha"), entry(1, "b", Some("same"), "second beta")]);
        assert!(c.search("alpha", params(5)).is_empty());
        let hits = c.search("beta", params(5));
        assert_eq!(hits.len(), 1);
        assert_eq!((hits[0].handle, hits[0].doc_handle), (0, 1));
        assert_eq!(crate::jsmath::js_round2(hits[0].score), 0.29);
    }

    #[test]
    fn id_less_tools_are_indexed_but_never_returned() {
        let c = ToolCatalog::build(vec![entry(0, "client_invoice", None, "Create invoices")]);
        assert!(c.search("invoices", params(5)).is_empty());
        assert_eq!(c.resolve("client_invoice", false), Some(0));
    }

    #[test]
    fn resolution_order_depends_on_filter() {
        let c = ToolCatalog::build(vec![
            entry(0, "weather", Some("public_weather"), ""),
            entry(1, "private_weather", Some("weather"), ""),
        ]);
        assert_eq!(c.resolve("weather", false), Some(0));
        assert_eq!(c.resolve("weather", true), Some(1));
        assert_eq!(c.resolve("nope", true), None);
    }

    #[test]
    fn suggestions_match_substrings_both_ways() {
        let c = ToolCatalog::build(vec![
            entry(0, "weather", Some("weather_tool_id"), ""),
            entry(1, "weather_alerts", Some("weather_alerts"), ""),
            entry(2, "calendar", Some("calendar"), ""),
        ]);
        assert_eq!(c.suggestion_keys("WEATH"), ["weather", "weather_alerts"]);
        assert_eq!(c.suggestion_keys("calendar_x"), ["calendar"]);
    }

    #[test]
    fn overlay_replaces_in_place_and_appends() {
        let base = ToolCatalog::build(vec![entry(0, "weather", Some("weather"), "Get weather"), entry(1, "mail", Some("mail"), "Send mail")]);
        let o = ToolCatalog::overlay(
            &base,
            vec![entry(2, "weather", Some("weather"), "Resolved weather"), entry(3, "mcp_issue", Some("mcp_issue"), "github issue")],
            None,
        );
        assert_eq!(o.len(), 3);
        assert_eq!(o.by_key("weather"), Some(2));
        assert_eq!(o.search("github", params(5))[0].handle, 3);
        assert_eq!(o.search("resolved", params(5))[0].handle, 2);
        assert!(o.search("get", params(5)).is_empty());
        // the base is untouched
        assert_eq!(base.by_key("weather"), Some(0));
        assert!(base.search("github", params(5)).is_empty());
        let built = ToolCatalog::build(vec![
            entry(2, "weather", Some("weather"), "Resolved weather"),
            entry(1, "mail", Some("mail"), "Send mail"),
            entry(3, "mcp_issue", Some("mcp_issue"), "github issue"),
        ]);
        for q in ["weather", "github issue", "send mail weather"] {
            assert_eq!(o.search(q, params(5)), built.search(q, params(5)));
        }
    }

    fn enhanced(tools: &[(&str, &str, &str)]) -> ToolCatalog {
        let entries = tools.iter().enumerate().map(|(i, (id, d, _))| entry(i as u32, id, Some(id), d)).collect();
        ToolCatalog::build_enhanced(entries, tools.iter().map(|(_, _, p)| p.to_string()).collect())
    }

    #[test]
    fn enhanced_mode_finds_word_forms_identifiers_and_parameters() {
        let c = enhanced(&[
            ("send_email", "Send a message to a recipient", "to: recipient address\nsubject: subject line"),
            ("createIssue", "Open a ticket in the tracker", ""),
            ("weather_forecast", "天氣預報 weather for a city", "city: name of the city"),
        ]);
        assert!(c.is_enhanced());
        assert_eq!(c.search("emails", params(5))[0].handle, 0);
        assert_eq!(c.search("create issue", params(5))[0].handle, 1);
        assert_eq!(c.search("subject line", params(5))[0].handle, 0);
        assert_eq!(c.search("天气预报", params(5))[0].handle, 2);
        // compatible mode finds none of these
        let compat = ToolCatalog::build(vec![
            entry(0, "send_email", Some("send_email"), "Send a message to a recipient"),
            entry(1, "createIssue", Some("createIssue"), "Open a ticket in the tracker"),
            entry(2, "weather_forecast", Some("weather_forecast"), "天氣預報 weather for a city"),
        ]);
        assert!(compat.search("emails", params(5)).is_empty());
        assert!(compat.search("天气预报", params(5)).is_empty());
    }

    #[test]
    fn enhanced_mode_respects_top_k_min_score_and_id_less_tools() {
        let c = enhanced(&[("a_tool", "shared words here", ""), ("b_tool", "shared words too", ""), ("c_tool", "shared", "")]);
        assert_eq!(c.search("shared", params(2)).len(), 2);
        assert!(c.search("shared", params(0)).is_empty());
        let all = c.search("shared", SearchParams { inspect_all: true, ..params(1) });
        assert_eq!(all.len(), 3);
        let high = all[0].score;
        assert!(c.search("shared", SearchParams { min_score: high, ..params(5) }).iter().all(|h| h.score > high));
        // an id-less tool ranks first but is skipped; the next ones still fill topK
        let mut entries = vec![entry(0, "client", None, "shared shared shared")];
        entries.push(entry(1, "b_tool", Some("b_tool"), "shared words"));
        entries.push(entry(2, "c_tool", Some("c_tool"), "shared other words"));
        let c = ToolCatalog::build_enhanced(entries, vec![]);
        assert_eq!(c.search("shared", params(1)).len(), 1);
        assert_eq!(c.search("shared", params(1))[0].handle, 1);
    }

    #[test]
    fn enhanced_suggestions_rank_by_closeness_and_overlay_stays_enhanced() {
        let c = enhanced(&[("calendar_events", "", ""), ("weather_report", "", ""), ("weather_radar", "", "")]);
        assert_eq!(c.suggestion_keys("wether_report").first(), Some(&"weather_report"));
        let o = ToolCatalog::overlay(&c, vec![entry(3, "mcp_emails", Some("mcp_emails"), "Read emails")], Some(vec![String::new()]));
        assert!(o.is_enhanced());
        assert_eq!(o.search("email", params(5))[0].handle, 3);
    }

    #[test]
    fn ambiguous_catalogs_are_reported() {
        let reserved = ["search_tools", "load_tool"];
        let check = |entries: Vec<ToolEntry>| ToolCatalog::build(entries).check_unambiguous(&reserved);
        assert_eq!(check(vec![entry(0, "a", Some("x"), ""), entry(1, "b", Some("y"), "")]), Ok(()));
        assert_eq!(
            check(vec![entry(0, "a", Some("same"), ""), entry(1, "b", Some("same"), "")]),
            Err(CatalogError::DuplicateName { name: "same".into() })
        );
        assert_eq!(
            check(vec![entry(0, "search_tools", Some("x"), "")]),
            Err(CatalogError::ReservedName { key: "search_tools".into(), name: "x".into() })
        );
        let conflict = check(vec![entry(0, "weather", Some("public_weather"), ""), entry(1, "private_weather", Some("weather"), "")]);
        assert_eq!(conflict, Err(CatalogError::KeyConflict { key: "weather".into(), owner: "private_weather".into() }));
        assert!(conflict.unwrap_err().to_string().starts_with("ToolSearchProcessor tool key \"weather\" conflicts"));
        // a key equal to its own tool's id is fine
        assert_eq!(check(vec![entry(0, "weather", Some("weather"), "")]), Ok(()));
    }

    #[test]
    fn validated_build_rejects_ambiguity_and_otherwise_equals_the_plain_build() {
        let reserved = ["search_tools", "load_tool"];
        let dup = vec![entry(0, "a", Some("same"), ""), entry(1, "b", Some("same"), "")];
        assert_eq!(ToolCatalog::build_validated(dup, None, &reserved).unwrap_err(), CatalogError::DuplicateName { name: "same".into() });
        let tools = || {
            SIX.iter().enumerate().map(|(i, (id, d))| entry(i as u32, id, Some(id), d)).collect::<Vec<_>>()
        };
        let checked = ToolCatalog::build_validated(tools(), None, &reserved).unwrap();
        let plain = ToolCatalog::build(tools());
        for q in ["github issue", "create", "email email", "weather forecast"] {
            assert_eq!(checked.search(q, params(5)), plain.search(q, params(5)));
        }
    }

    #[test]
    fn two_thread_build_ranks_exactly_like_one_thread() {
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "weather", "email", "issue", "calendar", "zeta"];
        let mut seed = 99u64;
        let mut pick = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            words[(seed >> 33) as usize % words.len()]
        };
        let entries: Vec<ToolEntry> = (0..PARALLEL_MIN_DOCS as u32 + 500)
            .map(|i| {
                let id = format!("{}_{}_{i}", pick(), pick());
                let description = (0..8).map(|_| pick()).collect::<Vec<_>>().join(" ");
                entry(i, &id, Some(&id), &description)
            })
            .collect();
        let parallel = ToolCatalog::build(entries.clone());
        // An overlay on an empty base takes the single-threaded path.
        let sequential = ToolCatalog::overlay(&ToolCatalog::build(vec![]), entries, None);
        for q in ["alpha", "weather email", "issue issue calendar", "zeta beta gamma delta", "nothing"] {
            for p in [params(5), params(50), SearchParams { inspect_all: true, ..params(5) }] {
                assert_eq!(parallel.search(q, p), sequential.search(q, p), "{q}");
            }
        }
    }

    #[test]
    fn key_conflicts_can_be_accepted_and_resolve_like_the_reference() {
        let reserved = ["search_tools", "load_tool"];
        let tools = || vec![entry(0, "weather", Some("public_weather"), "pub"), entry(1, "private_weather", Some("weather"), "priv")];
        assert!(ToolCatalog::build_validated_with(tools(), None, &reserved, KeyConflicts::Reject).is_err());
        let c = ToolCatalog::build_validated_with(tools(), None, &reserved, KeyConflicts::Accept).unwrap();
        assert_eq!(c.resolve("weather", false), Some(0));
        assert_eq!(c.resolve("weather", true), Some(1));
        // duplicates and reserved names are still rejected
        let dup = vec![entry(0, "a", Some("same"), ""), entry(1, "b", Some("same"), "")];
        assert!(ToolCatalog::build_validated_with(dup, None, &reserved, KeyConflicts::Accept).is_err());
        let res = vec![entry(0, "load_tool", Some("x"), "")];
        assert!(ToolCatalog::build_validated_with(res, None, &reserved, KeyConflicts::Accept).is_err());
    }

    #[test]
    fn listing_rows_follow_keys_resolution_and_the_named_document() {
        let c = ToolCatalog::build(vec![
            entry(0, "weather", Some("public_weather"), "pub"),
            entry(1, "private_weather", Some("weather"), "priv"),
            entry(2, "bare", None, "no id"),
        ]);
        let row = |key, tool, doc| ListingRow { key_handle: key, tool_handle: tool, doc_handle: doc };
        assert_eq!(c.listing(false), [row(0, 0, Some(0)), row(1, 1, Some(1)), row(2, 2, Some(2))]);
        // id-first: the key "weather" names the tool whose id is "weather"
        assert_eq!(c.listing(true), [row(0, 1, Some(1)), row(1, 1, Some(1)), row(2, 2, Some(2))]);
        // a repeated name shows the last indexed tool's description
        let d = ToolCatalog::build(vec![entry(0, "a", Some("same"), "first"), entry(1, "b", Some("same"), "second")]);
        assert_eq!(d.listing(false), [row(0, 0, Some(1)), row(1, 1, Some(1))]);
        // an overlay lists in merged key order with the resolved tool in place
        let o = ToolCatalog::overlay(&c, vec![entry(3, "bare", Some("bare2"), "x"), entry(4, "new", None, "n")], None);
        let rows = o.listing(false);
        assert_eq!(rows.iter().map(|r| r.key_handle).collect::<Vec<_>>(), [0, 1, 3, 4]);
        assert_eq!(rows[2], row(3, 3, Some(3)));
    }

    #[test]
    fn array_index_keys_enumerate_first() {
        assert!(is_array_index("0") && is_array_index("123") && is_array_index("4294967294"));
        assert!(!is_array_index("01") && !is_array_index("4294967295") && !is_array_index("-1") && !is_array_index(""));
        let base = ToolCatalog::build(vec![entry(0, "5", Some("five"), ""), entry(1, "b", Some("b"), "")]);
        let o = ToolCatalog::overlay(&base, vec![entry(2, "z", Some("z"), ""), entry(3, "2", Some("two"), "")], None);
        let order: Vec<&str> = o.entries.iter().map(|e| e.key).collect();
        assert_eq!(o.search("two", params(5))[0].handle, 3);
        assert_eq!(order, ["2", "5", "b", "z"]);
    }

    /// [`crate::test_support::xorshift`] for `usize` bounds.
    fn below(seed: u64) -> impl FnMut(usize) -> usize {
        let mut next = crate::test_support::xorshift(seed);
        move |k| next(k as u64) as usize
    }

    #[test]
    fn joined_text_builds_equal_owned_entry_builds() {
        // Random catalogs with repeated names, id-less tools, keys equal to ids and
        // non-ASCII text: the catalog read in place from one joined text must search, list
        // and resolve exactly like the one built from owned entries, and so must overlays.
        let words = ["alpha", "beta", "天氣", "검색", "email", "issue", "calendar", "zeta", "ÉTÉ", "send"];
        let mut next = below(7);
        for round in 0..40 {
            let n = 1 + next(60);
            let enhanced = round % 4 == 3;
            let mut tools: Vec<(ToolEntry, String)> = Vec::new();
            for i in 0..n {
                let key = format!("{}_{}", words[next(words.len())], next(n + 3));
                let id = match next(4) {
                    0 => None,
                    1 => Some(key.clone()),
                    _ => Some(format!("{}{}", words[next(words.len())], next(n))),
                };
                let description = (0..next(8)).map(|_| words[next(words.len())]).collect::<Vec<_>>().join(" ");
                let params = if enhanced { (0..next(3)).map(|_| words[next(words.len())]).collect::<Vec<_>>().join(" ") } else { String::new() };
                tools.push((entry(i as u32, &key, id.as_deref(), &description), params));
            }
            let joined = tools
                .iter()
                .map(|(e, p)| {
                    let mut fields = format!("{}\0{}\0{}", e.key, e.id.as_deref().unwrap_or(""), e.description);
                    if enhanced {
                        fields.push('\0');
                        fields.push_str(p);
                    }
                    fields
                })
                .collect::<Vec<_>>()
                .join("\0");
            let entries: Vec<ToolEntry> = tools.iter().map(|(e, _)| e.clone()).collect();
            let owned = if enhanced {
                ToolCatalog::build_enhanced(entries, tools.iter().map(|(_, p)| p.clone()).collect())
            } else {
                ToolCatalog::build(entries)
            };
            let in_place = ToolCatalog::build_joined(&joined, n, enhanced, None, None).unwrap();
            let extra = vec![entry(n as u32, "0", Some("email_new"), "send email now"), entry(n as u32 + 1, &tools[0].0.key, None, "replaced 天氣")];
            let extra_params = enhanced.then(|| vec!["to".to_owned(), String::new()]);
            let overlays = (ToolCatalog::overlay(&owned, extra.clone(), extra_params.clone()), ToolCatalog::overlay(&in_place, extra, extra_params));
            for (a, b) in [(&owned, &in_place), (&overlays.0, &overlays.1)] {
                assert_eq!(a.listing(false), b.listing(false), "round {round}");
                assert_eq!(a.listing(true), b.listing(true), "round {round}");
                for q in words.iter().chain(&["email send", "天氣 issue", "beta_3", "alpha alpha zeta"]) {
                    let all = SearchParams { inspect_all: true, ..params(3) };
                    assert_eq!(a.search(q, params(3)), b.search(q, params(3)), "round {round} {q}");
                    assert_eq!(a.search(q, all), b.search(q, all), "round {round} {q}");
                    assert_eq!(a.suggestion_keys(q), b.suggestion_keys(q), "round {round} {q}");
                    assert_eq!((a.by_key(q), a.by_id(q), a.resolve(q, true)), (b.by_key(q), b.by_id(q), b.resolve(q, true)));
                }
                for (e, _) in &tools {
                    assert_eq!((a.by_key(&e.key), a.by_id(e.name())), (b.by_key(&e.key), b.by_id(e.name())));
                }
            }
        }
    }

    #[test]
    fn names_resolve_like_a_scan() {
        // by_id is the first tool with that id, by_key the (last) tool with that key, with
        // ids equal to their own key (kept out of the id map when keys are unique), ids
        // shared across tools, id-less tools and, through the Rust API, repeated keys.
        let pool = ["a", "b", "c", "d"];
        let mut next = below(11);
        for round in 0..300 {
            let n = 1 + next(8);
            let repeat_keys = round % 3 == 0;
            let entries: Vec<ToolEntry> = (0..n)
                .map(|i| {
                    let key = if repeat_keys { pool[next(4)].to_owned() } else { format!("{}{i}", pool[next(4)]) };
                    let id = match next(3) {
                        0 => None,
                        1 => Some(key.clone()),
                        _ => Some(if next(2) == 0 { pool[next(4)].to_owned() } else { format!("{}{}", pool[next(4)], next(n)) }),
                    };
                    entry(i as u32, &key, id.as_deref(), "")
                })
                .collect();
            let catalog = ToolCatalog::build(entries.clone());
            let names: Vec<String> = pool.iter().map(|s| s.to_string()).chain((0..n).flat_map(|i| pool.iter().map(move |p| format!("{p}{i}")))).collect();
            for name in &names {
                let first_id = entries.iter().find(|e| e.id.as_deref() == Some(name.as_str())).map(|e| e.handle);
                let last_key = entries.iter().rev().find(|e| e.key == *name).map(|e| e.handle);
                assert_eq!(catalog.by_id(name), first_id, "round {round} {name}");
                assert_eq!(catalog.by_key(name), last_key, "round {round} {name}");
            }
        }
    }
}
