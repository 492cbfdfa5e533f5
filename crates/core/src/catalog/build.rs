//! Building a catalog: one entry point, [`ToolCatalog::build`], from a [`CatalogSource`] with
//! [`BuildOptions`]; and [`ToolCatalog::overlay`], a request's tools laid over a built one.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::checks::{check_entries, BuildError, CheckedCatalog, KeyConflicts};
use super::entries::Entries;
use super::names::Names;
use super::{is_array_index, Ranker, ToolCatalog, ToolEntry};
use crate::bm25::{Bm25Index, DocSet, Vocab};
use crate::enhanced::{EnhancedIndex, Field, FieldDoc};
use crate::semantic::StaticModel;
use crate::tokenizer::for_each_compat_token_with;

/// How a catalog ranks (`search.mode`).
#[derive(Debug, Clone, Default)]
pub enum SearchMode {
    /// Exactly like `@mastra/core` 1.59.0: BM25 over `name description`, plus the name boost.
    #[default]
    Compatible,
    /// The enhanced analysis (word forms, identifiers, parameters, CJK).
    Enhanced,
    /// Enhanced ranking fused with the model's: each indexed tool's `name + description` is
    /// embedded with it.
    Hybrid(Arc<StaticModel>),
}

impl SearchMode {
    /// Whether tools carry parameter texts (the enhanced analysis indexes them).
    fn reads_params(&self) -> bool {
        !matches!(self, Self::Compatible)
    }
}

/// Which names a validated build rejects (see [`ToolCatalog::check_unambiguous`]).
#[derive(Debug, Clone, Copy)]
pub struct Validation<'a> {
    /// Names no key or callable name may take (the meta-tools').
    pub reserved: &'a [&'a str],
    pub key_conflicts: KeyConflicts,
}

/// How [`ToolCatalog::build`] builds.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions<'a> {
    pub mode: SearchMode,
    /// Reject ambiguous catalogs; `None` indexes any catalog, as the reference does.
    pub validation: Option<Validation<'a>>,
}

impl<'a> BuildOptions<'a> {
    /// Options for `mode`, without validation.
    pub fn new(mode: SearchMode) -> Self {
        Self { mode, validation: None }
    }

    /// These options, rejecting ambiguous catalogs.
    pub fn validated(self, reserved: &'a [&'a str], key_conflicts: KeyConflicts) -> Self {
        Self { validation: Some(Validation { reserved, key_conflicts }), ..self }
    }
}

/// The tools a catalog is built from.
#[derive(Debug)]
pub enum CatalogSource<'a> {
    /// Tools in `Object.entries` order; `params[i]` is tool i's parameter text (read in
    /// enhanced and hybrid mode; missing texts are empty).
    Entries { tools: Vec<ToolEntry>, params: Vec<String> },
    /// `key \0 id \0 description [\0 params] \0 key …` with `count` tools, an empty id meaning
    /// none, the params field present in enhanced and hybrid mode — read in place: no string
    /// per tool is allocated.
    Joined { text: &'a str, count: usize },
    /// A source already split and checked: see [`CatalogSource::check`]. Its build does not
    /// validate again.
    Checked(CheckedCatalog),
}

impl From<Vec<ToolEntry>> for CatalogSource<'static> {
    /// The tools without parameter texts.
    fn from(tools: Vec<ToolEntry>) -> Self {
        Self::Entries { tools, params: Vec::new() }
    }
}

impl From<CheckedCatalog> for CatalogSource<'static> {
    fn from(checked: CheckedCatalog) -> Self {
        Self::Checked(checked)
    }
}

impl<'a> CatalogSource<'a> {
    /// This source checked as [`ToolCatalog::build`] checks it with `options` (the same
    /// errors, first failure first), split into tools and copied, to be built later with the
    /// same mode: a server checks on its own thread, so a bad catalog throws from the
    /// constructor, then builds on another without checking again.
    pub fn check(self, options: &BuildOptions<'_>) -> Result<CheckedCatalog, BuildError> {
        let (entries, unique_names) = self.read(options)?;
        Ok(CheckedCatalog { entries: entries.into_owned(), unique_names })
    }

