//! Learning from use: an index of past requests (as hashed terms and an optional int8 model
//! vector, never their text), each with the tool that served it, whose nearest neighbours
//! vote for tools (docs/learning.md). Partitions are string keys: one per resource in scope
//! 'resource', one for the deployment in scope 'global', one for seeds ([`SEED_PARTITION`]).
//!
//! One file per part: [`terms`] (features and the shared-store payload), [`partition`] (the
//! inverted index and neighbour search), [`votes`] (the voting rules); this file holds the
//! partitions, the bounds and eviction, deletion and stats.

pub mod partition;
pub mod profiles;
pub mod terms;
pub mod votes;

use std::sync::Arc;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

pub use partition::{Blend, Example, Hit, VECTOR_SCAN_MAX};
pub use profiles::{unit_terms, Profile, ProfileHit, Trust};
pub use terms::{decode_payload, encode_payload, features_of, quantize, Features};
pub use votes::{count_votes, decay, Ballot, Vote, VoteRules};

use partition::{example_key, Partition, Scratch};

/// The partition of `learn.seed` examples (serve everyone, never decay, never evicted).
pub const SEED_PARTITION: &str = "\u{0}seed";
/// Tool profiles a lookup returns (preload weighs the best few; each costs a resolve in JS).
const PROFILE_MATCHES: usize = 3;
/// Bytes an example costs beyond its features (slot, strings' share, maps), roughly.
const EXAMPLE_OVERHEAD_BYTES: usize = 96;

#[derive(Debug, Clone, Copy)]
pub struct LearnConfig {
    pub max_examples: usize,
    pub max_bytes: usize,
    pub min_similarity: f32,
    /// Nearest past requests that vote.
    pub neighbours: usize,
    pub rules: VoteRules,
    pub blend: Blend,
}

impl Default for LearnConfig {
    fn default() -> Self {
        Self {
            max_examples: 20_000,
            max_bytes: 16 << 20,
            min_similarity: 0.2,
            neighbours: 10,
            rules: VoteRules { global: false, min_resources: 2, half_life_ms: 30.0 * 86_400_000.0, prior: 0.25 },
            blend: Blend { vector_weight: 0.5, vector_floor: 0.3 },
        }
    }
}

/// A profile's unit term weights kept and rebuilt, and its contributing resources kept and rebuilt.
pub type ProfileCheck = (Vec<(u32, f32)>, Vec<(u32, f32)>, usize, usize);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LearnStats {
    pub examples: usize,
    pub seeds: usize,
    pub resources: usize,
    pub bytes: usize,
}

#[derive(Debug)]
pub struct LearnedIndex {
    pub config: LearnConfig,
    partitions: HashMap<Box<str>, Partition>,
    /// tool names and resource ids, shared by the examples that name them
    names: HashSet<Arc<str>>,
    count: usize,
    /// The learned examples' estimated bytes (seeds aside).
    bytes: usize,
    /// The learned partitions' profiles' estimated bytes: counted against `max_bytes` too.
    profile_bytes: usize,
    seeds: usize,
    scratch: Scratch,
}

impl LearnedIndex {
    pub fn new(config: LearnConfig) -> Self {
        Self {
            config,
            partitions: HashMap::default(),
            names: HashSet::default(),
            count: 0,
            bytes: 0,
            profile_bytes: 0,
            seeds: 0,
            scratch: Scratch::default(),
        }
    }

    fn intern(&mut self, name: &str) -> Arc<str> {
        if let Some(known) = self.names.get(name) {
            return known.clone();
        }
        let name: Arc<str> = Arc::from(name);
        self.names.insert(name.clone());
        name
    }

    /// Forgets the names no example holds any more.
    fn release(&mut self, removed: &[Example]) {
        for e in removed {
            for name in [&e.tool, &e.resource] {
                // (the set's copy and `e`'s are the last ones)
                if Arc::strong_count(name) <= 2 {
                    self.names.remove(&**name);
                }
            }
        }
    }

