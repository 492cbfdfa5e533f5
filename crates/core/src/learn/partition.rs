//! One partition of learned examples (a resource's, the deployment's, or the seeds) and its
//! neighbour search: an inverted index over hashed terms with precomputed TF-IDF norms, and
//! for examples that carry a model vector, the vector's cosine blended in.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::profiles::Profiles;
use super::terms::{dot_i8, Features};

/// Of a posting list longer than this (a term in very many past requests) only its most recent
/// entries are walked: the whole list would touch most examples and says little about which
/// one is near (the cost bound at 100,000 examples).
const MAX_WALKED_POSTINGS: usize = 512;
/// Partitions up to this size are scanned whole by vector (paraphrases and other languages
/// share no term); larger ones re-score their best lexical candidates only (the cost bound).
pub const VECTOR_SCAN_MAX: usize = 2048;
/// Pseudo-count of past requests lacking every term (see `Partition::idf`).
const IDF_PSEUDO: usize = 10;
/// Lexical candidates re-scored with the vector in a larger partition.
const VECTOR_RESCORED: usize = 64;

#[derive(Debug, Clone)]
pub struct Example {
    pub tool: Arc<str>,
    pub resource: Arc<str>,
    pub features: Features,
    pub uses: u32,
    pub time: f64,
    pub seed: bool,
    /// The vector's norm (the TF-IDF norm of the terms is `Partition::norms`).
    pub vector_norm: f32,
    pub bytes: usize,
}

/// One neighbour found: the example's slot and its similarity to the request.
#[derive(Debug, Clone, Copy)]
pub struct Hit {
    pub slot: u32,
    pub similarity: f32,
}

/// How the lexical and the vector similarity are combined.
#[derive(Debug, Clone, Copy)]
pub struct Blend {
    /// Weight of the vector similarity when both sides have a vector (0: lexical only).
    pub vector_weight: f32,
    /// Cosine of two unrelated requests, mapped to 0 (the model's cosines are not centred at 0).
    pub vector_floor: f32,
}

#[derive(Debug, Default)]
pub struct Partition {
    pub slots: Vec<Option<Example>>,
    /// TF-IDF norm of each slot's terms (0 when free), refreshed as the partition grows; dense
    /// beside `slots` so that a neighbour search reads norms without touching the examples.
    norms: Vec<f32>,
    free: Vec<u32>,
    /// term -> (slot, 1 + ln count), in insertion order (the most recent last)
    postings: HashMap<u32, Vec<(u32, f32)>>,
    /// hash of (resource, tool, terms, counts) -> slot, to merge repeats
    by_key: HashMap<u64, u32>,
    pub live: usize,
    /// `live` when the norms were last computed (idf moves as the partition grows)
    norms_at: usize,
    /// The per-tool profiles of the examples (kept in step with them).
    pub profiles: Profiles,
}

pub fn example_key(resource: &str, tool: &str, f: &Features) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    resource.hash(&mut h);
    tool.hash(&mut h);
    f.terms.hash(&mut h);
    f.counts.hash(&mut h);
    h.finish()
}

impl Partition {
    /// Smoothed idf: as if IDF_PSEUDO more past requests lacked every term, so that in a small
    /// partition the words all of one tool's requests share (its topic) are not discounted
    /// to nothing; in a large one the pseudo-count vanishes.
    fn idf(&self, term: u32) -> f32 {
        let df = self.postings.get(&term).map_or(0, Vec::len);
        (1.0 + (self.live + IDF_PSEUDO) as f32 / (df + 1) as f32).ln()
    }

    fn norm_of(&self, f: &Features) -> f32 {
        let mut sum = 0f32;
        for (i, &t) in f.terms.iter().enumerate() {
            let w = (1.0 + (f.counts[i] as f32).ln()) * self.idf(t);
            sum += w * w;
        }
        sum.sqrt()
    }

    /// The slot of the same resource's same request for the same tool, if kept.
    pub fn find(&self, key: u64, resource: &str, tool: &str, f: &Features) -> Option<u32> {
        let slot = *self.by_key.get(&key)?;
        let e = self.slots[slot as usize].as_ref()?;
        (&*e.resource == resource && &*e.tool == tool && e.features.terms == f.terms && e.features.counts == f.counts).then_some(slot)
    }

