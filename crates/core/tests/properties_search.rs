//! Property tests for BM25, tool catalogs (compatible and enhanced) and skill indexes: random
//! catalogs with random ids and descriptions either build or return a validation error, never
//! panic; scores are finite; results are sorted with the documented tie order; topK and the strict
//! minScore hold; building twice ranks identically; and compatible search equals an independent
//! model of `@mastra/core`'s tool search (tool-search.md §3) exactly, scores and ties included.
//!
//! `PROPTEST_CASES=2000 cargo test -p mastra-native-core --test properties_search` searches longer.

use std::collections::HashMap;

use mastra_native_core::bm25::{top_by_score, Bm25Index, Scored, TermCounts, Vocab};
use mastra_native_core::catalog::{self, BuildError, BuildOptions, CatalogError, CatalogSource, KeyConflicts, SearchParams, ToolCatalog, ToolEntry};
use mastra_native_core::jsmath::js_log;
use mastra_native_core::skill_search::{SearchMode, SkillIndex, SkillInput};
use mastra_native_core::tokenizer::compat_tokens;
use proptest::prelude::*;

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A small vocabulary so documents share terms (ties and df > 1 are common), plus arbitrary text.
const WORDS: &[&str] = &[
    "weather", "forecast", "email", "send", "github", "issue", "create", "data", "at", "on", "Σ", "ΟΔΟΣ", "天气", "😀",
    "a", "calendar", "search", "load_tool", "search_tools",
];

fn text(max_words: usize) -> impl Strategy<Value = String> {
    let word = prop_oneof![
        6 => prop::sample::select(WORDS.to_vec()).prop_map(String::from),
        1 => "\\PC{0,6}",
    ];
    let sep = prop::sample::select(vec![" ", "_", "-", ". ", "  ", "\u{FEFF}", "/"]);
    prop::collection::vec((word, sep), 0..max_words)
        .prop_map(|pieces| pieces.into_iter().map(|(w, s)| format!("{w}{s}")).collect::<String>())
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "weather", "weather_forecast", "send_email", "github_create_issue", "data", "at", "search_tools", "load_tool",
            "0", "7", "01", "tool", "TOOL",
        ])
        .prop_map(String::from),
        2 => "[a-z_]{1,10}",
        1 => "\\PC{0,8}",
    ]
}

#[derive(Debug, Clone)]
struct Tool {
    key: String,
    id: Option<String>,
    description: String,
}

fn tools(max: usize) -> impl Strategy<Value = Vec<Tool>> {
    prop::collection::vec(
        (name(), prop::option::weighted(0.85, name()), text(10)).prop_map(|(key, id, description)| Tool {
            key,
            id: id.filter(|s| !s.is_empty()),
            description,
        }),
        0..max,
    )
    .prop_map(|mut tools| {
        // Object keys are unique: a repeated key keeps its first position and the last value.
        let mut position: HashMap<String, usize> = HashMap::new();
        let mut out: Vec<Tool> = Vec::new();
        for t in tools.drain(..) {
            match position.get(&t.key) {
                Some(&p) => out[p] = t,
                None => {
                    position.insert(t.key.clone(), out.len());
                    out.push(t);
                }
            }
        }
        // Array-index keys enumerate first, ascending (Object.entries order).
        let index_key = |k: &str| {
            (!k.is_empty() && k.len() <= 10 && k.bytes().all(|b| b.is_ascii_digit()) && (k.len() == 1 || !k.starts_with('0')))
                .then(|| k.parse::<u64>().ok())
                .flatten()
                .filter(|&n| n < u64::from(u32::MAX))
        };
        out.sort_by_key(|t| index_key(&t.key).unwrap_or(u64::MAX));
        out
    })
}

/// `tools` (with `params`) built in `mode`, unvalidated.
fn catalog_of(tools: Vec<ToolEntry>, params: Vec<String>, mode: catalog::SearchMode) -> ToolCatalog {
    ToolCatalog::build(CatalogSource::Entries { tools, params }, &BuildOptions::new(mode)).expect("an unvalidated build of entries cannot fail")
}

