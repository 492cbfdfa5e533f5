//! Hybrid search (enhanced + static embedding model): quality against enhanced alone on
//! MetaTool and the multilingual set, fusion tuning on the dev halves, and speed.
//!
//!     cargo run -p mastra-native-core --release --example hybrid -- [--model PATH] [quality|sweep|speed]
//!
//! PATH defaults to packages/model-multilingual/model.bin. Splits as in bench/quality.mjs:
//! MetaTool lines by 0-based index (even = tune, odd = report); multilingual by `split`
//! (dev = tune, test = report). topK 10, minScore 0; recall@k = |relevant ∩ top-k| / |relevant|.
//! `sweep` grid-searches the fusion knobs on the dev halves only and prints the best.
//! `speed` times model load, build (enhanced vs hybrid) and search p50 at 10,000 replicated
//! MetaTool tools (the catalog of bench/tool-search-realistic.mjs).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use mastra_native_core::catalog::{SearchParams, ToolCatalog, ToolEntry};
use mastra_native_core::semantic::{Fusion, StaticModel};

#[path = "support/metatool.rs"]
mod metatool;
#[path = "support/metrics.rs"]
mod metrics;
use metrics::{header, Metrics};

const LANGS: [&str; 5] = ["en", "zh-Hant", "zh-Hans", "ja", "ko"];

struct Set {
    tools: Vec<(String, String)>,
    /// (query, relevant, group): group = "even"/"odd" or "<split> <lang>"
    queries: Vec<(String, Vec<String>, String)>,
}

