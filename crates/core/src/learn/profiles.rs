//! Per-tool learned profiles of one partition: a tool's past requests TOGETHER describe it (the
//! words they share are its topic), which single neighbours do not (near-duplicate tools'
//! requests vote noisily). A profile is the sum of its examples' term weights (TF-IDF cosine
//! over profiles, idf across the partition's profiles) and of their unit int8 vectors (cosine to
//! the request's vector). Each example weighs (1 + ln uses) × decay; kept incrementally on
//! add, merge and removal (contributions are subtracted), rebuilt from the examples now and then
//! so float drift never accumulates.
//!
//! Decay: a contribution is stored as (1 + ln uses) × 2^((time − epoch) / half-life) with a
//! per-profile epoch: multiplying every contribution of a profile by one factor changes no
//! cosine, so nothing has to be re-scaled as time passes (the epoch moves on a rebuild).

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::partition::{Blend, Example};
use super::terms::{dot_f32, dot_i8};

/// Pseudo-count of profiles lacking every term (as `Partition::idf` for examples).
const IDF_PSEUDO: usize = 10;
/// A term in more profiles than this (a word most tools' requests use) finds no candidates: it
/// only adds to the profiles the rarer terms found (the cost bound at 10,000 tools).
const MAX_WALKED_PROFILES: usize = 128;
/// Partitions with up to this many profiles compare every profile's vector; larger ones only
/// their best lexical candidates (the cost bound at 10,000 tools).
const VECTOR_SCAN_MAX: usize = 2048;
const VECTOR_RESCORED: usize = 32;
/// A profile whose contributions' exponent passes this is rebuilt with a later epoch (f32 range).
const MAX_EXPONENT: f64 = 40.0;

#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub tool: Option<Arc<str>>,
    /// The examples (slots of the partition) that made it.
    pub slots: Vec<u32>,
    /// term -> its summed weight, examples with it, and where the profile is in its postings
    pub terms: HashMap<u32, TermWeight>,
    /// Sum of the examples' unit vectors × weight (empty when none had a vector).
    pub vector: Vec<f32>,
    pub vector_examples: u32,
    /// Examples per contributing resource (the tenancy rule counts distinct resources).
    pub resources: HashMap<Arc<str>, u32>,
    pub seeds: u32,
    epoch: f64,
    /// Incremental updates since the last rebuild.
    updates: usize,
    /// TF-IDF norm (refreshed on every update and as the profile count moves).
    norm: f32,
    vector_norm: f32,
    /// What it costs in memory, as last estimated (see `estimate_bytes`).
    bytes: usize,
}

/// A term of a profile.
#[derive(Debug, Clone, Copy)]
pub struct TermWeight {
    pub weight: f32,
    pub examples: u32,
    /// The profile's index in the term's posting list (kept as entries move).
    at: u32,
}

/// Bytes a profile costs beyond its terms, vector, slots and resources (the struct, maps, the tool).
const PROFILE_OVERHEAD_BYTES: usize = 256;
/// A term's entry in a profile's map (key, weight, count, posting index) and in the postings
/// (profile, weight), with table slack.
const PROFILE_TERM_BYTES: usize = 36;
const PROFILE_RESOURCE_BYTES: usize = 32;

/// What `p` costs in memory, roughly (counted against `maxBytes` with the examples).
fn estimate_bytes(p: &Profile) -> usize {
    PROFILE_OVERHEAD_BYTES
        + p.terms.len() * PROFILE_TERM_BYTES
        + p.vector.capacity() * 4
        + p.slots.capacity() * 4
        + p.resources.len() * PROFILE_RESOURCE_BYTES
}

/// The tenancy rules a profile match is checked against.
#[derive(Debug, Clone, Copy)]
pub struct Trust<'a> {
    pub global: bool,
    pub min_resources: u32,
    pub asker: Option<&'a str>,
}

/// One tool's profile match in a partition.
#[derive(Debug, Clone)]
pub struct ProfileHit {
    pub tool: Arc<str>,
    pub similarity: f32,
    /// Distinct resources (seeds as one) that contributed.
    pub resources: u32,
}

#[derive(Debug, Default)]
pub struct Profiles {
    pub list: Vec<Profile>,
    free: Vec<u32>,
    by_tool: HashMap<Arc<str>, u32>,
    /// term -> (profile, its weight of the term) for the profiles holding it; the weight is
    /// a copy of the profile's, so that a search reads it without a lookup per profile
    postings: HashMap<u32, Vec<(u32, f32)>>,
    pub live: usize,
    norms_at: usize,
    acc: Vec<f32>,
    seen: Vec<bool>,
    /// The live profiles' estimated bytes.
    pub bytes: usize,
}