fn entries(tools: &[Tool]) -> Vec<ToolEntry> {
    tools
        .iter()
        .enumerate()
        .map(|(i, t)| ToolEntry { key: t.key.clone(), id: t.id.clone(), description: t.description.clone(), handle: i as u32 })
        .collect()
}

fn params() -> impl Strategy<Value = SearchParams> {
    (0usize..8, prop_oneof![Just(0.0), Just(-1.0), 0.0f64..8.0, Just(f64::NAN)], any::<bool>())
        .prop_map(|(top_k, min_score, inspect_all)| SearchParams { top_k, min_score, inspect_all })
}

/// Independent model of `ToolSearchProcessor.search` in `@mastra/core` 1.59 (tool-search.md §3),
/// returning `(tool handle, document handle, boosted score)`.
fn model_search(tools: &[Tool], query: &str, p: SearchParams) -> Vec<(u32, u32, f64)> {
    // Index: one document per name (`id || key`); re-adding a name removes the old document and
    // appends the new one. Document = tokens of `${name} ${description}`.
    let mut docs: Vec<(String, u32, Vec<String>)> = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let name = t.id.clone().unwrap_or_else(|| t.key.clone());
        docs.retain(|d| d.0 != name);
        let tokens = compat_tokens(&format!("{name} {}", t.description));
        docs.push((name, i as u32, tokens));
    }
    if docs.is_empty() {
        return Vec::new();
    }
    let q = compat_tokens(query);
    if q.is_empty() {
        return Vec::new();
    }
    let n = docs.len() as f64;
    let avgdl = docs.iter().map(|d| d.2.len() as f64).sum::<f64>() / n;
    // Score map in insertion order: by query token, then document order.
    let mut scores: Vec<(usize, f64)> = Vec::new();
    for token in &q {
        let matching: Vec<usize> = (0..docs.len()).filter(|&d| docs[d].2.contains(token)).collect();
        if matching.is_empty() {
            continue;
        }
        let df = matching.len() as f64;
        let idf = js_log((n - df + 0.5) / (df + 0.5) + 1.0);
        for d in matching {
            let tf = docs[d].2.iter().filter(|t| *t == token).count() as f64;
            let len = docs[d].2.len() as f64;
            let term = idf * ((tf * 2.5) / (tf + 1.5 * (1.0 - 0.75 + 0.75 * (len / avgdl))));
            match scores.iter_mut().find(|s| s.0 == d) {
                Some(s) => s.1 += term,
                None => scores.push((d, 0.0 + term)),
            }
        }
    }
    scores.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
    let limit = if p.inspect_all { docs.len() } else { p.top_k.saturating_mul(2) };
    scores.truncate(limit);
    for s in &mut scores {
        let name = docs[s.0].0.to_lowercase();
        for token in &q {
            if &name == token {
                s.1 += 5.0;
            } else if name.contains(token.as_str()) {
                s.1 += 2.0;
            }
        }
    }
    scores.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
    let mut out = Vec::new();
    for (d, score) in scores {
        // `score > minScore` is false for a NaN minScore: nothing passes (JavaScript semantics).
        if score.partial_cmp(&p.min_score) != Some(std::cmp::Ordering::Greater) {
            continue;
        }
        let name = &docs[d].0;
        let Some(first) = tools.iter().position(|t| t.id.as_deref() == Some(name.as_str())) else { continue };
        out.push((first as u32, docs[d].1, score));
        if !p.inspect_all && out.len() >= p.top_k {
            break;
        }
    }
    out
}

fn hits_of(c: &ToolCatalog, query: &str, p: SearchParams) -> Vec<(u32, u32, f64)> {
    c.search(query, p).into_iter().map(|h| (h.handle, h.doc_handle, h.score)).collect()
}

