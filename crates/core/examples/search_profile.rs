//! Times compatible-mode search on a replicated MetaTool catalog (p50/p95 per query, and a
//! long loop for `perf record`).
//!
//!     cargo run -p mastra-native-core --release --example search_profile [-- 10000 [rounds]] [--enhanced]
//!
//! Environment: `COOL=kb` cools the caches between searches (see below); `BUILDS=n` times n builds from owned entries; `JOINED=n` times n checks and
//! builds from one joined text (the JS layer's path); `MEMORY=1` prints the heap the
//! catalog holds, by part; `TOKENS=1` times query tokenizing alone; `UNIQUE=k` gives every
//! tool k words of its own (a vocabulary of k·n more terms, as real catalogs have).
use std::time::Instant;

use mastra_native_core::catalog::{BuildOptions, CatalogSource, KeyConflicts, SearchMode, SearchParams, ToolCatalog, ToolEntry};

#[path = "support/metatool.rs"]
mod metatool;

/// `tools` (with `params`) built in `mode`, unvalidated.
fn catalog_of(tools: Vec<ToolEntry>, params: Vec<String>, mode: SearchMode) -> ToolCatalog {
    ToolCatalog::build(CatalogSource::Entries { tools, params }, &BuildOptions::new(mode)).expect("an unvalidated build of entries cannot fail")
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let rounds: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let enhanced = std::env::args().any(|a| a == "--enhanced");
    let (base, queries) = metatool::load();
    let mut tools = metatool::replicate(&base, n, 42);
    if let Some(unique) = std::env::var("UNIQUE").ok().and_then(|s| s.parse::<usize>().ok()) {
        // a larger vocabulary, as real catalogs have: `unique` words of its own per tool
        for (i, t) in tools.iter_mut().enumerate() {
            for k in 0..unique {
                t.description.push_str(&format!(" w{i}x{k}"));
            }
        }
    }
    let entries: Vec<ToolEntry> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| ToolEntry { key: t.id.clone(), id: Some(t.id.clone()), description: t.description.clone(), handle: i as u32 })
        .collect();
    if let Some(rounds) = std::env::var("JOINED").ok().and_then(|s| s.parse::<usize>().ok()) {
        // The joined-text path the JS layer takes: check on the JS thread, then build.
        let joined: String = tools.iter().map(|t| format!("{}\0{}\0{}", t.id, t.id, t.description)).collect::<Vec<_>>().join("\0");
        let mut times = Vec::new();
        for _ in 0..rounds {
            let t = Instant::now();
            let options = BuildOptions::new(SearchMode::Compatible).validated(&["search_tools", "load_tool"], KeyConflicts::Reject);
            let checked = CatalogSource::Joined { text: &joined, count: n }.check(&options).expect("valid");
            let checked_ms = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            let built = ToolCatalog::build(checked.into(), &options).expect("checked");
            times.push((checked_ms, t.elapsed().as_secs_f64() * 1e3));
            drop(built);
        }
        times.sort_by(|a, b| (a.0 + a.1).total_cmp(&(b.0 + b.1)));
        let (check, build) = times[times.len() / 2];
        println!("joined ({rounds} rounds, median): check + copy {check:.2} ms, build {build:.2} ms");
    }
    let builds: usize = std::env::var("BUILDS").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut build_times = Vec::new();
    for _ in 0..builds {
        let copy = entries.clone();
        let t = Instant::now();
        let built = catalog_of(copy, Vec::new(), SearchMode::Compatible);
        build_times.push(t.elapsed().as_secs_f64() * 1e3);
        drop(std::hint::black_box(built));
    }
    if builds > 0 {
        build_times.sort_by(f64::total_cmp);
        println!("{builds} builds: median {:.2} ms, min {:.2} ms", build_times[builds / 2], build_times[0]);
    }
    let t = Instant::now();
    let catalog = if enhanced { catalog_of(entries, vec![String::new(); tools.len()], SearchMode::Enhanced) } else { catalog_of(entries, Vec::new(), SearchMode::Compatible) };
    println!("build {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
    if std::env::var("MEMORY").is_ok() {
        let mut total = 0;
        for (part, bytes) in catalog.heap_parts() {
            if part.ends_with("(count)") {
                println!("  {part}: {bytes}");
            } else {
                total += bytes;
                println!("  {part}: {:.2} MB", bytes as f64 / 1048576.0);
            }
        }
        println!("  total {:.2} MB", total as f64 / 1048576.0);
    }
    let params = SearchParams { top_k: 5, min_score: 0.0, inspect_all: false };
    let sample: Vec<&str> = queries.iter().step_by(21).map(|q| q.text.as_str()).collect();
    let mut times = Vec::with_capacity(sample.len() * rounds);
    // `COOL=kb`: writes that many KB of other memory before each search, as the JS work
    // between searches does (the caches a search finds are then cooler)
    let mut cool = vec![0u8; std::env::var("COOL").ok().and_then(|s| s.parse::<usize>().ok()).unwrap_or(0) * 1024];
    for _ in 0..rounds {
        for q in &sample {
            for (i, byte) in cool.iter_mut().enumerate().step_by(64) {
                *byte = byte.wrapping_add(i as u8);
            }
            let t = Instant::now();
            std::hint::black_box(catalog.search(q, params));
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    if std::env::var("TOKENS").is_ok() {
        let t = Instant::now();
        let mut n = 0usize;
        for _ in 0..rounds {
            for q in &sample {
                n += std::hint::black_box(mastra_native_core::tokenizer::compat_tokens(q)).len();
            }
        }
        println!("tokenize only: {:.2} µs per query ({} tokens)", t.elapsed().as_secs_f64() * 1e6 / (rounds * sample.len()) as f64, n / rounds);
    }
    if times.is_empty() {
        return;
    }
    times.sort_by(f64::total_cmp);
    let at = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    println!("n={n} {} searches: p50 {:.1} µs, p95 {:.1} µs, mean {:.1} µs", times.len(), at(0.5), at(0.95), times.iter().sum::<f64>() / times.len() as f64);
}