    /// Keeps an example: `features` of a request `resource` made that `tool` served, in
    /// `partition`, made at `time` (ms). A later repeat (same partition, resource, tool and
    /// terms) is merged: uses + 1, time = the later one. False when nothing was kept: empty
    /// features, or a call no later than the example's last one, which it already counts (a
    /// conversation a new process reads back from memory, a shared log read again); calls of
    /// one request at one instant count once.
    pub fn add(&mut self, partition: &str, resource: &str, tool: &str, features: Features, time: f64, seed: bool) -> bool {
        if features.is_empty() || !time.is_finite() {
            return false;
        }
        let key = example_key(resource, tool, &features);
        if let Some(p) = self.partitions.get_mut(partition) {
            if let Some(slot) = p.find(key, resource, tool, &features) {
                if time <= p.get(slot).time {
                    return false;
                }
                let before = p.profiles.bytes;
                p.merge(slot, time, self.config.rules.half_life_ms);
                if partition != SEED_PARTITION {
                    self.profile_bytes = self.profile_bytes + p.profiles.bytes - before;
                }
                return true;
            }
        }
        let bytes = EXAMPLE_OVERHEAD_BYTES + features.heap_bytes() + tool.len() + resource.len();
        let example = Example {
            tool: self.intern(tool),
            resource: self.intern(resource),
            features,
            uses: 1,
            time,
            seed,
            vector_norm: 0.0,
            bytes,
        };
        let half_life_ms = self.config.rules.half_life_ms;
        let p = self.partitions.entry(partition.into()).or_default();
        let before = p.profiles.bytes;
        p.insert(key, example, half_life_ms);
        // (seeds are configuration: neither their examples nor their profiles count)
        if partition != SEED_PARTITION {
            self.profile_bytes = self.profile_bytes + p.profiles.bytes - before;
        }
        if seed {
            self.seeds += 1;
            return true;
        }
        self.count += 1;
        self.bytes += bytes;
        if self.count > self.config.max_examples || self.bytes + self.profile_bytes > self.config.max_bytes {
            self.evict(time);
        }
        true
    }

    /// Over a bound: the learned examples with the least `uses × decay` go first (older and
    /// rarer evidence), down to 90% of the bound, so eviction runs once per many adds.
    fn evict(&mut self, now: f64) {
        let rules = self.config.rules;
        let mut all: Vec<(f64, f64, usize, u32)> = Vec::with_capacity(self.count);
        let keys: Vec<Box<str>> = self.partitions.keys().cloned().collect();
        for (pi, key) in keys.iter().enumerate() {
            for (slot, e) in self.partitions[key].live_slots() {
                if !e.seed {
                    all.push((e.uses as f64 * decay(&rules, false, e.time, now), e.time, pi, slot));
                }
            }
        }
        all.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let count_goal = self.config.max_examples * 9 / 10;
        let bytes_goal = self.config.max_bytes / 10 * 9;
        let mut doomed: Vec<Vec<u32>> = vec![Vec::new(); keys.len()];
        // (an example's share of the profiles, in proportion: their exact shrinking is known
        // only once removed; a shortfall is evicted at a later add)
        let share = 1.0 + self.profile_bytes as f64 / self.bytes.max(1) as f64;
        let (mut count, mut bytes) = (self.count, self.bytes + self.profile_bytes);
        for &(_, _, pi, slot) in &all {
            if count <= count_goal && bytes <= bytes_goal {
                break;
            }
            count -= 1;
            bytes = bytes.saturating_sub((self.partitions[&keys[pi]].get(slot).bytes as f64 * share) as usize);
            doomed[pi].push(slot);
        }
        for (pi, slots) in doomed.iter().enumerate() {
            if !slots.is_empty() {
                self.remove_from(&keys[pi], slots);
            }
        }
    }

    fn remove_from(&mut self, key: &str, slots: &[u32]) -> usize {
        let Some(p) = self.partitions.get_mut(key) else { return 0 };
        let before = p.profiles.bytes;
        let removed = p.remove_many(slots, self.config.rules.half_life_ms);
        let counted = key != SEED_PARTITION;
        if counted {
            self.profile_bytes = self.profile_bytes + p.profiles.bytes - before;
        }
        if p.live == 0 {
            if counted {
                self.profile_bytes -= p.profiles.bytes;
            }
            self.partitions.remove(key);
        }
        for e in &removed {
            if e.seed {
                self.seeds -= 1;
            } else {
                self.count -= 1;
                self.bytes -= e.bytes;
            }
        }
        self.release(&removed);
        removed.len()
    }

    /// The nearest past requests to `query` over `partitions` (at most `neighbours`, at least
    /// `min_similarity`), best first.
    pub fn neighbours(&mut self, partitions: &[&str], query: &Features) -> Vec<Ballot> {
        let (k, min, blend) = (self.config.neighbours, self.config.min_similarity, self.config.blend);
        let mut found: Vec<(f32, &Example)> = Vec::new();
        for key in partitions {
            if let Some(p) = self.partitions.get(*key) {
                for Hit { slot, similarity } in p.neighbours(query, k, min, blend, &mut self.scratch) {
                    found.push((similarity, p.get(slot)));
                }
            }
        }
        found.sort_by(|a, b| b.0.total_cmp(&a.0));
        found.truncate(k);
        found
            .into_iter()
            .map(|(similarity, e)| Ballot { tool: e.tool.clone(), resource: e.resource.clone(), similarity, time: e.time, seed: e.seed })
            .collect()
    }

