//! Retrieval quality on real MCP catalogs (`data/mcp`: 17 servers' tools keyed
//! `<server>_<tool>`, requests in en/zh/ja/ko split dev/test), per mode, split and language.
//!
//!     cargo run -p mastra-native-core --release --example mcp -- [--model PATH] [--misses MODE [LANG]]
//!
//! The catalog is what `bench/quality.mjs mcp` gives the processor (id = name, description, the
//! parameter text of each tool's JSON Schema; `MCP_PARAMS=0`: none), so the rows match that
//! benchmark's without a rebuild of the addon. `MCP_DUMP=MODE` prints MODE's dev requests with
//! their recall@5 and top 5 on stderr. Hybrid
//! uses PATH (default: the installed model package). `--misses MODE` prints the dev requests
//! MODE (compatible, enhanced, hybrid) misses at rank 1 with what compatible ranked. Tune on dev only.

use std::collections::HashMap;
use std::sync::Arc;

use mastra_native_core::catalog::{
    BuildOptions, CatalogSource, SearchMode, SearchParams, ToolCatalog, ToolEntry,
};
use mastra_native_core::enhanced::{EnhancedIndex, Field, FieldDoc, Tuning};
use mastra_native_core::semantic::StaticModel;

#[path = "support/metatool.rs"]
mod metatool;
#[path = "support/metrics.rs"]
mod metrics;
use metrics::{header, Metrics};

const LANGS: [&str; 4] = ["en", "zh", "ja", "ko"];

fn jsonl(path: &str) -> Vec<serde_json::Value> {
    let full = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(path);
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
            let id = format!(
                "{}_{}",
                v["server"].as_str().unwrap(),
                v["name"].as_str().unwrap()
            );
            (id, v["description"].as_str().unwrap_or("").to_owned())
        })
        .collect();
    let queries = jsonl("mcp/queries.jsonl")
        .iter()
        .map(|v| {
            let server = v["server"].as_str().unwrap();
            Query {
                text: v["query"].as_str().unwrap().to_owned(),
                relevant: v["relevant"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| format!("{server}_{}", x.as_str().unwrap()))
                    .collect(),
                split: v["split"].as_str().unwrap().to_owned(),
                lang: v["lang"].as_str().unwrap().to_owned(),
            }
        })
        .collect();
    (tools, queries)
}

