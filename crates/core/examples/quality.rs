//! Retrieval quality and speed of the enhanced index against the compatible catalog, on
//! the MetaTool (ToolE) set in `data/metatool/`.
//!
//!     cargo run -p mastra-native-core --release --example quality [-- --no-speed | --speed-only]
//!
//! Query lines are split by their 0-based line index `i` in `queries.jsonl`: even `i` is
//! the tuning half, odd `i` the report half. Metrics use topK 10 and minScore 0:
//! recall@k = |relevant ∩ top-k| / |relevant|; MRR@10 and nDCG@10 use binary gains.

use std::collections::HashMap;
use std::time::Instant;

use mastra_native_core::catalog::{BuildOptions, CatalogSource, SearchMode, SearchParams, ToolCatalog, ToolEntry};
use mastra_native_core::enhanced::{EnhancedIndex, Field, FieldDoc, Tuning};

// ---- data (the same loader as the pruning example and tests) ----

#[path = "support/metatool.rs"]
mod metatool;
#[path = "support/metrics.rs"]
mod metrics;
use metrics::{header, Metrics};

use metatool::{Query, Tool};

fn load() -> (Vec<Tool>, Vec<Query>) {
    metatool::load()
}

fn compat_catalog(tools: &[Tool]) -> ToolCatalog {
    let tools = tools
        .iter()
        .enumerate()
        .map(|(i, t)| ToolEntry { key: t.id.clone(), id: Some(t.id.clone()), description: t.description.clone(), handle: i as u32 })
        .collect();
    catalog_of(tools, Vec::new(), SearchMode::Compatible)
}

/// `tools` (with `params`) built in `mode`, unvalidated.
fn catalog_of(tools: Vec<ToolEntry>, params: Vec<String>, mode: SearchMode) -> ToolCatalog {
    ToolCatalog::build(CatalogSource::Entries { tools, params }, &BuildOptions::new(mode)).expect("an unvalidated build of entries cannot fail")
}

/// `TUNE="k1=1.0 name=3 nameb=0.3 ..."` overrides the default tuning (for exploring on
/// the even lines only).
fn tuning() -> Tuning {
    let mut t = Tuning::default();
    let Ok(spec) = std::env::var("TUNE") else { return t };
    for kv in spec.split_whitespace() {
        let Some((k, v)) = kv.split_once('=') else { continue };
        let v: f32 = v.parse().expect("number");
        match k {
            "k1" => t.k1 = v,
            "name" => t.field_weight[0] = v,
            "desc" => t.field_weight[1] = v,
            "nameb" => t.field_b[0] = v,
            "descb" => t.field_b[1] = v,
            "descpivot" => t.long_pivot[1] = v,
            "stem" => t.w_stem = v,
            "surface" => t.w_surface = v,
            "whole" => t.w_whole = v,
            "fuzzy1" => t.w_fuzzy[0] = v,
            "fuzzy2" => t.w_fuzzy[1] = v,
            "idfpow" => t.idf_pow = v,
            "ratio" => t.prefix_ratio = v,
            "prefix" => t.w_prefix = v,
            "prefixmin" => t.prefix_min = v,
            "namecov" => t.coverage[0] = v,
            "desccov" => t.coverage[1] = v,
            "actionbonus" => t.action_bonus = v,
            "actionpenalty" => t.action_penalty = v,
            _ => panic!("unknown tuning key {k}"),
        }
    }
    t
}

fn enhanced_index(tools: &[Tool]) -> EnhancedIndex {
    let docs: Vec<FieldDoc> = tools
        .iter()
        .map(|t| FieldDoc::new(vec![(Field::Name, t.id.clone()), (Field::Description, t.description.clone())]))
        .collect();
    EnhancedIndex::build_tuned(&docs, tuning())
}

