//! Tool catalogs: the searchable set of tools of one processor (static) or one request
//! (static + request-resolved overlay), with the reference's naming, lookup and ranking.
//!
//! Tools are identified by a *handle* chosen by the caller (the JS layer keeps the actual
//! `Tool` objects in arrays and maps handles back), so no JS object ever lives in Rust.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use crate::bm25::{top_by_score, Bm25Index, TermCounts, Vocab};
use crate::tokenizer::{compat_tokens, for_each_compat_token_with};

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
}

#[derive(Debug, Clone)]
struct Entry {
    key: String,
    id: Option<String>,
    description: String,
    handle: u32,
    /// Slot of this entry's document when it is the one indexed under its name.
    slot: Option<u32>,
}

impl Entry {
    fn name(&self) -> &str {
        self.id.as_deref().unwrap_or(&self.key)
    }
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
    entries: Vec<Entry>,
    key_pos: HashMap<String, u32>,
    first_id_pos: HashMap<String, u32>,
    vocab: Arc<Vocab>,
    index: Bm25Index,
    /// doc slot -> entry position of the tool that (last) indexed it
    slot_entry: Vec<u32>,
}

/// JavaScript array-index keys (`"0"`, `"42"`, not `"01"`) enumerate first, ascending.
pub fn is_array_index(key: &str) -> bool {
    if key.is_empty() || key.len() > 10 || !key.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if key.len() > 1 && key.starts_with('0') {
        return false;
    }
    key.parse::<u64>().map_or(false, |n| n < u64::from(u32::MAX))
}

/// Reusable buffers for tokenizing many documents.
#[derive(Default)]
struct Scratch {
    lower: String,
    terms: Vec<u32>,
}

fn document_terms(vocab: &mut Vocab, scratch: &mut Scratch, name: &str, description: &str) -> TermCounts {
    // The reference indexes `${name} ${description}`; the space separates, so the two
    // parts tokenize independently.
    let Scratch { lower, terms } = scratch;
    terms.clear();
    for_each_compat_token_with(name, lower, |t| terms.push(vocab.intern(t)));
    for_each_compat_token_with(description, lower, |t| terms.push(vocab.intern(t)));
    TermCounts::from_terms(terms.iter().copied())
}

