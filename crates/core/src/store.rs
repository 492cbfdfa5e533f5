//! Loaded-name state per conversation thread.
//!
//! - [`InMemoryStore`]: `thread -> ordered set of names + last access`, with TTL eviction
//!   (ToolSearchProcessor's default `storage: 'in-memory'`).
//! - [`SupplementalStore`]: the `storage: 'context'` bridge that holds names activated
//!   during a step until the conversation messages carry them.
//! - [`derive_activated_names`]: which tool results in the messages activate which names.

use std::collections::HashSet;
use std::time::{SystemTime, UNIX_EPOCH};

use dashmap::DashMap;

/// Milliseconds since the Unix epoch, like `Date.now()`.
pub fn now_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_millis() as f64)
}

/// An insertion-ordered set of names.
#[derive(Debug, Default, Clone)]
pub struct NameSet {
    order: Vec<String>,
    seen: HashSet<String>,
}

impl NameSet {
    pub fn insert(&mut self, name: &str) -> bool {
        if self.seen.contains(name) {
            return false;
        }
        self.seen.insert(name.to_owned());
        self.order.push(name.to_owned());
        true
    }

    pub fn contains(&self, name: &str) -> bool {
        self.seen.contains(name)
    }

    pub fn remove(&mut self, name: &str) {
        if self.seen.remove(name) {
            self.order.retain(|n| n != name);
        }
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    pub fn names(&self) -> &[String] {
        &self.order
    }
}

impl<S: AsRef<str>> FromIterator<S> for NameSet {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut set = NameSet::default();
        for n in iter {
            set.insert(n.as_ref());
        }
        set
    }
}

#[derive(Debug)]
struct ThreadState {
    names: NameSet,
    last_accessed: f64,
}

/// Thread-keyed loaded names with last-access times. Every read and every non-empty
/// write creates or touches the thread's entry, as the reference's map store does.
#[derive(Debug, Default)]
pub struct InMemoryStore {
    threads: DashMap<String, ThreadState>,
}

/// `{ threadCount, oldestAccessTime }`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StateStats {
    pub thread_count: usize,
    pub oldest_access_time: Option<f64>,
}

impl InMemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn touch<R>(&self, thread: &str, f: impl FnOnce(&mut NameSet) -> R) -> R {
        let now = now_ms();
        let mut entry = self
            .threads
            .entry(thread.to_owned())
            .or_insert_with(|| ThreadState { names: NameSet::default(), last_accessed: now });
        entry.last_accessed = now;
        f(&mut entry.names)
    }

    /// A copy of the thread's names in insertion order (creates/touches the entry).
    pub fn loaded_names(&self, thread: &str) -> Vec<String> {
        self.touch(thread, |names| names.names().to_vec())
    }

    /// Adds names (no-op, and no touch, when `names` is empty).
    pub fn add_loaded<S: AsRef<str>>(&self, thread: &str, names: &[S]) {
        if names.is_empty() {
            return;
        }
        self.touch(thread, |set| {
            for n in names {
                set.insert(n.as_ref());
            }
        });
    }

    pub fn clear(&self, thread: &str) {
        self.threads.remove(thread);
    }

    pub fn clear_all(&self) {
        self.threads.clear();
        self.threads.shrink_to_fit();
    }

    /// Evicts threads idle for more than `ttl_ms`; returns how many. `ttl_ms <= 0` disables.
    pub fn cleanup(&self, ttl_ms: f64) -> usize {
        self.cleanup_at(ttl_ms, now_ms())
    }

    pub fn cleanup_at(&self, ttl_ms: f64, now: f64) -> usize {
        // NaN compares false both ways, as in JavaScript: no cleanup, nothing evicted.
        if ttl_ms.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return 0;
        }
        let before = self.threads.len();
        self.threads.retain(|_, s| (now - s.last_accessed).partial_cmp(&ttl_ms) != Some(std::cmp::Ordering::Greater));
        let after = self.threads.len();
        // `retain` never shrinks the table: after a sweep that emptied most of it, give the
        // memory back so a burst of short-lived threads does not pin its peak size.
        if after < before && after.saturating_mul(4) < self.threads.capacity() {
            self.threads.shrink_to_fit();
        }
        before - after
    }

    pub fn stats(&self) -> StateStats {
        let oldest = self.threads.iter().map(|s| s.last_accessed).reduce(f64::min);
        StateStats { thread_count: self.threads.len(), oldest_access_time: oldest }
    }

    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }
}

