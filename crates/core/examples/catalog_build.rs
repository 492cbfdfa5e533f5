//! Times catalog construction and search on a synthetic catalog:
//! `cargo run -p mastra-native-core --release --example catalog_build -- 10000`
use std::time::Instant;

use mastra_native_core::catalog::{BuildOptions, CatalogSource, SearchMode, SearchParams, ToolCatalog, ToolEntry};

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let vocab: Vec<String> = (0..120).map(|i| format!("word{i}")).collect();
    let mut seed = 12345u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % vocab.len() as u64) as usize
    };
    let entries: Vec<ToolEntry> = (0..n)
        .map(|i| {
            let id = format!("tool_{}_{}_{i}", vocab[next()], vocab[next()]);
            let description = (0..12).map(|_| vocab[next()].as_str()).collect::<Vec<_>>().join(" ");
            ToolEntry { key: id.clone(), id: Some(id), description, handle: i as u32 }
        })
        .collect();
    let t = Instant::now();
    let mut total = 0usize;
    for e in &entries {
        total += mastra_native_core::tokenizer::compat_tokens(&format!("{} {}", e.key, e.description)).len();
    }
    println!("tokenize only: {:?} ({total} tokens)", t.elapsed());
    let t = Instant::now();
    let catalog = ToolCatalog::build(CatalogSource::from(entries), &BuildOptions::new(SearchMode::Compatible)).expect("unvalidated");
    println!("build {n}: {:?}", t.elapsed());
    let t = Instant::now();
    let mut hits = 0;
    for i in 0..200 {
        let q = format!("{} {} {}", vocab[i % 120], vocab[(i * 7) % 120], vocab[(i * 13) % 120]);
        hits += catalog.search(&q, SearchParams { top_k: 5, min_score: 0.0, inspect_all: false }).len();
    }
    println!("200 searches: {:?} ({hits} hits)", t.elapsed());
}

#[allow(dead_code)]
fn phases() {}