fn entry_of(e: ToolEntry) -> Entry {
    Entry { key: e.key, id: e.id, description: e.description, handle: e.handle, slot: None }
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

/// Which entries end up indexed. The reference re-adds a repeated name, removing the older
/// document and appending the new one, so the live documents are the *last* entry of each
/// name, in entry order.
fn indexed_positions(entries: &[Entry]) -> Vec<bool> {
    let mut last: HashMap<&str, usize> = HashMap::with_capacity_and_hasher(entries.len(), Default::default());
    for (pos, e) in entries.iter().enumerate() {
        last.insert(e.name(), pos);
    }
    entries.iter().enumerate().map(|(pos, e)| last.get(e.name()) == Some(&pos)).collect()
}

impl ToolCatalog {
    /// Builds a catalog from entries in `Object.entries` order.
    pub fn build(entries: Vec<ToolEntry>) -> Self {
        let mut vocab = Vocab::new();
        let mut scratch = Scratch::default();
        let entries: Vec<Entry> = entries.into_iter().map(entry_of).collect();
        let terms: Vec<Option<TermCounts>> = indexed_positions(&entries)
            .iter()
            .zip(&entries)
            .map(|(&live, e)| live.then(|| document_terms(&mut vocab, &mut scratch, e.name(), &e.description)))
            .collect();
        Self::assemble(entries, terms, Arc::new(vocab))
    }

    /// The catalog of `{ ...base.tools, ...resolved }`: a resolved key replaces the base
    /// entry in place; new keys are appended (array-index keys sort to the front, as
    /// JavaScript enumerates them). Base documents are not re-tokenized.
    pub fn overlay(base: &ToolCatalog, resolved: Vec<ToolEntry>) -> Self {
        let mut vocab = Vocab::extending(base.vocab.clone());
        let mut scratch = Scratch::default();
        let mut entries: Vec<Entry> = base.entries.clone();
        let mut key_pos = base.key_pos.clone();
        let mut appended_index_keys = false;
        for e in resolved {
            let entry = entry_of(e);
            match key_pos.get(&entry.key) {
                Some(&pos) => entries[pos as usize] = entry,
                None => {
                    appended_index_keys |= is_array_index(&entry.key);
                    key_pos.insert(entry.key.clone(), entries.len() as u32);
                    entries.push(entry);
                }
            }
        }
        if appended_index_keys {
            // Stable: array-index keys first by numeric value, the rest keep their order.
            entries.sort_by_key(|e| if is_array_index(&e.key) { e.key.parse::<u64>().unwrap_or(0) } else { u64::MAX });
        }
        let terms: Vec<Option<TermCounts>> = indexed_positions(&entries)
            .iter()
            .zip(&entries)
            .map(|(&live, e)| {
                live.then(|| match e.slot.and_then(|s| base.index.doc(s)) {
                    Some(doc) => doc.clone(),
                    None => document_terms(&mut vocab, &mut scratch, e.name(), &e.description),
                })
            })
            .collect();
        Self::assemble(entries, terms, Arc::new(vocab))
    }

    /// `terms[i]` is `Some` exactly for the entries whose document is indexed.
    fn assemble(mut entries: Vec<Entry>, terms: Vec<Option<TermCounts>>, vocab: Arc<Vocab>) -> Self {
        let mut key_pos = HashMap::with_capacity_and_hasher(entries.len(), Default::default());
        let mut first_id_pos = HashMap::with_capacity_and_hasher(entries.len(), Default::default());
        let mut slot_entry = Vec::with_capacity(entries.len());
        let mut docs = Vec::with_capacity(entries.len());
        for (pos, (e, t)) in entries.iter_mut().zip(terms).enumerate() {
            let pos = pos as u32;
            key_pos.insert(e.key.clone(), pos);
            if let Some(id) = &e.id {
                first_id_pos.entry(id.clone()).or_insert(pos);
            }
            e.slot = t.as_ref().map(|_| docs.len() as u32);
            if let Some(t) = t {
                slot_entry.push(pos);
                docs.push(t);
            }
        }
        let index = Bm25Index::from_docs(docs, vocab.len());
        Self { entries, key_pos, first_id_pos, vocab, index, slot_entry }
    }

    /// Rejects catalogs whose names are ambiguous: a key or name in `reserved`, two tools
    /// with one callable name (`id || key`), or a key that is another tool's callable name.
    pub fn check_unambiguous(&self, reserved: &[&str]) -> Result<(), CatalogError> {
        let mut owner_of_name: HashMap<&str, &str> = HashMap::with_capacity_and_hasher(self.entries.len(), Default::default());
        for e in &self.entries {
            let name = e.name();
            if reserved.contains(&e.key.as_str()) || reserved.contains(&name) {
                return Err(CatalogError::ReservedName { key: e.key.clone(), name: name.to_owned() });
            }
            if owner_of_name.insert(name, &e.key).is_some() {
                return Err(CatalogError::DuplicateName { name: name.to_owned() });
            }
        }
        for e in &self.entries {
            if let Some(owner) = owner_of_name.get(e.key.as_str()) {
                if *owner != e.key {
                    return Err(CatalogError::KeyConflict { key: e.key.clone(), owner: (*owner).to_owned() });
                }
            }
        }
        Ok(())
    }

    /// Number of entries (tools).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of indexed documents (unique names).
    pub fn document_count(&self) -> usize {
        self.index.len()
    }

    /// Handle of the tool stored under a record key.
    pub fn by_key(&self, key: &str) -> Option<u32> {
        self.key_pos.get(key).map(|&p| self.entries[p as usize].handle)
    }

    /// Handle of the first tool (in entry order) whose id is `id`.
    pub fn by_id(&self, id: &str) -> Option<u32> {
        self.first_id_pos.get(id).map(|&p| self.entries[p as usize].handle)
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
        let wanted = requested.to_lowercase();
        self.entries
            .iter()
            .filter(|e| {
                let key = e.key.to_lowercase();
                key.contains(&wanted) || wanted.contains(&key)
            })
            .map(|e| e.key.as_str())
            .collect()
    }

    /// BM25 + name boost + minScore + id resolution, in the reference's order.
    /// Without `inspect_all` at most `top_k` hits come back; with it, every candidate does.
    pub fn search(&self, query: &str, params: SearchParams) -> Vec<Hit> {
        if self.index.is_empty() {
            return Vec::new();
        }
        let tokens = compat_tokens(query);
        if tokens.is_empty() {
            return Vec::new();
        }
        let terms: Vec<Option<u32>> = tokens.iter().map(|t| self.vocab.get(t)).collect();
        let limit = if params.inspect_all { self.index.len() } else { params.top_k.saturating_mul(2) };
        let mut boosted = top_by_score(self.index.score(&terms), limit);
        for hit in &mut boosted {
            let entry = &self.entries[self.slot_entry[hit.slot as usize] as usize];
            let name = entry.name().to_lowercase();
            for token in &tokens {
                if &name == token {
                    hit.score += 5.0;
                } else if name.contains(token.as_str()) {
                    hit.score += 2.0;
                }
            }
        }
        boosted.sort_by(|a, b| b.score.total_cmp(&a.score));

        let mut hits = Vec::new();
        for scored in boosted {
            if !(scored.score > params.min_score) {
                continue;
            }
            let doc_pos = self.slot_entry[scored.slot as usize] as usize;
            let doc_entry = &self.entries[doc_pos];
            let name = doc_entry.id.as_deref().unwrap_or(&doc_entry.key);
            // Search returns only tools whose *id* is the name (id-less tools never match).
            let Some(handle) = self.by_id(name) else { continue };
            hits.push(Hit { handle, doc_handle: doc_entry.handle, score: scored.score });
            if !params.inspect_all && hits.len() >= params.top_k {
                break;
            }
        }
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(handle: u32, key: &str, id: Option<&str>, description: &str) -> ToolEntry {
        ToolEntry { key: key.into(), id: id.map(Into::into), description: description.into(), handle }
    }

    fn six_tools() -> ToolCatalog {
        let tools = [
            ("github_create_issue", "Create a new issue on GitHub"),
            ("github_create_pr", "Create a pull request on GitHub"),
            ("linear_create_issue", "Create a new issue in Linear"),
            ("weather_forecast", "Get weather forecast for a location"),
            ("send_email", "Send an email message"),
            ("calendar_schedule", "Schedule a calendar event"),
        ];
        ToolCatalog::build(tools.iter().enumerate().map(|(i, (id, d))| entry(i as u32, id, Some(id), d)).collect())
    }

    fn params(top_k: usize) -> SearchParams {
        SearchParams { top_k, min_score: 0.0, inspect_all: false }
    }

    fn rounded(hits: &[Hit]) -> Vec<(u32, f64)> {
        hits.iter().map(|h| (h.handle, crate::jsmath::js_round2(h.score))).collect()
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
    fn array_index_keys_enumerate_first() {
        assert!(is_array_index("0") && is_array_index("123") && is_array_index("4294967294"));
        assert!(!is_array_index("01") && !is_array_index("4294967295") && !is_array_index("-1") && !is_array_index(""));
        let base = ToolCatalog::build(vec![entry(0, "5", Some("five"), ""), entry(1, "b", Some("b"), "")]);
        let o = ToolCatalog::overlay(&base, vec![entry(2, "z", Some("z"), ""), entry(3, "2", Some("two"), "")]);
        let order: Vec<&str> = o.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(o.search("two", params(5))[0].handle, 3);
        assert_eq!(order, ["2", "5", "b", "z"]);
    }
}