/// An example's weight in its profile relative to `epoch`.
fn contribution(e: &Example, epoch: f64, half_life_ms: f64) -> f64 {
    let base = 1.0 + (e.uses.max(1) as f64).ln();
    if e.seed || !(half_life_ms.is_finite() && half_life_ms > 0.0) {
        return base;
    }
    base * ((e.time - epoch) / half_life_ms).exp2()
}

impl Profiles {
    fn idf(&self, term: u32) -> f32 {
        let df = self.postings.get(&term).map_or(0, Vec::len);
        (1.0 + (self.live + IDF_PSEUDO) as f32 / (df + 1) as f32).ln()
    }

    fn refresh_norm(&mut self, id: u32) {
        let p = &self.list[id as usize];
        let mut sum = 0f32;
        for (&t, tw) in &p.terms {
            let x = tw.weight * self.idf(t);
            sum += x * x;
        }
        let vector_norm = p.vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        let p = &mut self.list[id as usize];
        p.norm = sum.sqrt();
        p.vector_norm = vector_norm;
    }

    fn refresh_all_norms(&mut self) {
        for id in 0..self.list.len() as u32 {
            if self.list[id as usize].tool.is_some() {
                self.refresh_norm(id);
            }
        }
        self.norms_at = self.live;
    }

    fn profile_of(&mut self, tool: &Arc<str>, time: f64) -> u32 {
        if let Some(&id) = self.by_tool.get(tool) {
            return id;
        }
        let profile = Profile { tool: Some(tool.clone()), epoch: time, ..Profile::default() };
        let id = match self.free.pop() {
            Some(id) => {
                self.list[id as usize] = profile;
                id
            }
            None => {
                self.list.push(profile);
                (self.list.len() - 1) as u32
            }
        };
        self.by_tool.insert(tool.clone(), id);
        self.live += 1;
        id
    }

    /// Takes entry `at` out of `term`'s posting list (the last entry moves into its place, and
    /// its profile learns where it went).
    fn unpost(list: &mut [Profile], postings: &mut HashMap<u32, Vec<(u32, f32)>>, term: u32, at: u32) {
        let Some(entries) = postings.get_mut(&term) else { return };
        entries.swap_remove(at as usize);
        if let Some(&(moved, _)) = entries.get(at as usize) {
            if let Some(tw) = list[moved as usize].terms.get_mut(&term) {
                tw.at = at;
            }
        }
        if entries.is_empty() {
            postings.remove(&term);
        }
    }

    /// Takes profile `id` out of the posting lists of all its terms.
    fn unpost_all(&mut self, id: u32) {
        let held: Vec<(u32, u32)> = self.list[id as usize].terms.iter().map(|(&t, tw)| (t, tw.at)).collect();
        for (t, at) in held {
            Self::unpost(&mut self.list, &mut self.postings, t, at);
        }
    }

    /// Adds (`sign` 1) or subtracts (-1) `e`'s contribution to profile `id`.
    fn apply(&mut self, id: u32, e: &Example, sign: f32, half_life_ms: f64) {
        let Profiles { list, postings, .. } = self;
        let p = &mut list[id as usize];
        let w = contribution(e, p.epoch, half_life_ms) as f32 * sign;
        // (each request's terms as a unit vector: a long request weighs no more than a short one)
        let tf_of = |c: u16| 1.0 + (c as f32).ln();
        let tf_norm = e.features.counts.iter().map(|&c| tf_of(c) * tf_of(c)).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
        let mut gone: Vec<(u32, u32)> = Vec::new();
        for (i, &t) in e.features.terms.iter().enumerate() {
            let tf = tf_of(e.features.counts[i]) / tf_norm;
            let entry = p.terms.entry(t).or_insert(TermWeight { weight: 0.0, examples: 0, at: u32::MAX });
            entry.weight += w * tf;
            if sign > 0.0 {
                entry.examples += 1;
                if entry.examples == 1 {
                    let entries = postings.entry(t).or_default();
                    entry.at = entries.len() as u32;
                    entries.push((id, entry.weight));
                    continue;
                }
            } else {
                entry.examples -= 1;
                if entry.examples == 0 {
                    gone.push((t, entry.at));
                    p.terms.remove(&t);
                    continue;
                }
            }
            if let Some(slot) = postings.get_mut(&t).and_then(|entries| entries.get_mut(entry.at as usize)) {
                slot.1 = entry.weight;
            }
        }
        for (t, at) in gone {
            Self::unpost(list, postings, t, at);
        }
        let p = &mut list[id as usize];
        if let Some(v) = &e.features.vector {
            if e.vector_norm > 0.0 {
                if p.vector.is_empty() {
                    p.vector = vec![0.0; v.len()];
                }
                if p.vector.len() == v.len() {
                    let scale = w / e.vector_norm;
                    for (s, &x) in p.vector.iter_mut().zip(v) {
                        *s += scale * x as f32;
                    }
                    if sign > 0.0 {
                        p.vector_examples += 1;
                    } else {
                        p.vector_examples -= 1;
                        if p.vector_examples == 0 {
                            p.vector.clear();
                        }
                    }
                }
            }
        }
        let resource = e.resource.clone();
        if sign > 0.0 {
            *p.resources.entry(resource).or_insert(0) += 1;
            p.seeds += e.seed as u32;
        } else {
            if let Some(n) = p.resources.get_mut(&resource) {
                *n -= 1;
                if *n == 0 {
                    p.resources.remove(&resource);
                }
            }
            p.seeds -= e.seed as u32;
        }
        p.updates += 1;
    }