    /// The entries, validated when `options` ask, and whether their names are known unique.
    fn read(self, options: &BuildOptions<'_>) -> Result<(Entries<'a>, bool), BuildError> {
        let with_params = options.mode.reads_params();
        let entries = match self {
            Self::Entries { tools, params } => entries_of(&tools, with_params.then_some(&params)),
            Self::Joined { text, count } => Entries::from_joined(text, count, with_params)?,
            Self::Checked(checked) => return Ok((checked.entries, checked.unique_names)),
        };
        match options.validation {
            Some(Validation { reserved, key_conflicts }) => {
                check_entries(&entries, reserved, key_conflicts)?;
                Ok((entries, true))
            }
            None => Ok((entries, false)),
        }
    }
}

/// `entries` with their parameter texts (missing texts are empty), copied into one buffer.
fn entries_of(entries: &[ToolEntry], params: Option<&Vec<String>>) -> Entries<'static> {
    let params = params.map_or(&[][..], Vec::as_slice);
    Entries::from_tools(entries.iter().enumerate().map(|(i, e)| e.tool_ref(params.get(i).map_or("", String::as_str))))
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

/// Catalogs at least this large tokenize on two threads: tokenizing and interning is most
/// of a build, and a thread costs tens of microseconds to start.
pub(super) const PARALLEL_MIN_DOCS: usize = 4096;

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
    /// Builds a catalog from `source` as `options` say: ranking in their mode, and, when they
    /// ask for validation, rejecting ambiguous names (see [`Self::check_unambiguous`]). Fails
    /// only on a joined text that does not split into its tools or on a validation.
    pub fn build(source: CatalogSource<'_>, options: &BuildOptions<'_>) -> Result<Self, BuildError> {
        let (entries, unique_names) = source.read(options)?;
        // Unique names leave every entry indexed: the duplicate-name pass is skipped.
        let live = if unique_names { vec![true; entries.len()] } else { indexed_positions(&entries) };
        Ok(match &options.mode {
            SearchMode::Compatible => Self::compatible(entries, None, live),
            SearchMode::Enhanced => Self::enhanced(entries, live),
            SearchMode::Hybrid(model) => Self::enhanced(entries, live).into_hybrid(Arc::clone(model), None),
        })
    }

    fn compatible(entries: Entries<'_>, base: Option<&ToolCatalog>, live: Vec<bool>) -> Self {
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
            let (entries, names, slot_entry, _) = Names::index(entries, marks);
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

    /// An enhanced catalog of `entries`, indexing those marked `live`.
    pub(super) fn enhanced(entries: Entries<'_>, live: Vec<bool>) -> Self {
        let (entries, names, slot_entry, docs) = Names::index(entries, live.iter().map(|&l| l.then_some(())).collect());
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

    /// The catalog of `{ ...base.tools, ...resolved }`, ranking as `base` does: a resolved key
    /// replaces the base entry in place; new keys are appended (array-index keys sort to the
    /// front, as JavaScript enumerates them). `params[i]` is resolved tool i's parameter text
    /// (as in [`CatalogSource::Entries`]). Base documents are not re-tokenized, nor, in hybrid
    /// mode, embedded again.
    pub fn overlay(base: &ToolCatalog, resolved: Vec<ToolEntry>, params: Vec<String>) -> Self {
        let mut entries = base.entries.clone();
        let mut key_pos = base.names.key_pos.clone();
        let mut appended_index_keys = false;
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
        let live = indexed_positions(&entries);
        match &base.ranker {
            Ranker::Hybrid(hybrid) => Self::hybrid_overlay(base, hybrid, entries, live),
            Ranker::Enhanced(_) => Self::enhanced(entries, live),
            Ranker::Compatible { .. } => Self::compatible(entries, Some(base), live),
        }
    }
}