fn jsonl(path: &str) -> Vec<serde_json::Value> {
    let full = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data").join(path);
    std::fs::read_to_string(&full)
        .unwrap_or_else(|e| panic!("{}: {e}", full.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn metatool_set() -> Set {
    let (tools, queries) = metatool::load();
    Set {
        tools: tools.into_iter().map(|t| (t.id, t.description)).collect(),
        queries: queries
            .into_iter()
            .enumerate()
            .map(|(i, q)| (q.text, q.relevant, if i % 2 == 0 { "even" } else { "odd" }.to_owned()))
            .collect(),
    }
}

fn multilingual_set() -> Set {
    let tools = jsonl("multilingual/tools.jsonl")
        .into_iter()
        .map(|v| (v["id"].as_str().unwrap().to_owned(), v["description"].as_str().unwrap_or("").to_owned()))
        .collect();
    let queries = jsonl("multilingual/queries.jsonl")
        .into_iter()
        .map(|v| {
            let relevant = v["relevant"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_owned()).collect();
            let group = format!("{} {}", v["split"].as_str().unwrap(), v["lang"].as_str().unwrap());
            (v["query"].as_str().unwrap().to_owned(), relevant, group)
        })
        .collect();
    Set { tools, queries }
}

fn entries(tools: &[(String, String)]) -> Vec<ToolEntry> {
    tools
        .iter()
        .enumerate()
        .map(|(i, (id, d))| ToolEntry { key: id.clone(), id: Some(id.clone()), description: d.clone(), handle: i as u32 })
        .collect()
}

/// Metrics per group.
fn evaluate(set: &Set, catalog: &ToolCatalog) -> HashMap<String, Metrics> {
    let params = SearchParams { top_k: 10, min_score: 0.0, inspect_all: false };
    let mut out: HashMap<String, Metrics> = HashMap::new();
    for (q, relevant, group) in &set.queries {
        let names: Vec<String> = catalog.search(q, params).iter().map(|h| set.tools[h.handle as usize].0.clone()).collect();
        out.entry(group.clone()).or_default().add(&names, relevant);
    }
    out
}

fn pick(m: &HashMap<String, Metrics>, f: impl Fn(&str) -> bool) -> Metrics {
    let mut all = Metrics::default();
    for (g, x) in m {
        if f(g) {
            all.merge(x);
        }
    }
    all
}

fn load_model(path: &str) -> Arc<StaticModel> {
    let t = Instant::now();
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let model = StaticModel::from_bytes(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
    eprintln!("model {path}: dim {} vocab {} loaded in {:.1} ms", model.dim(), model.vocab_size(), t.elapsed().as_secs_f64() * 1e3);
    Arc::new(model)
}

fn quality(model: Arc<StaticModel>, fusion: Fusion) {
    let mt = metatool_set();
    let ml = multilingual_set();
    let mut rows = Vec::new();
    for (name, set) in [("MetaTool", &mt), ("multilingual", &ml)] {
        let enhanced = ToolCatalog::build_enhanced(entries(&set.tools), vec![]);
        let mut hybrid = ToolCatalog::build_hybrid(entries(&set.tools), vec![], model.clone());
        hybrid.set_fusion(Fusion { lexical: 0.0, semantic_latin: 1.0, semantic_cjk: 1.0, semantic_depth: 10, ..fusion });
        let semantic = evaluate(set, &hybrid);
        hybrid.set_fusion(fusion);
        rows.push((name, evaluate(set, &enhanced), evaluate(set, &hybrid), semantic));
    }
    println!("{fusion:?}");
    let (_, e, h, sem) = &rows[0];
    println!("\nMetaTool: {} tools, {} queries\n{}", mt.tools.len(), mt.queries.len(), header("config / lines"));
    for half in ["odd", "even"] {
        println!("{}", pick(e, |g| g == half).row(&format!("enhanced {half}")));
        println!("{}", pick(h, |g| g == half).row(&format!("hybrid {half}")));
        println!("{}", pick(sem, |g| g == half).row(&format!("semantic only {half}")));
    }
    let (_, e, h, sem) = &rows[1];
    println!("\nMultilingual: {} tools, {} requests", ml.tools.len(), ml.queries.len());
    for split in ["dev", "test"] {
        println!("\nsplit {split}\n{}", header("lang / config"));
        for lang in LANGS.iter().copied().chain(["all", "CJK"]) {
            let f = |g: &str| {
                let (s, l) = g.split_once(' ').unwrap();
                s == split && (lang == "all" || l == lang || (lang == "CJK" && l != "en"))
            };
            println!("{}", pick(e, f).row(&format!("{lang:<8} enhanced")));
            println!("{}", pick(h, f).row(&format!("{lang:<8} hybrid")));
            println!("{}", pick(sem, f).row(&format!("{lang:<8} semantic only")));
        }
    }
}

/// Dev-only grid search; the objective is the dev multilingual recall@5 (overall and the
/// worst CJK language) with no dev group falling below enhanced.
fn sweep(model: Arc<StaticModel>) {
    let mt = metatool_set();
    let ml = multilingual_set();
    let dev = |g: &str| g == "even" || g.starts_with("dev ");
    let enhanced_mt = evaluate(&mt, &ToolCatalog::build_enhanced(entries(&mt.tools), vec![]));
    let enhanced_ml = evaluate(&ml, &ToolCatalog::build_enhanced(entries(&ml.tools), vec![]));
    let mut hybrid_mt = ToolCatalog::build_hybrid(entries(&mt.tools), vec![], model.clone());
    let mut hybrid_ml = ToolCatalog::build_hybrid(entries(&ml.tools), vec![], model.clone());
    let base_mt = pick(&enhanced_mt, |g| g == "even").r5();
    let base_lang: Vec<f64> = LANGS.iter().map(|l| pick(&enhanced_ml, |g| g == format!("dev {l}")).r5()).collect();
    println!("enhanced dev: MetaTool even r@5 {base_mt:.4}; multilingual {:?}", base_lang);
    let mut results = Vec::new();
    let mut grid = Vec::new();
    for k in [10.0, 60.0] {
        for latin in [0.0, 0.1, 0.3] {
            for cjk in [0.3, 0.5, 1.0] {
                grid.push(Fusion { k, semantic_latin: latin, semantic_cjk: cjk, ..Fusion::default() });
            }
        }
    }
    for latin in [0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0] {
        for cjk in [0.0, 0.1, 0.2, 0.3, 0.5, 1.0] {
            for depth in [10, 20, 50] {
                grid.push(Fusion { relative: true, semantic_latin: latin, semantic_cjk: cjk, semantic_depth: depth, ..Fusion::default() });
            }
        }
    }
    {
        {
            for fusion in grid {
                let Fusion { k, semantic_latin: latin, semantic_cjk: cjk, .. } = fusion;
                hybrid_mt.set_fusion(fusion);
                hybrid_ml.set_fusion(fusion);
                let mt_m = evaluate(&mt, &hybrid_mt);
                let ml_m = evaluate(&ml, &hybrid_ml);
                let mt_r5 = pick(&mt_m, |g| g == "even").r5();
                let langs: Vec<f64> = LANGS.iter().map(|l| pick(&ml_m, |g| g == format!("dev {l}")).r5()).collect();
                let all = pick(&ml_m, dev).r5();
                let worst_cjk = langs[1..].iter().copied().fold(1.0, f64::min);
                let regress = (mt_r5 - base_mt).min(langs.iter().zip(&base_lang).map(|(a, b)| a - b).fold(0.0, f64::min));
                println!("{} k {k:>4} latin {latin:.1} cjk {cjk:.1} depth {}: MT {mt_r5:.4} ml {all:.4} worstCJK {worst_cjk:.4} langs {:?} regress {regress:+.4}", if fusion.relative { "rel" } else { "rrf" }, fusion.semantic_depth, langs.iter().map(|x| (x * 1e4).round() / 1e4).collect::<Vec<_>>());
                results.push((fusion, all, worst_cjk, regress, mt_r5));
            }
        }
    }
    results.sort_by(|a, b| (b.3 >= -0.005).cmp(&(a.3 >= -0.005)).then(b.1.total_cmp(&a.1)));
    println!("\nbest (no dev regression beyond 0.005, then multilingual dev r@5):");
    for r in results.iter().take(8) {
        println!("{:?} ml {:.4} worstCJK {:.4} regress {:+.4} MT {:.4}", r.0, r.1, r.2, r.3, r.4);
    }
}

fn speed(path: &str) {
    let t = Instant::now();
    let model = load_model(path);
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    let (base, queries) = metatool::load();
    for n in [1_000usize, 10_000] {
        let tools: Vec<(String, String)> = metatool::replicate(&base, n, 42).into_iter().map(|t| (t.id, t.description)).collect();
        let time_build = |hybrid: bool| {
            let mut best = f64::MAX;
            let mut catalog = None;
            for _ in 0..3 {
                let t = Instant::now();
                let c = if hybrid {
                    ToolCatalog::build_hybrid(entries(&tools), vec![String::new(); n], model.clone())
                } else {
                    ToolCatalog::build_enhanced(entries(&tools), vec![String::new(); n])
                };
                best = best.min(t.elapsed().as_secs_f64() * 1e3);
                catalog = Some(c);
            }
            (catalog.unwrap(), best)
        };
        let (enhanced, enhanced_ms) = time_build(false);
        let (hybrid, hybrid_ms) = time_build(true);
        let params = SearchParams { top_k: 5, min_score: 0.0, inspect_all: false };
        let sample: Vec<&str> = queries.iter().step_by(7).take(3000).map(|q| q.text.as_str()).collect();
        let p50 = |c: &ToolCatalog| {
            let mut times: Vec<f64> = sample
                .iter()
                .map(|q| {
                    let t = Instant::now();
                    std::hint::black_box(c.search(q, params));
                    t.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            times.sort_by(f64::total_cmp);
            (times[times.len() / 2], times[times.len() * 99 / 100])
        };
        let (ep50, ep99) = p50(&enhanced);
        let (hp50, hp99) = p50(&hybrid);
        println!(
            "n={n:>6}: build enhanced {enhanced_ms:>7.1} ms, hybrid {hybrid_ms:>7.1} ms ({:.2}×) | search p50/p99 enhanced {ep50:>6.1}/{ep99:>6.1} µs, hybrid {hp50:>6.1}/{hp99:>6.1} µs",
            hybrid_ms / enhanced_ms
        );
    }
    println!("model load {load_ms:.1} ms");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .iter()
        .position(|a| a == "--model")
        .and_then(|i| args.get(i + 1).cloned())
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../packages/model-multilingual/model.bin").to_owned());
    let mode = args.iter().find(|a| matches!(a.as_str(), "quality" | "sweep" | "speed")).map(String::as_str).unwrap_or("quality");
    match mode {
        "sweep" => sweep(load_model(&path)),
        "speed" => speed(&path),
        // `--share-cjk`: the weight interpolated by the CJK share instead of `any_cjk`
        _ => quality(load_model(&path), Fusion { any_cjk: !args.iter().any(|a| a == "--share-cjk"), ..Fusion::default() }),
    }
}