/// Each tool's parameter text as the processor builds it from a plain JSON Schema
/// (`name: description` per top-level property, one a line; js/tool-search/catalog.js).
fn param_texts() -> Vec<String> {
    jsonl("mcp/tools.jsonl")
        .iter()
        .map(|v| {
            let Some(props) = v["inputSchema"]["properties"].as_object() else { return String::new() };
            props
                .iter()
                .map(|(name, p)| match p["description"].as_str().filter(|d| !d.is_empty()) {
                    Some(d) => format!("{name}: {d}"),
                    None => name.clone(),
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

fn catalog(tools: &[(String, String)], mode: SearchMode) -> ToolCatalog {
    let entries: Vec<ToolEntry> = tools
        .iter()
        .enumerate()
        .map(|(i, (id, d))| ToolEntry {
            key: id.clone(),
            id: Some(id.clone()),
            description: d.clone(),
            handle: i as u32,
        })
        .collect();
    // with the schemas' parameter text, as the processor indexes it; MCP_PARAMS=0: without
    let params = if std::env::var("MCP_PARAMS").is_ok_and(|v| v == "0") { vec![String::new(); entries.len()] } else { param_texts() };
    let params = if matches!(mode, SearchMode::Compatible) {
        Vec::new()
    } else {
        params
    };
    ToolCatalog::build(
        CatalogSource::Entries {
            tools: entries,
            params,
        },
        &BuildOptions::new(mode),
    )
    .expect("unvalidated build")
}

fn ranked(tools: &[(String, String)], c: &ToolCatalog, q: &str) -> Vec<(String, f64)> {
    c.search(
        q,
        SearchParams {
            top_k: 10,
            min_score: 0.0,
            inspect_all: false,
        },
    )
    .iter()
    .map(|h| (tools[h.handle as usize].0.clone(), h.score))
    .collect()
}

/// (tool id, description) rows and (query, relevant ids, group) rows of one set.
type Set = (Vec<(String, String)>, Vec<(String, Vec<String>, String)>);

/// Recall@1 and @5 per group of `set` with an enhanced index built with `tuning`.
fn enhanced_recall(set: &Set, tuning: Tuning) -> HashMap<String, Metrics> {
    let docs: Vec<FieldDoc> = set
        .0
        .iter()
        .map(|(id, d)| {
            FieldDoc::new(vec![
                (Field::Name, id.clone()),
                (Field::Description, d.clone()),
            ])
        })
        .collect();
    let index = EnhancedIndex::build_tuned(&docs, tuning);
    let mut out: HashMap<String, Metrics> = HashMap::new();
    for (q, relevant, group) in &set.1 {
        let names: Vec<String> = index
            .search_top(q, 10)
            .iter()
            .map(|&(d, _)| set.0[d as usize].0.clone())
            .collect();
        out.entry(group.clone()).or_default().add(&names, relevant);
    }
    out
}

/// `--sweep`: the action factor's knobs on the dev halves (MCP dev, MetaTool even lines,
/// multilingual dev), enhanced mode.
fn sweep(tools: &[(String, String)], queries: &[Query]) {
    let mcp: Set = (
        tools.to_vec(),
        queries
            .iter()
            .map(|q| (q.text.clone(), q.relevant.clone(), q.split.clone()))
            .collect(),
    );
    let (mt_tools, mt_queries) = metatool::load();
    let mt: Set = (
        mt_tools
            .into_iter()
            .map(|t| (t.id, t.description))
            .collect(),
        mt_queries
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, q)| (q.text, q.relevant, "even".to_owned()))
            .collect(),
    );
    let ml: Set = (
        jsonl("multilingual/tools.jsonl")
            .iter()
            .map(|v| {
                (
                    v["id"].as_str().unwrap().to_owned(),
                    v["description"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect(),
        jsonl("multilingual/queries.jsonl")
            .iter()
            .filter(|v| v["split"] == "dev")
            .map(|v| {
                let relevant = v["relevant"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap().to_owned())
                    .collect();
                (
                    v["query"].as_str().unwrap().to_owned(),
                    relevant,
                    "dev".to_owned(),
                )
            })
            .collect(),
    );
    let grid: Vec<(f32, f32)> = std::env::var("GRID")
        .map(|g| {
            g.split_whitespace()
                .map(|p| {
                    p.split_once(',')
                        .map(|(a, b)| (a.parse().unwrap(), b.parse().unwrap()))
                        .unwrap()
                })
                .collect()
        })
        .unwrap_or_else(|_| {
            vec![
                (1.0, 1.0),
                (1.1, 0.9),
                (1.2, 0.85),
                (1.3, 0.8),
                (1.5, 0.7),
                (1.3, 1.0),
                (1.0, 0.8),
            ]
        });
    println!(
        "{:>6} {:>7} | mcp dev r@1 r@5 | metatool even r@1 r@5 | multilingual dev r@1 r@5",
        "bonus", "penalty"
    );
    for (bonus, penalty) in grid {
        let tuning = Tuning {
            action_bonus: bonus,
            action_penalty: penalty,
            ..Tuning::default()
        };
        let m = |set: &Set, g: &str| enhanced_recall(set, tuning).remove(g).unwrap_or_default();
        let (a, b, c) = (m(&mcp, "dev"), m(&mt, "even"), m(&ml, "dev"));
        println!(
            "{bonus:>6} {penalty:>7} | {:.4} {:.4} | {:.4} {:.4} | {:.4} {:.4}",
            a.r1(),
            a.r5(),
            b.r1(),
            b.r5(),
            c.r1(),
            c.r5()
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let model_path = args
        .iter()
        .position(|a| a == "--model")
        .map(|i| args[i + 1].clone())
        .unwrap_or_else(|| {
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../node_modules/mastra-native-processors-model-multilingual/model.bin"
            )
            .to_owned()
        });
    let (tools, queries) = load();
    if args.iter().any(|a| a == "--sweep") {
        return sweep(&tools, &queries);
    }
    let model = std::fs::read(&model_path)
        .ok()
        .map(|b| Arc::new(StaticModel::from_bytes(&b).expect("model")));
    let mut modes: Vec<(&str, ToolCatalog)> = vec![
        ("compatible", catalog(&tools, SearchMode::Compatible)),
        ("enhanced", catalog(&tools, SearchMode::Enhanced)),
    ];
    if let Some(m) = &model {
        modes.push(("hybrid", catalog(&tools, SearchMode::Hybrid(m.clone()))));
    }
    if let Some(i) = args.iter().position(|a| a == "--misses") {
        let mode = args[i + 1].as_str();
        let lang = args.get(i + 2);
        let ours = &modes.iter().find(|(n, _)| *n == mode).expect("mode").1;
        let reference = &modes[0].1;
        for q in queries
            .iter()
            .filter(|q| q.split == "dev" && lang.is_none_or(|l| *l == q.lang))
        {
            let (a, b) = (
                ranked(&tools, reference, &q.text),
                ranked(&tools, ours, &q.text),
            );
            if b.first().is_some_and(|(n, _)| q.relevant.contains(n)) {
                continue;
            }
            let ok_ref = a.first().is_some_and(|(n, _)| q.relevant.contains(n));
            let show = |r: &[(String, f64)]| {
                r.iter()
                    .take(3)
                    .map(|(n, s)| format!("{n}:{s:.2}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            println!(
                "{} | {}\n   want {:?}\n   ref  {}\n   ours {}",
                if ok_ref { "REF-OK" } else { "both-miss" },
                q.text,
                q.relevant,
                show(&a),
                show(&b)
            );
        }
        return;
    }
    let mut table: HashMap<(String, String, &str), Metrics> = HashMap::new();
    for q in &queries {
        for (name, c) in &modes {
            let names: Vec<String> = ranked(&tools, c, &q.text)
                .into_iter()
                .map(|(n, _)| n)
                .collect();
            // MCP_DUMP=MODE: that mode's dev requests with their recall@5 and top 5 on stderr
            // (to diff two rankings request by request)
            if q.split == "dev" && std::env::var("MCP_DUMP").is_ok_and(|m| m == *name) {
                let hits = q.relevant.iter().filter(|r| names.iter().take(5).any(|n| n == *r)).count();
                eprintln!("{:.2}\t{}\t{}\t{}", hits as f64 / q.relevant.len() as f64, q.lang, q.text, names.iter().take(5).cloned().collect::<Vec<_>>().join(","));
            }
            for lang in [q.lang.as_str(), "all"] {
                table
                    .entry((q.split.clone(), lang.to_owned(), name))
                    .or_default()
                    .add(&names, &q.relevant);
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
