//! The MetaTool (ToolE) set in `data/metatool/` and realistic large catalogs made from it.
//! Shared by the examples and the pruning tests (`#[path]`-included). `bench/tool-search-realistic.mjs`
//! generates the same catalogs in JavaScript (same PRNG, same steps), so the benchmark and
//! the differential run on the same tools.
#![allow(dead_code)]

use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct Tool {
    pub id: String,
    pub description: String,
}

#[derive(Debug, Clone)]
pub struct Query {
    pub text: String,
    pub relevant: Vec<String>,
}

pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/metatool")
}

fn jsonl(name: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(data_dir().join(name)).unwrap_or_else(|e| panic!("read {name}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect()
}

/// The 199 tools and the 21,041 queries, in file order.
pub fn load() -> (Vec<Tool>, Vec<Query>) {
    let tools = jsonl("tools.jsonl")
        .into_iter()
        .map(|v| Tool {
            id: v["id"].as_str().expect("tool id").to_owned(),
            description: v["description"].as_str().unwrap_or("").to_owned(),
        })
        .collect();
    let queries = jsonl("queries.jsonl")
        .into_iter()
        .map(|v| Query {
            text: v["query"].as_str().expect("query").to_owned(),
            relevant: v["relevant"]
                .as_array()
                .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect())
                .unwrap_or_default(),
        })
        .collect();
    (tools, queries)
}

/// mulberry32, as `rng` in `bench/util.mjs`: floats in [0, 1).
pub struct Rng(u32);

impl Rng {
    pub fn new(seed: u32) -> Self {
        Self(seed)
    }
    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x6d2b_79f5);
        let s = self.0;
        let mut t = (s ^ (s >> 15)).wrapping_mul(1 | s);
        t = (t.wrapping_add((t ^ (t >> 7)).wrapping_mul(61 | t))) ^ t;
        f64::from(t ^ (t >> 14)) / 4_294_967_296.0
    }
    /// `Math.floor(r() * n)`
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() * n as f64).floor() as usize
    }
}

pub const TAGS: [&str; 16] =
    ["eu", "us", "apac", "v2", "pro", "lite", "beta", "mirror", "dev", "staging", "sandbox", "internal", "partner", "legacy", "next", "edge"];
pub const QUALIFIERS: [&str; 10] =
    ["Official", "Community", "Lite", "Pro", "Enterprise", "Beta", "Legacy", "Regional", "Open-source", "Experimental"];
pub const TAILS: [&str; 16] = [
    "Works with Slack and email.",
    "Supports CSV and PDF export.",
    "Available in English and Spanish.",
    "Requires an API key.",
    "Free tier available.",
    "Updated daily.",
    "For teams and enterprises.",
    "Includes usage analytics.",
    "Runs in the EU region.",
    "Rate limited to 60 requests per minute.",
    "Read-only access.",
    "Sandbox data only.",
    "Maintained by the community.",
    "Syncs with Google Drive.",
    "Mobile friendly.",
    "Beta: results may vary.",
];
pub const SYNONYMS: [(&str, &str); 30] = [
    ("get", "fetch"),
    ("find", "search for"),
    ("search", "look up"),
    ("create", "make"),
    ("generate", "produce"),
    ("information", "info"),
    ("data", "details"),
    ("help", "assist"),
    ("quickly", "fast"),
    ("easily", "simply"),
    ("best", "top"),
    ("online", "on the web"),
    ("your", "the user's"),
    ("plan", "organize"),
    ("explore", "browse"),
    ("discover", "find"),
    ("personalized", "tailored"),
    ("latest", "newest"),
    ("news", "headlines"),
    ("recipes", "dishes"),
    ("travel", "trips"),
    ("products", "items"),
    ("shop", "buy"),
    ("learn", "study"),
    ("music", "songs"),
    ("movies", "films"),
    ("jobs", "positions"),
    ("free", "no-cost"),
    ("real-time", "live"),
    ("and", "&"),
];

/// `n` tools: the base tools first, then copies with varied text: an id tag, and per copy
/// a dropped word, synonyms, a qualifier, a boilerplate tail and a phrase borrowed from
/// another tool, each by chance. Deterministic for a seed.
pub fn replicate(base: &[Tool], n: usize, seed: u32) -> Vec<Tool> {
    let mut r = Rng::new(seed);
    let mut out = Vec::with_capacity(n);
    for j in 0..n {
        let b = &base[j % base.len()];
        let copy = j / base.len();
        if copy == 0 {
            out.push(b.clone());
            continue;
        }
        let id = format!("{}_{}{}", b.id, TAGS[copy % TAGS.len()], copy / TAGS.len());
        let mut words: Vec<String> = b.description.split(' ').map(str::to_owned).collect();
        if words.len() > 3 && r.next() < 0.25 {
            let at = r.below(words.len());
            words.remove(at);
        }
        for w in &mut words {
            let lower = w.to_lowercase();
            if let Some((_, to)) = SYNONYMS.iter().find(|(from, _)| *from == lower) {
                if r.next() < 0.3 {
                    *w = (*to).to_owned();
                }
            }
        }
        let mut description = String::new();
        if r.next() < 0.3 {
            description.push_str(QUALIFIERS[r.below(QUALIFIERS.len())]);
            description.push_str(": ");
        }
        description.push_str(&words.join(" "));
        if r.next() < 0.6 {
            description.push(' ');
            description.push_str(TAILS[r.below(TAILS.len())]);
        }
        if r.next() < 0.35 {
            let other: Vec<&str> = base[r.below(base.len())].description.split(' ').collect();
            let span = 3 + r.below(4);
            let start = r.below(other.len().saturating_sub(span).max(1));
            let end = (start + span).min(other.len());
            description.push_str(" Similar to: ");
            description.push_str(&other[start..end].join(" "));
        }
        out.push(Tool { id, description });
    }
    out
}