    /// Rebuilds profile `id` from its examples with the latest example's time as the epoch.
    fn rebuild(&mut self, id: u32, slots: &[Option<Example>], half_life_ms: f64) {
        let members = std::mem::take(&mut self.list[id as usize].slots);
        self.unpost_all(id);
        let p = &mut self.list[id as usize];
        let epoch = members.iter().filter_map(|&s| slots[s as usize].as_ref()).map(|e| e.time).fold(f64::NEG_INFINITY, f64::max);
        // (the estimate stays the one `Profiles::bytes` holds until `settle` re-estimates it)
        *p = Profile { tool: p.tool.take(), epoch: if epoch.is_finite() { epoch } else { 0.0 }, bytes: p.bytes, ..Profile::default() };
        for &s in &members {
            if let Some(e) = &slots[s as usize] {
                self.apply(id, e, 1.0, half_life_ms);
            }
        }
        let p = &mut self.list[id as usize];
        p.slots = members;
        p.updates = 0;
    }

    fn settle(&mut self, id: u32, slots: &[Option<Example>], half_life_ms: f64) {
        let p = &self.list[id as usize];
        if p.updates > 2 * p.slots.len() + 16 {
            self.rebuild(id, slots, half_life_ms);
        }
        let p = &mut self.list[id as usize];
        let bytes = estimate_bytes(p);
        self.bytes = self.bytes + bytes - p.bytes;
        p.bytes = bytes;
        self.refresh_norm(id);
        if self.live * 4 > self.norms_at * 5 || self.live * 5 < self.norms_at * 4 {
            self.refresh_all_norms();
        }
    }

    /// The example in `slot` (already stored in `slots`) joins its tool's profile.
    pub fn add(&mut self, slot: u32, slots: &[Option<Example>], half_life_ms: f64) {
        let e = slots[slot as usize].as_ref().expect("a live slot");
        let id = self.profile_of(&e.tool, e.time);
        let p = &self.list[id as usize];
        if half_life_ms.is_finite() && half_life_ms > 0.0 && !e.seed && (e.time - p.epoch) / half_life_ms > MAX_EXPONENT {
            self.list[id as usize].slots.push(slot);
            self.rebuild(id, slots, half_life_ms);
        } else {
            self.apply(id, e, 1.0, half_life_ms);
            self.list[id as usize].slots.push(slot);
        }
        self.settle(id, slots, half_life_ms);
    }

    /// `old` (the example before a merge changed its uses and time) leaves its profile and
    /// the example now in `slot` joins it.
    pub fn replace(&mut self, slot: u32, old: &Example, slots: &[Option<Example>], half_life_ms: f64) {
        let Some(&id) = self.by_tool.get(&old.tool) else { return };
        self.apply(id, old, -1.0, half_life_ms);
        let e = slots[slot as usize].as_ref().expect("a live slot");
        if !e.seed && half_life_ms.is_finite() && half_life_ms > 0.0 && (e.time - self.list[id as usize].epoch) / half_life_ms > MAX_EXPONENT {
            self.rebuild(id, slots, half_life_ms);
        } else {
            self.apply(id, e, 1.0, half_life_ms);
        }
        self.settle(id, slots, half_life_ms);
    }