fn assert_ranking(hits: &[(u32, u32, f64)], p: SearchParams) -> Result<(), TestCaseError> {
    for h in hits {
        prop_assert!(h.2.is_finite() && h.2 > 0.0, "score {}", h.2);
        prop_assert!(h.2 > p.min_score, "score {} not above minScore {}", h.2, p.min_score);
    }
    for pair in hits.windows(2) {
        prop_assert!(pair[0].2 >= pair[1].2, "not sorted: {:?}", hits);
    }
    if !p.inspect_all {
        prop_assert!(hits.len() <= p.top_k);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(192), ..ProptestConfig::default() })]

    #[test]
    fn compatible_search_equals_the_reference_model(tools in tools(12), query in text(5), p in params()) {
        let catalog = catalog_of(entries(&tools), Vec::new(), catalog::SearchMode::Compatible);
        let hits = hits_of(&catalog, &query, p);
        // Exact equality: same handles, same tie order, bit-identical scores.
        prop_assert_eq!(&hits, &model_search(&tools, &query, p));
        assert_ranking(&hits, p)?;
        // Building twice ranks identically; searching twice too.
        prop_assert_eq!(hits_of(&catalog_of(entries(&tools), Vec::new(), catalog::SearchMode::Compatible), &query, p), hits.clone());
        prop_assert_eq!(hits_of(&catalog, &query, p), hits);
    }

    #[test]
    fn tie_order_follows_the_first_matching_query_token(
        words in prop::collection::vec(prop::collection::vec(prop::sample::select(vec!["blue", "red", "green"]), 1..3), 1..10),
        query in prop::collection::vec(prop::sample::select(vec!["blue", "red", "green", "none"]), 1..4),
        top_k in 1usize..12,
        inspect_all in any::<bool>(),
    ) {
        // Equal-length documents over three words: exact score ties everywhere, so the order
        // of the score map (first matching query token, then insertion) decides the ranking.
        let tools: Vec<Tool> = words
            .iter()
            .enumerate()
            .map(|(i, w)| Tool { key: format!("k{i}"), id: Some(format!("t{i}")), description: w.join(" ") })
            .collect();
        let query = query.join(" ");
        let p = SearchParams { top_k, min_score: 0.0, inspect_all };
        let catalog = catalog_of(entries(&tools), Vec::new(), catalog::SearchMode::Compatible);
        prop_assert_eq!(hits_of(&catalog, &query, p), model_search(&tools, &query, p));
    }

    #[test]
    fn overlays_rank_like_a_fresh_build(base in tools(8), resolved in tools(5), query in text(4), p in params()) {
        let base_catalog = catalog_of(entries(&base), Vec::new(), catalog::SearchMode::Compatible);
        let first = base.len() as u32;
        let resolved_entries: Vec<ToolEntry> = entries(&resolved)
            .into_iter()
            .map(|e| ToolEntry { handle: e.handle + first, ..e })
            .collect();
        let overlay = ToolCatalog::overlay(&base_catalog, resolved_entries.clone(), Vec::new());
        // `{ ...base, ...resolved }`: a resolved key replaces the base entry in place.
        let mut merged: Vec<ToolEntry> = entries(&base);
        for e in resolved_entries {
            match merged.iter().position(|m| m.key == e.key) {
                Some(i) => merged[i] = e,
                None => merged.push(e),
            }
        }
        let is_index = |k: &str| !k.is_empty() && k.len() <= 10 && k.bytes().all(|b| b.is_ascii_digit())
            && (k.len() == 1 || !k.starts_with('0')) && k.parse::<u64>().is_ok_and(|n| n < u64::from(u32::MAX));
        merged.sort_by_key(|e| if is_index(&e.key) { e.key.parse::<u64>().unwrap() } else { u64::MAX });
        let fresh = catalog_of(merged, Vec::new(), catalog::SearchMode::Compatible);
        prop_assert_eq!(overlay.len(), fresh.len());
        prop_assert_eq!(hits_of(&overlay, &query, p), hits_of(&fresh, &query, p));
        // An empty overlay is the base.
        let same = ToolCatalog::overlay(&base_catalog, Vec::new(), Vec::new());
        prop_assert_eq!(hits_of(&same, &query, p), hits_of(&base_catalog, &query, p));
    }

    #[test]
    fn validated_builds_succeed_or_name_a_real_conflict(tools in tools(10), query in text(4), p in params()) {
        let reserved = ["search_tools", "load_tool"];
        let name = |t: &Tool| t.id.clone().unwrap_or_else(|| t.key.clone());
        for enhanced in [false, true] {
            let params_text = enhanced.then(|| tools.iter().map(|t| t.description.clone()).collect::<Vec<_>>());
            let mode = if enhanced { catalog::SearchMode::Enhanced } else { catalog::SearchMode::Compatible };
            let options = BuildOptions::new(mode).validated(&reserved, KeyConflicts::Reject);
            let source = CatalogSource::Entries { tools: entries(&tools), params: params_text.clone().unwrap_or_default() };
            match ToolCatalog::build(source, &options) {
                Ok(catalog) => {
                    let names: Vec<String> = tools.iter().map(name).collect();
                    let unique: std::collections::HashSet<&String> = names.iter().collect();
                    prop_assert_eq!(unique.len(), names.len(), "duplicates accepted");
                    prop_assert!(!tools.iter().any(|t| reserved.contains(&t.key.as_str()) || reserved.contains(&name(t).as_str())));
                    let plain = match params_text {
                        Some(pt) => catalog_of(entries(&tools), pt, catalog::SearchMode::Enhanced),
                        None => catalog_of(entries(&tools), Vec::new(), catalog::SearchMode::Compatible),
                    };
                    prop_assert_eq!(hits_of(&catalog, &query, p), hits_of(&plain, &query, p));
                }
                Err(BuildError::Catalog(CatalogError::ReservedName { key, name: n })) => {
                    prop_assert!(reserved.contains(&key.as_str()) || reserved.contains(&n.as_str()));
                }
                Err(BuildError::Catalog(CatalogError::DuplicateName { name: n })) => {
                    prop_assert!(tools.iter().filter(|t| name(t) == n).count() >= 2);
                }
                Err(BuildError::Catalog(CatalogError::KeyConflict { key, owner })) => {
                    prop_assert!(tools.iter().any(|t| t.key == owner && name(t) == key && t.key != key));
                    prop_assert!(tools.iter().any(|t| t.key == key));
                }
                Err(BuildError::Joined(e)) => prop_assert!(false, "entries are not joined: {e}"),
            }
        }
    }

    #[test]
    fn enhanced_search_keeps_its_invariants(tools in tools(10), query in text(5), p in params()) {
        let params_text: Vec<String> = tools.iter().map(|t| format!("q: {}", t.description)).collect();
        let catalog = catalog_of(entries(&tools), params_text.clone(), catalog::SearchMode::Enhanced);
        let hits = hits_of(&catalog, &query, p);
        for h in &hits {
            prop_assert!(h.2.is_finite(), "score {}", h.2);
            prop_assert!(h.2 > p.min_score);
            // A hit is always the first tool whose id is the document's name.
            let doc = &tools[h.1 as usize];
            let doc_name = doc.id.clone().unwrap_or_else(|| doc.key.clone());
            prop_assert_eq!(catalog.by_id(&doc_name), Some(h.0));
        }
        for pair in hits.windows(2) {
            prop_assert!(pair[0].2 >= pair[1].2, "not sorted: {:?}", hits);
        }
        if !p.inspect_all {
            prop_assert!(hits.len() <= p.top_k);
            // topK hits are the first topK of the full walk (skipped candidates leave room).
            let all = hits_of(&catalog, &query, SearchParams { inspect_all: true, ..p });
            prop_assert_eq!(&hits[..], &all[..hits.len()]);
            prop_assert!(hits.len() == p.top_k.min(all.len()));
        }
        prop_assert_eq!(hits_of(&catalog_of(entries(&tools), params_text, catalog::SearchMode::Enhanced), &query, p), hits);
        let _ = catalog.suggestion_keys(&query);
    }

    #[test]
    fn catalog_lookups_never_panic(tools in tools(10), probe in name()) {
        let catalog = catalog_of(entries(&tools), Vec::new(), catalog::SearchMode::Compatible);
        let by_key = catalog.by_key(&probe);
        prop_assert_eq!(by_key, tools.iter().position(|t| t.key == probe).map(|i| i as u32));
        let by_id = catalog.by_id(&probe);
        prop_assert_eq!(by_id, tools.iter().position(|t| t.id.as_deref() == Some(probe.as_str())).map(|i| i as u32));
        prop_assert_eq!(catalog.resolve(&probe, false), by_key.or(by_id));
        prop_assert_eq!(catalog.resolve(&probe, true), by_id.or(by_key));
        let rows = catalog.listing(false);
        prop_assert_eq!(rows.len(), tools.len());
        let lower = probe.to_lowercase();
        let expected: Vec<&str> = tools
            .iter()
            .filter(|t| { let k = t.key.to_lowercase(); k.contains(&lower) || lower.contains(&k) })
            .map(|t| t.key.as_str())
            .collect();
        prop_assert_eq!(catalog.suggestion_keys(&probe), expected);
    }

    #[test]
    fn bm25_top_by_score_is_a_stable_sort_prefix(
        scores in prop::collection::vec(prop_oneof![0u8..6, Just(3)].prop_map(|s| f64::from(s) / 2.0), 0..200),
        limit in 0usize..220,
    ) {
        let scored: Vec<Scored> = scores.iter().enumerate().map(|(i, &s)| Scored { slot: i as u32, score: s }).collect();
        let mut stable = scored.clone();
        stable.sort_by(|a, b| b.score.partial_cmp(&a.score).unwrap());
        stable.truncate(limit);
        prop_assert_eq!(top_by_score(scored, limit), stable);
    }

    #[test]
    fn bm25_batch_incremental_and_removal_agree(
        docs in prop::collection::vec(prop::collection::vec(0u32..12, 0..10), 1..14),
        removed in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
        query in prop::collection::vec(prop::option::of(0u32..14), 0..5),
    ) {
        let mut vocab = Vocab::new();
        let terms: Vec<Vec<u32>> = docs.iter().map(|d| d.iter().map(|t| vocab.intern(&format!("t{t}"))).collect()).collect();
        let mut incremental = Bm25Index::default();
        for d in &terms {
            incremental.add(TermCounts::from_terms(d.iter().copied()));
        }
        let batch = Bm25Index::from_docs(terms.iter().map(|d| TermCounts::from_terms(d.iter().copied())).collect(), vocab.len());
        let q: Vec<Option<u32>> = query.iter().map(|t| t.and_then(|t| vocab.get(&format!("t{t}")))).collect();
        prop_assert_eq!(incremental.score(&q), batch.score(&q));
        for s in incremental.score(&q) {
            prop_assert!(s.score.is_finite() && s.score > 0.0);
        }
        // Removing documents, then scoring: only live slots come back, every score finite.
        for r in &removed {
            let slot = r.index(docs.len()) as u32;
            incremental.remove(slot);
            incremental.remove(slot);
        }
        let live: std::collections::HashSet<u32> = (0..docs.len() as u32).filter(|&s| incremental.doc(s).is_some()).collect();
        prop_assert_eq!(incremental.len(), live.len());
        let scored = incremental.score(&q);
        let mut slots = std::collections::HashSet::new();
        for s in &scored {
            prop_assert!(live.contains(&s.slot), "removed slot {} scored", s.slot);
            prop_assert!(slots.insert(s.slot), "slot {} twice", s.slot);
            prop_assert!(s.score.is_finite() && s.score > 0.0);
        }
    }

    #[test]
    fn skill_indexes_never_panic_and_rank_sanely(
        skills in prop::collection::vec((name(), text(6), text(12), prop::collection::vec(text(8), 0..3)), 0..6),
        query in text(4),
        top_k in prop_oneof![Just(f64::NAN), Just(0.0), Just(-1.0), Just(f64::INFINITY), 0.0f64..10.0],
        min_score in prop_oneof![Just(0.0), Just(f64::NAN), -1.0f64..3.0],
    ) {
        let skills: Vec<SkillInput> = skills
            .into_iter()
            .map(|(name, description, instructions, references)| SkillInput { name, description, instructions, references })
            .collect();
        let declared: f64 = skills.iter().map(|s| 1.0 + s.references.len() as f64).sum();
        for mode in [SearchMode::Bm25, SearchMode::Substring, SearchMode::Enhanced] {
            let index = SkillIndex::build(&skills, mode, declared);
            let hits = index.search(&query, top_k, min_score);
            prop_assert_eq!(&SkillIndex::build(&skills, mode, declared).search(&query, top_k, min_score), &hits);
            for h in &hits {
                prop_assert!((h.skill as usize) < skills.len());
                prop_assert!((h.source as usize) <= skills[h.skill as usize].references.len());
                prop_assert!(h.score.is_finite());
                if mode != SearchMode::Substring {
                    prop_assert!(h.score >= min_score, "{:?}: {} < minScore {}", mode, h.score, min_score);
                }
            }
            // Substring mode lists documents in skill order, as the reference's scan does.
            if mode != SearchMode::Substring {
                for pair in hits.windows(2) {
                    prop_assert!(pair[0].score >= pair[1].score, "{:?} not sorted: {:?}", mode, hits);
                }
            }
        }
    }
}