fn params() -> SearchParams {
    SearchParams { top_k: 10, min_score: 0.0, inspect_all: false }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let speed = !args.iter().any(|a| a == "--no-speed");
    let quality = !args.iter().any(|a| a == "--speed-only");
    let (tools, queries) = load();
    let pos: HashMap<&str, u32> = tools.iter().enumerate().map(|(i, t)| (t.id.as_str(), i as u32)).collect();

    if quality {
        let t0 = Instant::now();
        let compat = compat_catalog(&tools);
        let t1 = Instant::now();
        let enhanced = enhanced_index(&tools);
        let t2 = Instant::now();
        let mut m = [[Metrics::default(); 2]; 2]; // [compat, enhanced][even, odd]
        for (i, q) in queries.iter().enumerate() {
            let relevant: Vec<u32> = q.relevant.iter().filter_map(|r| pos.get(r.as_str()).copied()).collect();
            let c: Vec<u32> = compat.search(&q.text, params()).iter().map(|h| h.handle).collect();
            let e: Vec<u32> = enhanced.search_top(&q.text, 10).iter().map(|h| h.0).collect();
            if i % 2 == 0
                && std::env::var("SHOW_MISSES").is_ok()
                && e.first().is_none_or(|d| !relevant.contains(d))
                && (i / 2) % 40 == 0
            {
                let name = |d: &u32| tools[*d as usize].id.as_str();
                println!(
                    "MISS {:?} want {:?} got {:?}",
                    q.text,
                    q.relevant,
                    e.iter().take(3).map(name).collect::<Vec<_>>()
                );
                if std::env::var("EXPLAIN").is_ok() {
                    if let Some(&top) = e.first() {
                        println!("   top {:?}", enhanced.explain(&q.text, top));
                    }
                    for &r in &relevant {
                        println!(
                            "   rel {} {:?}",
                            e.iter().position(|&d| d == r).map_or(-1, |p| p as i64),
                            enhanced.explain(&q.text, r)
                        );
                    }
                }
            }
            m[0][i % 2].add(&c, &relevant);
            m[1][i % 2].add(&e, &relevant);
        }
        println!(
            "MetaTool: {} tools, {} queries; build compat {:.1} ms, enhanced {:.1} ms; topK 10, minScore 0",
            tools.len(),
            queries.len(),
            (t1 - t0).as_secs_f64() * 1e3,
            (t2 - t1).as_secs_f64() * 1e3
        );
        println!("split by 0-based line index i: report = odd i, tune = even i");
        println!("{}", header("mode / lines"));
        println!("{}", m[0][1].row("compatible  odd (report)"));
        println!("{}", m[1][1].row("enhanced    odd (report)"));
        println!("{}", m[0][0].row("compatible  even (tune)"));
        println!("{}", m[1][0].row("enhanced    even (tune)"));
    }

    if speed {
        const N: usize = 10_000;
        let copies = N.div_ceil(tools.len());
        let big: Vec<Tool> = (0..copies)
            .flat_map(|k| {
                tools.iter().map(move |t| Tool { id: format!("{}_{k}", t.id), description: t.description.clone() })
            })
            .take(N)
            .collect();
        // builds: median of several, each from the same input (the catalog copies its
        // entries, so cloning them is part of its measured cost, as in real use)
        let runs = if args.iter().any(|a| a == "--build-bench") { 30 } else { 7 };
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let mut compat_ms = Vec::new();
        let mut enhanced_ms = Vec::new();
        for _ in 0..runs {
            let t0 = Instant::now();
            std::hint::black_box(compat_catalog(&big));
            compat_ms.push(t0.elapsed().as_secs_f64() * 1e3);
            let t0 = Instant::now();
            std::hint::black_box(enhanced_index(&big));
            enhanced_ms.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        let compat = compat_catalog(&big);
        let enhanced = enhanced_index(&big);
        // the first query that needs typo or prefix lookups builds them
        let t0 = Instant::now();
        std::hint::black_box(enhanced.search_top("calender schedlue meetngs", 10));
        let first_query_ms = t0.elapsed().as_secs_f64() * 1e3;
        let sample: Vec<&str> = queries.iter().skip(1).step_by(2).step_by(5).map(|q| q.text.as_str()).collect();
        let time = |f: &dyn Fn(&str) -> usize| {
            for q in sample.iter().take(200) {
                std::hint::black_box(f(q));
            }
            let mut v: Vec<f64> = sample
                .iter()
                .map(|q| {
                    let s = Instant::now();
                    std::hint::black_box(f(q));
                    s.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            v.sort_by(f64::total_cmp);
            (percentile(&v, 0.5), percentile(&v, 0.9), percentile(&v, 0.99))
        };
        let c = time(&|q| compat.search(q, params()).len());
        let e = time(&|q| enhanced.search_top(q, 10).len());
        let ea = time(&|q| enhanced.search(q).len());
        println!("\nspeed: {} tools ({} copies, suffixed ids), {} queries", big.len(), copies, sample.len());
        println!(
            "build (median of {runs}): compatible {:.1} ms, enhanced {:.1} ms (+ {:.1} ms lazy typo/prefix tables on the first query needing them)",
            median(compat_ms),
            median(enhanced_ms),
            first_query_ms
        );
        println!("{:<34} {:>9} {:>9} {:>9}", "µs per query", "p50", "p90", "p99");
        println!("{:<34} {:>9.1} {:>9.1} {:>9.1}", "compatible search (topK 10)", c.0, c.1, c.2);
        println!("{:<34} {:>9.1} {:>9.1} {:>9.1}", "enhanced search_top(10)", e.0, e.1, e.2);
        println!("{:<34} {:>9.1} {:>9.1} {:>9.1}", "enhanced search (all hits)", ea.0, ea.1, ea.2);
        println!("enhanced/compatible p50: {:.2}x (search_top), {:.2}x (search)", e.0 / c.0, ea.0 / c.0);
    }
}
