//! Dynamic pruning against exhaustive scoring on realistic catalogs: every MetaTool query
//! (21,041) against the MetaTool catalog replicated to several sizes (see
//! `support/metatool.rs`), several topK, compatible mode (pruned) and enhanced mode (its
//! top-k selection against ranking every match). Fails on the first difference in tools,
//! order or score bits; prints timings.
//!
//!     cargo run -p mastra-native-core --release --example pruning_diff [-- 199,1000,10000,100000]
//!     cargo run -p mastra-native-core --release --example pruning_diff -- --print 5000   # the catalog
use std::time::{Duration, Instant};

use mastra_native_core::catalog::{BuildOptions, CatalogSource, SearchMode, SearchParams, ToolCatalog, ToolEntry};

#[path = "support/metatool.rs"]
mod metatool;

/// `tools` (with `params`) built in `mode`, unvalidated.
fn catalog_of(tools: Vec<ToolEntry>, params: Vec<String>, mode: SearchMode) -> ToolCatalog {
    ToolCatalog::build(CatalogSource::Entries { tools, params }, &BuildOptions::new(mode)).expect("an unvalidated build of entries cannot fail")
}

fn entries(tools: &[metatool::Tool]) -> Vec<ToolEntry> {
    tools
        .iter()
        .enumerate()
        .map(|(i, t)| ToolEntry { key: t.id.clone(), id: Some(t.id.clone()), description: t.description.clone(), handle: i as u32 })
        .collect()
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .nth(1)
        .filter(|a| a != "--print")
        .map(|s| s.split(',').map(|x| x.parse().expect("size")).collect())
        .unwrap_or_else(|| vec![199, 1_000, 10_000, 100_000]);
    let (base, queries) = metatool::load();
    if let Some(n) = std::env::args().position(|a| a == "--print").and_then(|i| std::env::args().nth(i + 1)) {
        // the replicated catalog as JSON lines, to compare with bench/tool-search-realistic.mjs
        for t in metatool::replicate(&base, n.parse().expect("count"), 42) {
            println!("{}", serde_json::json!({ "id": t.id, "description": t.description }));
        }
        return;
    }
    let mut compared = 0usize;
    for &n in &sizes {
        let tools = metatool::replicate(&base, n, 42);
        for enhanced in [false, true] {
            let t = Instant::now();
            let catalog = if enhanced {
                catalog_of(entries(&tools), vec![String::new(); tools.len()], SearchMode::Enhanced)
            } else {
                catalog_of(entries(&tools), Vec::new(), SearchMode::Compatible)
            };
            let build = t.elapsed();
            for top_k in [5usize, 1, 20] {
                let params = SearchParams { top_k, min_score: 0.0, inspect_all: false };
                let key = |h: Vec<mastra_native_core::catalog::Hit>| {
                    h.iter().map(|h| (h.handle, h.doc_handle, h.score.to_bits())).collect::<Vec<_>>()
                };
                // one pass each (not interleaved), so neither warms the caches for the other
                let t = Instant::now();
                let pruned: Vec<_> = queries.iter().map(|q| key(catalog.search(&q.text, params))).collect();
                let pruned_time = t.elapsed();
                let t = Instant::now();
                let full: Vec<_> = queries.iter().map(|q| key(catalog.search_exhaustive(&q.text, params))).collect();
                let full_time = t.elapsed();
                for ((p, f), q) in pruned.iter().zip(&full).zip(&queries) {
                    assert_eq!(p, f, "n={n} {} topK={top_k} query {:?}", if enhanced { "enhanced" } else { "compatible" }, q.text);
                    compared += 1;
                }
                let per = |d: Duration| d.as_secs_f64() * 1e6 / queries.len() as f64;
                println!(
                    "n={n:>6} {:<10} topK={top_k:<2} build {:>8.2} ms | mean per query: pruned {:>8.2} µs, exhaustive {:>8.2} µs ({:.1}×) | {} queries identical",
                    if enhanced { "enhanced" } else { "compatible" },
                    build.as_secs_f64() * 1e3,
                    per(pruned_time),
                    per(full_time),
                    per(full_time) / per(pruned_time),
                    queries.len()
                );
            }
        }
    }
    println!("{compared} (query, catalog size, topK, mode) searches: fast path == exhaustive in tools, order and score bits");
}
