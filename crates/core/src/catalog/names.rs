//! Names: entry positions by key and by id, and what is read through them (resolution,
//! the `injectCatalog` listing, "Did you mean" suggestions).

use rustc_hash::FxHashMap as HashMap;

use super::entries::{Entries, Entry};
use super::{ListingRow, ToolCatalog};
use crate::enhanced;

/// Entry positions by key and by id.
#[derive(Debug, Clone, Default)]
pub(super) struct Names {
    /// key -> position (the last, should keys repeat)
    pub(super) key_pos: StrIndex,
    /// id -> first position with that id; when keys are unique, without the entries whose id
    /// is their own key (the common case: found through `key_pos`, half the memory)
    first_id_pos: StrIndex,
    ids_via_keys: bool,
}

impl Names {
    /// Key and id lookups of `entries`, after recording each entry's slot: `docs[i]` is `Some`
    /// exactly for the entries whose document is indexed. Returns the entries, the names, the
    /// slot -> position map and the live documents' payloads in slot order.
    #[allow(clippy::type_complexity)]
    pub(super) fn index<'t, T>(mut entries: Entries<'t>, docs: Vec<Option<T>>) -> (Entries<'t>, Names, Vec<u32>, Vec<T>) {
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

    pub(super) fn heap_bytes(&self) -> usize {
        (self.key_pos.by_hash.capacity() + self.first_id_pos.by_hash.capacity()) * 13
    }
}

/// Entry positions by a string field (key or id) without copying the strings: 64-bit hash
/// -> position, verified against the entry; a different string with the same hash (in
/// practice never) goes to an exact map.
#[derive(Debug, Clone, Default)]
pub(super) struct StrIndex {
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
    pub(super) fn insert<'a>(&mut self, s: &str, pos: u32, field: impl Fn(u32) -> &'a str, replace: bool) -> bool {
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

    pub(super) fn get<'a>(&self, s: &str, field: impl Fn(u32) -> &'a str) -> Option<u32> {
        let pos = *self.by_hash.get(&Self::hash(s))?;
        if field(pos) == s {
            Some(pos)
        } else {
            self.collided.get(s).copied()
        }
    }
}

impl ToolCatalog {
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

    /// For each of `names` (tools as search shows them: id, else key), whether `query` asks
    /// for another action than the one the tool performs among its siblings (`x_create` for
    /// "list the x"; an action factor below 1, enhanced and hybrid only): what was learned
    /// for it speaks for a sibling, not for this request.
    pub fn action_mismatches(&self, query: &str, names: &[&str]) -> Vec<bool> {
        let index = match &self.ranker {
            super::Ranker::Enhanced(index) => &**index,
            super::Ranker::Hybrid(hybrid) => hybrid.lexical(),
            super::Ranker::Compatible { .. } => return vec![false; names.len()],
        };
        let wanted = index.query_actions(query);
        if wanted.is_empty() {
            return vec![false; names.len()];
        }
        names.iter().map(|name| self.doc_of(name).is_some_and(|doc| index.action_factor(wanted, doc) < 1.0)).collect()
    }

    /// The document (slot) indexed under `name`.
    fn doc_of(&self, name: &str) -> Option<u32> {
        let pos = self.names.first_id_pos.get(name, |p| self.entries.id(p as usize).unwrap_or("")).or_else(|| self.names.key_pos.get(name, |p| self.entries.key(p as usize)))?;
        if let Some(slot) = self.entries.get(pos as usize).slot {
            return Some(slot);
        }
        // (several tools share the name: the document is the last one's)
        self.slot_entry.iter().position(|&p| self.entries.name(p as usize) == name).map(|s| s as u32)
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
}