    /// `removed` (taken out of `slot`s) leave their profiles.
    pub fn remove(&mut self, removed: &[(u32, Example)], slots: &[Option<Example>], half_life_ms: f64) {
        let mut touched: Vec<u32> = Vec::new();
        for (slot, e) in removed {
            let Some(&id) = self.by_tool.get(&e.tool) else { continue };
            self.apply(id, e, -1.0, half_life_ms);
            self.list[id as usize].slots.retain(|s| s != slot);
            if self.list[id as usize].slots.is_empty() {
                // (exactly empty: no float residue left behind)
                self.unpost_all(id);
                let p = &self.list[id as usize];
                self.by_tool.remove(&e.tool);
                self.bytes -= p.bytes;
                self.list[id as usize] = Profile::default();
                self.free.push(id);
                self.live -= 1;
            } else if !touched.contains(&id) {
                touched.push(id);
            }
        }
        for id in touched {
            if self.list[id as usize].tool.is_some() {
                self.settle(id, slots, half_life_ms);
            }
        }
        if self.live * 4 > self.norms_at * 5 || self.live * 5 < self.norms_at * 4 {
            self.refresh_all_norms();
        }
    }

    /// Whether every profile's terms and the posting lists agree entry for entry (tests: the
    /// lists a search walks hold exactly the profiles' weights through every update).
    pub fn postings_agree(&self) -> bool {
        let mut entries = 0;
        for (id, p) in self.list.iter().enumerate() {
            for (t, tw) in &p.terms {
                let posted = self.postings.get(t).and_then(|list| list.get(tw.at as usize));
                if posted != Some(&(id as u32, tw.weight)) {
                    return false;
                }
                entries += 1;
            }
        }
        entries == self.postings.values().map(Vec::len).sum::<usize>()
    }

    /// The profile of `tool`, if any (tests compare it with a rebuild).
    pub fn get(&self, tool: &str) -> Option<&Profile> {
        self.by_tool.get(tool).map(|&id| &self.list[id as usize])
    }

