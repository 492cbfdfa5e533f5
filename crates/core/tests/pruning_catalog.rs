//! Pruned search equals exhaustive search on realistic catalogs (MetaTool, replicated with
//! varied text): same tools, same order, same score bits. A lighter version
//! of `examples/pruning_diff.rs` (every query, larger catalogs, release build).
use mastra_native_core::catalog::{BuildOptions, CatalogSource, Hit, SearchMode, SearchParams, ToolCatalog, ToolEntry};

#[path = "../examples/support/metatool.rs"]
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

fn key(hits: &[Hit]) -> Vec<(u32, u32, u64)> {
    hits.iter().map(|h| (h.handle, h.doc_handle, h.score.to_bits())).collect()
}

fn check(catalog: &ToolCatalog, queries: &[metatool::Query], stride: usize) -> usize {
    let mut n = 0;
    for q in queries.iter().step_by(stride) {
        for top_k in [1, 5, 20] {
            for min_score in [0.0, 3.0] {
                let params = SearchParams { top_k, min_score, inspect_all: false };
                assert_eq!(key(&catalog.search(&q.text, params)), key(&catalog.search_exhaustive(&q.text, params)), "{:?} topK {top_k}", q.text);
                n += 1;
            }
        }
    }
    n
}

#[test]
fn compatible_pruning_is_exact_on_replicated_metatool_catalogs() {
    let (base, queries) = metatool::load();
    let mut n = 0;
    for (size, stride) in [(199, 13), (3_000, 29)] {
        let tools = metatool::replicate(&base, size, 42);
        n += check(&catalog_of(entries(&tools), Vec::new(), SearchMode::Compatible), &queries, stride);
    }
    assert!(n > 10_000, "{n}");
}

#[test]
fn replication_is_deterministic_and_ids_are_unique() {
    let (base, _) = metatool::load();
    let a = metatool::replicate(&base, 5_000, 42);
    let b = metatool::replicate(&base, 5_000, 42);
    assert!(a.iter().zip(&b).all(|(x, y)| x.id == y.id && x.description == y.description));
    let ids: std::collections::HashSet<&str> = a.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids.len(), a.len());
    assert!(a[..base.len()].iter().zip(&base).all(|(x, y)| x.id == y.id && x.description == y.description));
}
