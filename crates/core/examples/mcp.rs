//! Retrieval quality on real MCP catalogs (`data/mcp`: 17 servers' tools keyed
//! `<server>_<tool>`, requests in en/zh/ja/ko split dev/test), per mode, split and language.
//!
//!     cargo run -p mastra-native-core --release --example mcp -- [--model PATH] [--misses MODE [LANG]]
//!
//! The catalog is what `bench/quality.mjs mcp` gives the processor (id = name, description, no
//! parameter text), so the rows match that benchmark's without a rebuild of the addon. Hybrid
//! uses PATH (default: the installed model package). `--misses MODE` prints the dev requests
//! MODE (compatible, enhanced, hybrid) misses at rank 1 with what compatible ranked. Tune on dev only.

use std::collections::HashMap;
use std::sync::Arc;

use mastra_native_core::catalog::{BuildOptions, CatalogSource, SearchMode, SearchParams, ToolCatalog, ToolEntry};
use mastra_native_core::semantic::StaticModel;

#[path = "support/metrics.rs"]
mod metrics;
use metrics::{header, Metrics};

const LANGS: [&str; 4] = ["en", "zh", "ja", "ko"];

fn jsonl(path: &str) -> Vec<serde_json::Value> {
    let full = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data").join(path);
    std::fs::read_to_string(&full)
        .unwrap_or_else(|e| panic!("{}: {e}", full.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

struct Query {
    text: String,
    relevant: Vec<String>,
    split: String,
    lang: String,
}

fn load() -> (Vec<(String, String)>, Vec<Query>) {
    let tools = jsonl("mcp/tools.jsonl")
        .iter()
        .map(|v| {
            let id = format!("{}_{}", v["server"].as_str().unwrap(), v["name"].as_str().unwrap());
            (id, v["description"].as_str().unwrap_or("").to_owned())
        })
        .collect();
    let queries = jsonl("mcp/queries.jsonl")
        .iter()
        .map(|v| {
            let server = v["server"].as_str().unwrap();
            Query {
                text: v["query"].as_str().unwrap().to_owned(),
                relevant: v["relevant"].as_array().unwrap().iter().map(|x| format!("{server}_{}", x.as_str().unwrap())).collect(),
                split: v["split"].as_str().unwrap().to_owned(),
                lang: v["lang"].as_str().unwrap().to_owned(),
            }
        })
        .collect();
    (tools, queries)
}

fn catalog(tools: &[(String, String)], mode: SearchMode) -> ToolCatalog {
    let entries: Vec<ToolEntry> = tools
        .iter()
        .enumerate()
        .map(|(i, (id, d))| ToolEntry { key: id.clone(), id: Some(id.clone()), description: d.clone(), handle: i as u32 })
        .collect();
    let params = vec![String::new(); entries.len()];
    let params = if matches!(mode, SearchMode::Compatible) { Vec::new() } else { params };
    ToolCatalog::build(CatalogSource::Entries { tools: entries, params }, &BuildOptions::new(mode)).expect("unvalidated build")
}

fn ranked(tools: &[(String, String)], c: &ToolCatalog, q: &str) -> Vec<(String, f64)> {
    c.search(q, SearchParams { top_k: 10, min_score: 0.0, inspect_all: false })
        .iter()
        .map(|h| (tools[h.handle as usize].0.clone(), h.score))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let model_path = args
        .iter()
        .position(|a| a == "--model")
        .map(|i| args[i + 1].clone())
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../node_modules/mastra-native-processors-model-multilingual/model.bin").to_owned());
    let (tools, queries) = load();
    let model = std::fs::read(&model_path).ok().map(|b| Arc::new(StaticModel::from_bytes(&b).expect("model")));
    let mut modes: Vec<(&str, ToolCatalog)> =
        vec![("compatible", catalog(&tools, SearchMode::Compatible)), ("enhanced", catalog(&tools, SearchMode::Enhanced))];
    if let Some(m) = &model {
        modes.push(("hybrid", catalog(&tools, SearchMode::Hybrid(m.clone()))));
    }
    if let Some(i) = args.iter().position(|a| a == "--misses") {
        let mode = args[i + 1].as_str();
        let lang = args.get(i + 2);
        let ours = &modes.iter().find(|(n, _)| *n == mode).expect("mode").1;
        let reference = &modes[0].1;
        for q in queries.iter().filter(|q| q.split == "dev" && lang.is_none_or(|l| *l == q.lang)) {
            let (a, b) = (ranked(&tools, reference, &q.text), ranked(&tools, ours, &q.text));
            if b.first().is_some_and(|(n, _)| q.relevant.contains(n)) {
                continue;
            }
            let ok_ref = a.first().is_some_and(|(n, _)| q.relevant.contains(n));
            let show = |r: &[(String, f64)]| r.iter().take(3).map(|(n, s)| format!("{n}:{s:.2}")).collect::<Vec<_>>().join(" ");
            println!("{} | {}\n   want {:?}\n   ref  {}\n   ours {}", if ok_ref { "REF-OK" } else { "both-miss" }, q.text, q.relevant, show(&a), show(&b));
        }
        return;
    }
    let mut table: HashMap<(String, String, &str), Metrics> = HashMap::new();
    for q in &queries {
        for (name, c) in &modes {
            let names: Vec<String> = ranked(&tools, c, &q.text).into_iter().map(|(n, _)| n).collect();
            for lang in [q.lang.as_str(), "all"] {
                table.entry((q.split.clone(), lang.to_owned(), name)).or_default().add(&names, &q.relevant);
            }
        }
    }
    for split in ["dev", "test"] {
        println!("\nsplit {split}\n{}", header("lang / mode"));
        for lang in LANGS.iter().copied().chain(["all"]) {
            for (name, _) in &modes {
                if let Some(m) = table.get(&(split.to_owned(), lang.to_owned(), name)) {
                    println!("{}", m.row(&format!("{lang:<4} {name}")));
                }
            }
        }
    }
}