#[test]
fn large_catalogs_build_on_two_threads_and_rank_like_the_model() {
    // 5,000 tools crosses the two-thread tokenizing threshold.
    let tools: Vec<Tool> = (0..5_000)
        .map(|i| Tool {
            key: format!("tool_{i}"),
            id: Some(format!("{}_{i}", WORDS[i % WORDS.len()])),
            description: format!("{} {} {}", WORDS[(i * 7) % WORDS.len()], WORDS[(i * 3) % WORDS.len()], WORDS[i % 5]),
        })
        .collect();
    let catalog = catalog_of(entries(&tools), Vec::new(), catalog::SearchMode::Compatible);
    for query in ["weather email", "data data", "github issue create"] {
        for p in [SearchParams { top_k: 5, min_score: 0.0, inspect_all: false }, SearchParams { top_k: 5, min_score: 1.0, inspect_all: true }] {
            assert_eq!(hits_of(&catalog, query, p), model_search(&tools, query, p), "{query}");
        }
    }
}

#[test]
fn huge_and_empty_documents_build_and_search() {
    // Empty catalogs and empty texts.
    for enhanced in [false, true] {
        let empty = if enhanced { catalog_of(vec![], vec![], catalog::SearchMode::Enhanced) } else { catalog_of(vec![], Vec::new(), catalog::SearchMode::Compatible) };
        assert!(empty.search("anything", SearchParams { top_k: 5, min_score: 0.0, inspect_all: true }).is_empty());
    }
    let blank = vec![Tool { key: String::new(), id: None, description: String::new() }];
    let p = SearchParams { top_k: 5, min_score: 0.0, inspect_all: false };
    assert_eq!(hits_of(&catalog_of(entries(&blank), Vec::new(), catalog::SearchMode::Compatible), "", p), model_search(&blank, "", p));
    // A 150 KB description (one tool) next to ordinary ones, in both ranking modes.
    let huge = "weather forecast data 天气预报 ΟΔΟΣ ".repeat(4_000);
    let tools = vec![
        Tool { key: "big".into(), id: Some("big".into()), description: huge.clone() },
        Tool { key: "weather".into(), id: Some("weather".into()), description: "Get the weather".into() },
    ];
    for query in ["weather", "data forecast", "天气预报"] {
        assert_eq!(hits_of(&catalog_of(entries(&tools), Vec::new(), catalog::SearchMode::Compatible), query, p), model_search(&tools, query, p), "{query}");
        let enhanced = catalog_of(entries(&tools), vec![huge.clone(), String::new()], catalog::SearchMode::Enhanced);
        assert!(hits_of(&enhanced, query, p).iter().all(|h| h.2.is_finite()));
    }
    // A 450 KB SKILL.md in every skill-search mode.
    let skills = vec![SkillInput { name: "big".into(), description: "huge".into(), instructions: huge.repeat(3), references: vec![huge] }];
    for mode in [SearchMode::Bm25, SearchMode::Substring, SearchMode::Enhanced] {
        let hits = SkillIndex::build(&skills, mode, 2.0).search("weather forecast", 5.0, 0.0);
        assert!(!hits.is_empty() && hits.iter().all(|h| h.score.is_finite()), "{mode:?}");
    }
}