    /// The learned votes for `query` asked by `asker` at `now`, best first (empty when no
    /// past request is similar enough).
    pub fn votes(&mut self, partitions: &[&str], asker: Option<&str>, query: &Features, now: f64) -> Vec<Vote> {
        let ballots = self.neighbours(partitions, query);
        count_votes(&ballots, asker, now, &self.config.rules)
    }

    /// The tools whose learned profile (over `partitions`) matches `query` asked by `asker`,
    /// with similarity at least `min_similarity`, best first, at most PROFILE_MATCHES (a tool
    /// in several partitions keeps its best match). Scope 'global': a profile another resource
    /// contributed to counts only with `min_resources` distinct contributors or a seed; else
    /// only the asker's own contributions are matched.
    pub fn profile_matches(&mut self, partitions: &[&str], asker: Option<&str>, query: &Features) -> Vec<ProfileHit> {
        let config = self.config;
        let trust = Trust { global: config.rules.global, min_resources: config.rules.min_resources, asker };
        let mut found: Vec<ProfileHit> = Vec::new();
        for key in partitions {
            if let Some(p) = self.partitions.get_mut(*key) {
                let seeded = *key == SEED_PARTITION;
                let (profiles, slots) = p.profiles_and_slots();
                for hit in profiles.matches(query, config.min_similarity, config.blend, trust, seeded, slots, config.rules.half_life_ms) {
                    match found.iter_mut().find(|h| h.tool == hit.tool) {
                        Some(h) if h.similarity >= hit.similarity => {}
                        Some(h) => *h = hit,
                        None => found.push(hit),
                    }
                }
            }
        }
        found.sort_by(|a, b| b.similarity.total_cmp(&a.similarity).then_with(|| a.tool.cmp(&b.tool)));
        found.truncate(PROFILE_MATCHES);
        found
    }

    /// The profile of `tool` in `partition` and the same profile rebuilt from its examples, as
    /// unit term weights (tests: incremental upkeep equals a rebuild).
    pub fn profile_check(&self, partition: &str, tool: &str) -> Option<ProfileCheck> {
        let p = self.partitions.get(partition)?;
        let kept = p.profiles.get(tool)?;
        let mut fresh = partition::Partition::default();
        for (_, e) in p.live_slots().filter(|(_, e)| &*e.tool == tool) {
            let e = e.clone();
            fresh.insert(example_key(&e.resource, &e.tool, &e.features), e, self.config.rules.half_life_ms);
        }
        let rebuilt = fresh.profiles.get(tool)?;
        Some((unit_terms(kept), unit_terms(rebuilt), kept.resources.len(), rebuilt.resources.len()))
    }

    /// Whether every partition's profiles agree with their posting lists (tests).
    pub fn profile_postings_agree(&self) -> bool {
        self.partitions.values().all(|p| p.profiles.postings_agree())
    }

    /// Forgets every learned example `resource` taught (every partition; seeds stay).
    pub fn forget_resource(&mut self, resource: &str) -> usize {
        let keys: Vec<Box<str>> = self.partitions.keys().cloned().collect();
        let mut removed = 0;
        for key in keys {
            let slots: Vec<u32> =
                self.partitions[&key].live_slots().filter(|(_, e)| !e.seed && &*e.resource == resource).map(|(s, _)| s).collect();
            if !slots.is_empty() {
                removed += self.remove_from(&key, &slots);
            }
        }
        removed
    }

    /// Forgets every learned example (seeds, which are configuration, stay).
    pub fn clear(&mut self) {
        let keys: Vec<Box<str>> = self.partitions.keys().cloned().collect();
        for key in keys {
            let slots: Vec<u32> = self.partitions[&key].live_slots().filter(|(_, e)| !e.seed).map(|(s, _)| s).collect();
            if !slots.is_empty() {
                self.remove_from(&key, &slots);
            }
        }
    }

    pub fn stats(&self) -> LearnStats {
        let mut resources: HashSet<&str> = HashSet::default();
        for p in self.partitions.values() {
            for (_, e) in p.live_slots() {
                if !e.seed {
                    resources.insert(&e.resource);
                }
            }
        }
        LearnStats { examples: self.count, seeds: self.seeds, resources: resources.len(), bytes: self.bytes + self.profile_bytes }
    }
}
