//! Native half of `learn` (js/learn/): the learned-evidence index of mastra-native-core's
//! `learn` module. One call per step: `votes` takes the request's text and returns the tools
//! with their learned confidence; the text is analysed (and, in hybrid mode, embedded with
//! the catalog's model) here and never kept.

use std::sync::Arc;

use mastra_native_core::learn::{self, Blend, Features, LearnConfig, LearnedIndex, VoteRules};
use mastra_native_core::semantic::StaticModel;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::semantic::NativeSemanticModel;

#[napi(object)]
pub struct NativeLearnOptions {
    pub global: bool,
    pub max_examples: u32,
    pub max_bytes: f64,
    /// Milliseconds; Infinity for no decay.
    pub half_life_ms: f64,
    pub min_resources: u32,
    pub min_similarity: f64,
    pub neighbours: Option<u32>,
    pub prior: Option<f64>,
    /// Weight of the model vector's similarity (hybrid mode), 0..1.
    pub vector_weight: Option<f64>,
    pub vector_floor: Option<f64>,
}

/// The learned evidence for one request, parallel arrays, best first.
#[napi(object)]
pub struct NativeVotes {
    pub tools: Vec<String>,
    pub confidences: Vec<f64>,
    /// The best similarity among each tool's voters.
    pub similarities: Vec<f64>,
    /// Distinct resources that voted for each tool.
    pub resources: Vec<u32>,
    /// The tools whose learned profile (all their past requests together) matches, best first,
    /// with the profile's similarity (at least minSimilarity).
    pub profile_tools: Vec<String>,
    pub profile_similarities: Vec<f64>,
}

#[napi(object)]
pub struct NativeLearnStats {
    pub examples: u32,
    pub seeds: u32,
    pub resources: u32,
    pub bytes: f64,
}

#[napi]
pub struct NativeLearnedIndex {
    index: LearnedIndex,
    model: Option<Arc<StaticModel>>,
}

#[napi]
impl NativeLearnedIndex {
    /// `model`: the hybrid catalog's model, whose vectors of requests are kept (int8) and compared.
    #[napi(constructor, catch_unwind)]
    pub fn new(options: NativeLearnOptions, model: Option<&NativeSemanticModel>) -> Result<Self> {
        let defaults = LearnConfig::default();
        let unit = |v: Option<f64>, name: &str, fallback: f32| -> Result<f32> {
            match v {
                None => Ok(fallback),
                Some(x) if (0.0..=1.0).contains(&x) => Ok(x as f32),
                Some(x) => Err(Error::new(Status::InvalidArg, format!("{name} must be from 0 to 1, not {x}"))),
            }
        };
        let config = LearnConfig {
            max_examples: options.max_examples.max(1) as usize,
            max_bytes: options.max_bytes.clamp(1.0, usize::MAX as f64) as usize,
            min_similarity: unit(Some(options.min_similarity), "minSimilarity", 0.0)?,
            neighbours: options.neighbours.map_or(defaults.neighbours, |n| n.clamp(1, 1000) as usize),
            rules: VoteRules {
                global: options.global,
                min_resources: options.min_resources.max(1),
                half_life_ms: options.half_life_ms,
                prior: options.prior.filter(|p| p.is_finite() && *p >= 0.0).unwrap_or(defaults.rules.prior),
            },
            blend: Blend {
                vector_weight: if model.is_some() { unit(options.vector_weight, "vectorWeight", defaults.blend.vector_weight)? } else { 0.0 },
                vector_floor: unit(options.vector_floor, "vectorFloor", defaults.blend.vector_floor)?.min(0.99),
            },
        };
        Ok(Self { index: LearnedIndex::new(config), model: model.map(|m| m.inner.clone()) })
    }

    fn features(&self, text: &str) -> Features {
        let mut f = learn::features_of(text);
        if let Some(model) = &self.model {
            f.vector = learn::quantize(&model.embed(learn::terms::head(text)));
        }
        f
    }

    /// Learns that `tool` served `text` from `resource` (in `partition`, at `time` ms); returns
    /// the example's payload for a shared store, or null when the text has nothing to keep.
    #[napi(catch_unwind)]
    pub fn add(&mut self, partition: String, resource: String, tool: String, text: String, time: f64, seed: Option<bool>) -> Option<String> {
        let f = self.features(&text);
        let payload = learn::encode_payload(&f);
        self.index.add(&partition, &resource, &tool, f, time, seed.unwrap_or(false)).then_some(payload)
    }

    /// The payload `add` would store for `text`, without learning it (null: nothing to keep).
    #[napi(catch_unwind)]
    pub fn export_example(&self, text: String) -> Option<String> {
        let f = self.features(&text);
        (!f.is_empty()).then(|| learn::encode_payload(&f))
    }

    /// Which model this index's vectors come from (hex), or null without one: a record carries
    /// it, so that another process uses the record's vector only when it has the same model.
    #[napi(getter, catch_unwind)]
    pub fn vector_model(&self) -> Option<String> {
        self.model.as_ref().map(|m| format!("{:016x}", m.fingerprint()))
    }

    /// Learns an example another process exported (a shared store's record), whose vector came
    /// from `vector_model` (its `vectorModel`); false when the payload is not one. A vector of
    /// another model (a deployment mid-upgrade, another `search.model`) is not comparable with
    /// this one's: the example keeps its terms only.
    #[napi(catch_unwind)]
    pub fn add_payload(&mut self, partition: String, resource: String, tool: String, time: f64, payload: String, seed: Option<bool>, vector_model: Option<String>) -> bool {
        match learn::decode_payload(&payload) {
            Some(mut f) => {
                if f.vector.is_some() && (vector_model.is_none() || vector_model != self.vector_model()) {
                    f.vector = None;
                }
                self.index.add(&partition, &resource, &tool, f, time, seed.unwrap_or(false))
            }
            None => false,
        }
    }

    /// The learned votes for `text` over `partitions`, asked by `resource` at `now` (ms).
    #[napi(catch_unwind)]
    pub fn votes(&mut self, partitions: Vec<String>, resource: Option<String>, text: String, now: f64) -> NativeVotes {
        let f = self.features(&text);
        let keys: Vec<&str> = partitions.iter().map(String::as_str).collect();
        let votes = if f.is_empty() { Vec::new() } else { self.index.votes(&keys, resource.as_deref(), &f, now) };
        let profiles = if f.is_empty() { Vec::new() } else { self.index.profile_matches(&keys, resource.as_deref(), &f) };
        NativeVotes {
            profile_similarities: profiles.iter().map(|p| p.similarity as f64).collect(),
            profile_tools: profiles.into_iter().map(|p| p.tool.to_string()).collect(),
            confidences: votes.iter().map(|v| v.confidence).collect(),
            similarities: votes.iter().map(|v| v.similarity).collect(),
            resources: votes.iter().map(|v| v.resources).collect(),
            tools: votes.into_iter().map(|v| v.tool).collect(),
        }
    }

    #[napi(catch_unwind)]
    pub fn forget_resource(&mut self, resource: String) -> u32 {
        self.index.forget_resource(&resource) as u32
    }

    #[napi(catch_unwind)]
    pub fn clear(&mut self) {
        self.index.clear()
    }

    #[napi(catch_unwind)]
    pub fn stats(&self) -> NativeLearnStats {
        let s = self.index.stats();
        NativeLearnStats { examples: s.examples as u32, seeds: s.seeds as u32, resources: s.resources as u32, bytes: s.bytes as f64 }
    }
}