    /// The profiles matching `query` (terms and optional int8 vector) with similarity at least
    /// `min`, under the tenancy rules (`seeded`: the seed partition, trusted whole).
    #[allow(clippy::too_many_arguments)]
    pub fn matches(
        &mut self,
        query: &super::Features,
        min: f32,
        blend: Blend,
        trust: Trust,
        seeded: bool,
        slots: &[Option<Example>],
        half_life_ms: f64,
    ) -> Vec<ProfileHit> {
        if self.live == 0 {
            return Vec::new();
        }
        if self.acc.len() < self.list.len() {
            self.acc.resize(self.list.len(), 0.0);
            self.seen.resize(self.list.len(), false);
        }
        let mut touched: Vec<u32> = Vec::new();
        let mut qnorm = 0f32;
        let mut weighted: Vec<(f32, u32)> = Vec::new();
        for (i, &t) in query.terms.iter().enumerate() {
            let w = (1.0 + (query.counts[i] as f32).ln()) * self.idf(t);
            qnorm += w * w;
            if self.postings.contains_key(&t) {
                weighted.push((w, t));
            }
        }
        let qnorm = qnorm.sqrt();
        // rarest first: the common terms then only add to the candidates found
        weighted.sort_unstable_by_key(|&(_, t)| (self.postings[&t].len(), t));
        for &(qw, t) in &weighted {
            let list = &self.postings[&t];
            let qw = qw * self.idf(t);
            if list.len() > MAX_WALKED_PROFILES {
                for &id in &touched {
                    let w = self.list[id as usize].terms.get(&t).map_or(0.0, |tw| tw.weight);
                    self.acc[id as usize] += qw * w;
                }
                continue;
            }
            for &(id, w) in list {
                if !self.seen[id as usize] {
                    self.seen[id as usize] = true;
                    touched.push(id);
                }
                self.acc[id as usize] += qw * w;
            }
        }
        let qvec = query.vector.as_ref().filter(|_| blend.vector_weight > 0.0);
        let qvnorm = qvec.map_or(0.0, |v| (dot_i8(v, v) as f32).sqrt());
        let qf: Vec<f32> = qvec.map_or_else(Vec::new, |v| v.iter().map(|&x| x as f32).collect());
        if qvec.is_some() && qvnorm > 0.0 {
            if self.live <= VECTOR_SCAN_MAX {
                for (id, p) in self.list.iter().enumerate() {
                    if p.tool.is_some() && !p.vector.is_empty() && !self.seen[id] {
                        self.seen[id] = true;
                        touched.push(id as u32);
                    }
                }
            } else if touched.len() > VECTOR_RESCORED {
                // (each candidate's lexical cosine once: the selection then compares plain keys)
                let mut order: Vec<(f32, u32)> =
                    touched.iter().map(|&id| (self.acc[id as usize] / self.list[id as usize].norm.max(f32::MIN_POSITIVE), id)).collect();
                order.select_nth_unstable_by(VECTOR_RESCORED, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                for &(_, id) in &order[VECTOR_RESCORED..] {
                    self.acc[id as usize] = 0.0;
                    self.seen[id as usize] = false;
                }
                touched.clear();
                touched.extend(order[..VECTOR_RESCORED].iter().map(|&(_, id)| id));
            }
        }
        let similarity_of = |dot: f32, norm: f32, vector: &[f32], vnorm: f32| -> f32 {
            let lexical = if qnorm > 0.0 && norm > 0.0 { (dot / (qnorm * norm)).min(1.0) } else { 0.0 };
            match qvec {
                Some(_) if qvnorm > 0.0 && vnorm > 0.0 && vector.len() == qf.len() => {
                    let d = dot_f32(vector, &qf);
                    let cos = d / (qvnorm * vnorm);
                    let v = ((cos - blend.vector_floor) / (1.0 - blend.vector_floor)).clamp(0.0, 1.0);
                    (1.0 - blend.vector_weight) * lexical + blend.vector_weight * v
                }
                _ => lexical,
            }
        };
        let mut hits = Vec::new();
        for &id in &touched {
            let dot = std::mem::take(&mut self.acc[id as usize]);
            self.seen[id as usize] = false;
            let p = &self.list[id as usize];
            let Some(tool) = &p.tool else { continue };
            let trusted = seeded || !trust.global || p.seeds > 0 || p.resources.len() as u32 >= trust.min_resources;
            let similarity = if trusted {
                similarity_of(dot, p.norm, &p.vector, p.vector_norm)
            } else {
                // Only the asker's own contributions count: a profile of them alone.
                let Some(asker) = trust.asker else { continue };
                if !p.resources.contains_key(asker) {
                    continue;
                }
                let own = self.own_profile(p, asker, slots, half_life_ms);
                let mut dot = 0f32;
                let mut norm = 0f32;
                for (&t, tw) in &own.terms {
                    let x = tw.weight * self.idf(t);
                    norm += x * x;
                }
                for &(qw, t) in &weighted {
                    dot += qw * self.idf(t) * own.terms.get(&t).map_or(0.0, |tw| tw.weight);
                }
                let vnorm = own.vector.iter().map(|x| x * x).sum::<f32>().sqrt();
                similarity_of(dot, norm.sqrt(), &own.vector, vnorm)
            };
            if similarity >= min && similarity > 0.0 {
                hits.push(ProfileHit { tool: tool.clone(), similarity, resources: p.resources.len() as u32 });
            }
        }
        hits.sort_unstable_by(|a, b| b.similarity.total_cmp(&a.similarity).then_with(|| a.tool.cmp(&b.tool)));
        hits
    }

    /// The part of profile `p` that `asker` contributed, built afresh (rare: an untrusted tool).
    fn own_profile(&self, p: &Profile, asker: &str, slots: &[Option<Example>], half_life_ms: f64) -> Profile {
        let mut own = Profiles::default();
        let mut copy: Vec<Option<Example>> = Vec::new();
        for &s in &p.slots {
            if let Some(e) = &slots[s as usize] {
                if &*e.resource == asker {
                    copy.push(Some(e.clone()));
                }
            }
        }
        for slot in 0..copy.len() as u32 {
            let e = copy[slot as usize].as_ref().expect("copied");
            let id = own.profile_of(&e.tool, e.time);
            own.apply(id, e, 1.0, half_life_ms);
        }
        own.list.pop().unwrap_or_default()
    }
}

/// `p`'s term weights scaled to unit length (a profile's scale is arbitrary: its epoch).
pub fn unit_terms(p: &Profile) -> Vec<(u32, f32)> {
    let norm = p.terms.values().map(|tw| tw.weight * tw.weight).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
    let mut out: Vec<(u32, f32)> = p.terms.iter().map(|(&t, tw)| (t, tw.weight / norm)).collect();
    out.sort_unstable_by_key(|&(t, _)| t);
    out
}