/// The `storage: 'context'` supplemental set: names activated in this process for a real
/// thread id, kept until the messages own them.
#[derive(Debug, Default)]
pub struct SupplementalStore {
    threads: DashMap<String, NameSet>,
}

impl SupplementalStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// Union of the message-derived names and the thread's supplemental names. With live
    /// messages (`has_messages`), names the messages now carry move out of the
    /// supplemental set, and an emptied entry is dropped.
    pub fn loaded_names(&self, thread: Option<&str>, from_messages: Vec<String>, has_messages: bool) -> Vec<String> {
        let Some(thread) = thread else { return from_messages };
        let mut out = NameSet::from_iter(&from_messages);
        let mut drop_entry = false;
        if let Some(mut extra) = self.threads.get_mut(thread) {
            if has_messages {
                for n in &from_messages {
                    extra.remove(n);
                }
            }
            drop_entry = extra.is_empty();
            for n in extra.names() {
                out.insert(n);
            }
        }
        if drop_entry {
            self.threads.remove_if(thread, |_, s| s.is_empty());
        }
        out.names().to_vec()
    }

    pub fn add_loaded<S: AsRef<str>>(&self, thread: Option<&str>, names: &[S]) {
        let Some(thread) = thread else { return };
        if names.is_empty() {
            return;
        }
        let mut set = self.threads.entry(thread.to_owned()).or_default();
        for n in names {
            set.insert(n.as_ref());
        }
    }

    pub fn clear(&self, thread: &str) {
        self.threads.remove(thread);
    }

    pub fn clear_all(&self) {
        self.threads.clear();
        self.threads.shrink_to_fit();
    }

    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }
}