    /// Stores `example` (its profile follows; `half_life_ms` weighs its contribution).
    pub fn insert(&mut self, key: u64, mut example: Example, half_life_ms: f64) -> u32 {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(None);
                self.norms.push(0.0);
                (self.slots.len() - 1) as u32
            }
        };
        for (i, &t) in example.features.terms.iter().enumerate() {
            self.postings.entry(t).or_default().push((slot, 1.0 + (example.features.counts[i] as f32).ln()));
        }
        self.live += 1;
        self.norms[slot as usize] = self.norm_of(&example.features);
        example.vector_norm = example.features.vector.as_ref().map_or(0.0, |v| (dot_i8(v, v) as f32).sqrt());
        self.slots[slot as usize] = Some(example);
        self.by_key.insert(key, slot);
        // (norms drift as idf moves: refresh them all when the partition grew or shrank by a
        // quarter, which amortises to a constant per insert)
        if self.live * 4 > self.norms_at * 5 || self.live * 5 < self.norms_at * 4 {
            self.refresh_norms();
        }
        self.profiles.add(slot, &self.slots, half_life_ms);
        slot
    }

    /// A later repeat of the example in `slot`: uses + 1, time = `time` (its profile follows).
    pub fn merge(&mut self, slot: u32, time: f64, half_life_ms: f64) {
        let old = self.get(slot).clone();
        let e = self.get_mut(slot);
        e.uses = e.uses.saturating_add(1);
        e.time = e.time.max(time);
        self.profiles.replace(slot, &old, &self.slots, half_life_ms);
    }

    fn refresh_norms(&mut self) {
        self.norms = self.slots.iter().map(|s| s.as_ref().map_or(0.0, |e| self.norm_of(&e.features))).collect();
        self.norms_at = self.live;
    }

    /// Removes the slots (already known to be live); the postings are rebuilt once.
    pub fn remove_many(&mut self, slots: &[u32], half_life_ms: f64) -> Vec<Example> {
        let mut taken = Vec::with_capacity(slots.len());
        for &slot in slots {
            if let Some(e) = self.slots[slot as usize].take() {
                self.norms[slot as usize] = 0.0;
                self.by_key.remove(&example_key(&e.resource, &e.tool, &e.features));
                self.free.push(slot);
                self.live -= 1;
                taken.push((slot, e));
            }
        }
        if taken.is_empty() {
            return Vec::new();
        }
        self.profiles.remove(&taken, &self.slots, half_life_ms);
        let out: Vec<Example> = taken.into_iter().map(|(_, e)| e).collect();
        let slots = &self.slots;
        if out.len() * 8 < self.live {
            // few: fix only their terms' lists
            for e in &out {
                for t in &e.features.terms {
                    if let Some(list) = self.postings.get_mut(t) {
                        list.retain(|&(s, _)| slots[s as usize].is_some());
                        if list.is_empty() {
                            self.postings.remove(t);
                        }
                    }
                }
            }
        } else {
            self.postings.retain(|_, list| {
                list.retain(|&(s, _)| slots[s as usize].is_some());
                !list.is_empty()
            });
        }
        out
    }

    pub fn profiles_and_slots(&mut self) -> (&mut Profiles, &[Option<Example>]) {
        (&mut self.profiles, &self.slots)
    }

    pub fn get(&self, slot: u32) -> &Example {
        self.slots[slot as usize].as_ref().expect("a live slot")
    }

    pub fn get_mut(&mut self, slot: u32) -> &mut Example {
        self.slots[slot as usize].as_mut().expect("a live slot")
    }

    pub fn live_slots(&self) -> impl Iterator<Item = (u32, &Example)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| s.as_ref().map(|e| (i as u32, e)))
    }

    /// The `k` examples most similar to `query` with similarity at least `min`, best first.
    /// `scratch` is a reusable accumulator (grown to the slot count, left zeroed).
    pub fn neighbours(&self, query: &Features, k: usize, min: f32, blend: Blend, scratch: &mut Scratch) -> Vec<Hit> {
        if self.live == 0 || k == 0 {
            return Vec::new();
        }
        scratch.prepare(self.slots.len());
        // Lexical: accumulate q·e over the postings, rarest term first.
        let mut qnorm = 0f32;
        let mut weighted: Vec<(usize, u32, f32)> = Vec::with_capacity(query.terms.len());
        for (i, &t) in query.terms.iter().enumerate() {
            let tf = 1.0 + (query.counts[i] as f32).ln();
            let w = tf * self.idf(t);
            qnorm += w * w;
            if let Some(list) = self.postings.get(&t) {
                // (q·e adds tf_q·idf · tf_e·idf: the idf once more when walking)
                weighted.push((list.len(), t, w));
            }
        }
        let qnorm = qnorm.sqrt();
        weighted.sort_unstable_by_key(|&(df, t, _)| (df, t));
        for &(_, t, qw) in &weighted {
            let list = &self.postings[&t];
            let qw = qw * self.idf(t);
            for &(slot, tf) in &list[list.len().saturating_sub(MAX_WALKED_POSTINGS)..] {
                scratch.add(slot, qw * tf);
            }
        }
        let qvec = query.vector.as_ref().filter(|_| blend.vector_weight > 0.0);
        let qvnorm = qvec.map_or(0.0, |v| (dot_i8(v, v) as f32).sqrt());
        if qvec.is_some() && qvnorm > 0.0 {
            if self.live <= VECTOR_SCAN_MAX {
                // small: every example with a vector is a candidate (requests sharing no term meet)
                for (slot, e) in self.live_slots() {
                    if e.features.vector.is_some() {
                        scratch.touch(slot);
                    }
                }
            } else if scratch.touched.len() > VECTOR_RESCORED {
                // large: only the best lexical candidates are re-scored
                // (each candidate's lexical cosine once: the selection then compares plain keys)
                let mut order: Vec<(f32, u32)> =
                    scratch.touched.iter().map(|&s| (scratch.acc[s as usize] / self.norms[s as usize].max(f32::MIN_POSITIVE), s)).collect();
                order.select_nth_unstable_by(VECTOR_RESCORED, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                for &(_, s) in &order[VECTOR_RESCORED..] {
                    scratch.acc[s as usize] = 0.0;
                    scratch.seen[s as usize] = false;
                }
                scratch.touched.clear();
                scratch.touched.extend(order[..VECTOR_RESCORED].iter().map(|&(_, s)| s));
            }
        }
        let mut hits: Vec<Hit> = Vec::new();
        for &slot in &scratch.touched {
            let (dot, norm) = (scratch.acc[slot as usize], self.norms[slot as usize]);
            let lexical = if qnorm > 0.0 && norm > 0.0 { (dot / (qnorm * norm)).min(1.0) } else { 0.0 };
            // (the example itself is read only to compare vectors)
            let similarity = match qvec.filter(|_| qvnorm > 0.0) {
                Some(q) => {
                    let e = self.get(slot);
                    match &e.features.vector {
                        Some(v) if e.vector_norm > 0.0 => {
                            let cos = dot_i8(q, v) as f32 / (qvnorm * e.vector_norm);
                            let vector = ((cos - blend.vector_floor) / (1.0 - blend.vector_floor)).clamp(0.0, 1.0);
                            (1.0 - blend.vector_weight) * lexical + blend.vector_weight * vector
                        }
                        _ => lexical,
                    }
                }
                None => lexical,
            };
            if similarity >= min && similarity > 0.0 {
                hits.push(Hit { slot, similarity });
            }
        }
        scratch.reset();
        let best_first = |a: &Hit, b: &Hit| b.similarity.total_cmp(&a.similarity).then(a.slot.cmp(&b.slot));
        if hits.len() > k {
            hits.select_nth_unstable_by(k, best_first);
            hits.truncate(k);
        }
        hits.sort_unstable_by(best_first);
        hits
    }
}

/// A dense accumulator over slots with the list of touched ones (no allocation per request).
#[derive(Debug, Default)]
pub struct Scratch {
    acc: Vec<f32>,
    seen: Vec<bool>,
    touched: Vec<u32>,
}

impl Scratch {
    fn prepare(&mut self, slots: usize) {
        if self.acc.len() < slots {
            self.acc.resize(slots, 0.0);
            self.seen.resize(slots, false);
        }
    }

    fn touch(&mut self, slot: u32) {
        if !self.seen[slot as usize] {
            self.seen[slot as usize] = true;
            self.touched.push(slot);
        }
    }

    fn add(&mut self, slot: u32, value: f32) {
        self.touch(slot);
        self.acc[slot as usize] += value;
    }

    fn reset(&mut self) {
        for &s in &self.touched {
            self.acc[s as usize] = 0.0;
            self.seen[s as usize] = false;
        }
        self.touched.clear();
    }
}