/// A completed `search_tools` / `load_tool` result found in the messages, reduced to the
/// fields that can activate names.
#[derive(Debug, Clone, Default)]
pub struct ActivationRecord {
    pub meta_tool: MetaTool,
    /// `result.success === true`
    pub success: bool,
    /// `result.toolName` when it is a string
    pub tool_name: Option<String>,
    /// string entries of `result.loaded`
    pub loaded: Vec<String>,
    /// string entries of `result.activation.loaded` when `result.activation` is a
    /// `{ type: 'tool-search-auto-load', version: 1 }` receipt
    pub receipt: Option<Vec<String>>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MetaTool {
    #[default]
    SearchTools,
    LoadTool,
}

/// Names the records activate, in message order, de-duplicated. Only real activations
/// count: `load_tool`'s `loaded` list and its successful single form, and `search_tools`
/// results that carry an auto-load receipt. A plain search result activates nothing.
pub fn derive_activated_names(records: &[ActivationRecord]) -> Vec<String> {
    let mut out = NameSet::default();
    for r in records {
        match r.meta_tool {
            MetaTool::LoadTool => {
                if r.success {
                    if let Some(name) = &r.tool_name {
                        out.insert(name);
                    }
                }
                for n in &r.loaded {
                    out.insert(n);
                }
            }
            MetaTool::SearchTools => {
                for n in r.receipt.iter().flatten() {
                    out.insert(n);
                }
            }
        }
    }
    out.names().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_create_and_touch_threads() {
        let s = InMemoryStore::new();
        assert_eq!(s.stats(), StateStats { thread_count: 0, oldest_access_time: None });
        assert!(s.loaded_names("t1").is_empty());
        assert_eq!(s.thread_count(), 1);
        s.add_loaded::<&str>("t2", &[]);
        assert_eq!(s.thread_count(), 1, "empty add is a no-op");
        s.add_loaded("t2", &["weather", "calendar", "weather"]);
        assert_eq!(s.loaded_names("t2"), ["weather", "calendar"]);
        assert!(s.stats().oldest_access_time.is_some());
    }

    #[test]
    fn cleanup_is_strictly_greater_than_ttl() {
        let s = InMemoryStore::new();
        s.add_loaded("t", &["x"]);
        let t = s.stats().oldest_access_time.unwrap();
        assert_eq!(s.cleanup_at(50.0, t + 50.0), 0);
        assert_eq!(s.cleanup_at(0.0, t + 1e9), 0, "ttl 0 disables cleanup");
        assert_eq!(s.cleanup_at(50.0, t + 51.0), 1);
        assert_eq!(s.thread_count(), 0);
    }

    #[test]
    fn a_sweep_that_empties_most_of_the_map_gives_its_memory_back() {
        let s = InMemoryStore::new();
        for i in 0..20_000 {
            s.add_loaded(&format!("t{i}"), &["x"]);
        }
        let peak = s.threads.capacity();
        assert_eq!(s.cleanup_at(1.0, now_ms() + 1e6), 20_000);
        assert!(s.threads.capacity() < peak / 4, "capacity {} after the sweep, {} at the peak", s.threads.capacity(), peak);
        s.add_loaded("next", &["y"]);
        assert_eq!(s.loaded_names("next"), vec!["y".to_string()]);
    }

    #[test]
    fn clear_and_clear_all() {
        let s = InMemoryStore::new();
        s.add_loaded("a", &["x"]);
        s.add_loaded("b", &["y"]);
        s.clear("a");
        assert_eq!(s.thread_count(), 1);
        s.clear_all();
        assert_eq!(s.thread_count(), 0);
    }

    #[test]
    fn supplemental_bridges_then_hands_over_to_messages() {
        let s = SupplementalStore::new();
        s.add_loaded(Some("t"), &["weather"]);
        s.add_loaded(None, &["ignored"]);
        assert_eq!(s.loaded_names(Some("t"), vec![], true), ["weather"]);
        assert_eq!(s.loaded_names(Some("t"), vec!["weather".into()], true), ["weather"]);
        assert_eq!(s.thread_count(), 0, "message-owned names leave the supplemental set");
        assert!(s.loaded_names(Some("t"), vec![], true).is_empty(), "evicted from messages -> de-loaded");
        assert!(s.loaded_names(None, vec![], true).is_empty());
    }

    #[test]
    fn resume_path_does_not_prune() {
        let s = SupplementalStore::new();
        s.add_loaded(Some("t"), &["calendar"]);
        assert_eq!(s.loaded_names(Some("t"), vec!["calendar".into()], false), ["calendar"]);
        assert_eq!(s.thread_count(), 1);
    }

    #[test]
    fn only_real_activations_count() {
        let rec = |meta_tool, success, tool_name: Option<&str>, loaded: &[&str], receipt: Option<&[&str]>| ActivationRecord {
            meta_tool,
            success,
            tool_name: tool_name.map(Into::into),
            loaded: loaded.iter().map(|s| s.to_string()).collect(),
            receipt: receipt.map(|r| r.iter().map(|s| s.to_string()).collect()),
        };
        let records = [
            rec(MetaTool::SearchTools, false, None, &[], None),                   // plain search: nothing
            rec(MetaTool::LoadTool, true, Some("weather"), &[], None),            // single form
            rec(MetaTool::LoadTool, false, Some("nope"), &[], None),              // failed single form
            rec(MetaTool::LoadTool, false, None, &["calendar", "weather"], None), // multi form
            rec(MetaTool::SearchTools, false, None, &[], Some(&["mail"])),       // auto-load receipt
        ];
        assert_eq!(derive_activated_names(&records), ["weather", "calendar", "mail"]);
    }
}
