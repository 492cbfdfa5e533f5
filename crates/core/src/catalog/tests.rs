//! The catalog's unit tests (the cross-checks against a model of the reference live in
//! `crates/core/tests`).

use super::build::PARALLEL_MIN_DOCS;
use super::*;

pub(crate) fn entry(handle: u32, key: &str, id: Option<&str>, description: &str) -> ToolEntry {
    ToolEntry { key: key.into(), id: id.map(Into::into), description: description.into(), handle }
}

/// `tools` (with `params`) built in `mode`, without validation.
pub(crate) fn built(tools: Vec<ToolEntry>, params: Vec<String>, mode: SearchMode) -> ToolCatalog {
    ToolCatalog::build(CatalogSource::Entries { tools, params }, &BuildOptions::new(mode)).expect("an unvalidated build of entries cannot fail")
}

/// `tools` built in compatible mode, without validation.
pub(crate) fn compatible(tools: Vec<ToolEntry>) -> ToolCatalog {
    built(tools, Vec::new(), SearchMode::Compatible)
}

const SIX: [(&str, &str); 6] = [
    ("github_create_issue", "Create a new issue on GitHub"),
    ("github_create_pr", "Create a pull request on GitHub"),
    ("linear_create_issue", "Create a new issue in Linear"),
    ("weather_forecast", "Get weather forecast for a location"),
    ("send_email", "Send an email message"),
    ("calendar_schedule", "Schedule a calendar event"),
];

fn six_tools() -> ToolCatalog {
    compatible(SIX.iter().enumerate().map(|(i, (id, d))| entry(i as u32, id, Some(id), d)).collect())
}

fn params(top_k: usize) -> SearchParams {
    SearchParams { top_k, min_score: 0.0, inspect_all: false }
}

fn rounded(hits: &[Hit]) -> Vec<(u32, f64)> {
    hits.iter().map(|h| (h.handle, crate::jsmath::js_round2(h.score))).collect()
}

#[test]
fn a_top_k_past_the_catalog_means_every_hit() {
    let c = six_tools();
    let all = rounded(&c.search("create", params(6)));
    for top_k in [7, u32::MAX as usize, usize::MAX] {
        assert_eq!(rounded(&c.search("create", params(top_k))), all, "{top_k}");
    }
}

#[test]
fn spec_scores() {
    let c = six_tools();
    assert_eq!(rounded(&c.search("github issue", params(5))), [(0, 6.81), (1, 3.41), (2, 3.41)]);
    assert_eq!(rounded(&c.search("create", params(5))), [(0, 2.95), (1, 2.95), (2, 2.95)]);
    assert_eq!(rounded(&c.search("weather forecast", params(5))), [(3, 8.4)]);
    assert_eq!(rounded(&c.search("email", params(5))), [(4, 4.31)]);
    assert_eq!(rounded(&c.search("email email", params(5))), [(4, 8.61)]);
    assert!(c.search("database", params(5)).is_empty());
    assert!(c.search("", params(5)).is_empty());
    assert!(c.search("create", params(0)).is_empty());
}

#[test]
fn min_score_is_strict() {
    let c = six_tools();
    let exact = c.search("email", params(5))[0].score;
    assert!(c.search("email", SearchParams { min_score: exact, ..params(5) }).is_empty());
    assert_eq!(c.search("email", SearchParams { min_score: exact - 1e-9, ..params(5) }).len(), 1);
}

#[test]
fn boost_applies_after_the_cut() {
    // tool-search.md §6 case 30
    let long: Vec<String> = (0..30).map(|i| format!("w{i}")).collect();
    let c = compatible(vec![
        entry(0, "alpha", Some("alpha"), "data data data"),
        entry(1, "beta", Some("beta"), "data data data"),
        entry(2, "gamma", Some("gamma"), "data data data"),
        entry(3, "data_loader", Some("data_loader"), &format!("loads {}", long.join(" "))),
    ]);
    assert_eq!(rounded(&c.search("data", params(1))), [(0, 0.21)]);
    let all = c.search("data", SearchParams { inspect_all: true, ..params(1) });
    assert_eq!(rounded(&all[..1]), [(3, 2.06)]);
}

#[test]
fn name_boost_and_partial_words() {
    let c = compatible(vec![
        entry(0, "weather", Some("weather"), "Get the weather"),
        entry(1, "forecast_at_sea", Some("forecast_at_sea"), "Marine weather forecast"),
    ]);
    assert_eq!(rounded(&c.search("weather", params(5))), [(0, 5.28), (1, 0.17)]);
    assert_eq!(rounded(&c.search("at weather", params(5))), [(0, 7.28), (1, 2.8)]);
    assert!(c.search("weath", params(5)).is_empty());
}

#[test]
fn duplicate_ids_show_the_last_description_and_return_the_first_tool() {
    let c = compatible(vec![entry(0, "a", Some("same"), "first alpha"), entry(1, "b", Some("same"), "second beta")]);
    assert!(c.search("alpha", params(5)).is_empty());
    let hits = c.search("beta", params(5));
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].handle, hits[0].doc_handle), (0, 1));
    assert_eq!(crate::jsmath::js_round2(hits[0].score), 0.29);
}

#[test]
fn id_less_tools_are_indexed_but_never_returned() {
    let c = compatible(vec![entry(0, "client_invoice", None, "Create invoices")]);
    assert!(c.search("invoices", params(5)).is_empty());
    assert_eq!(c.resolve("client_invoice", false), Some(0));
}

#[test]
fn resolution_order_depends_on_filter() {
    let c = compatible(vec![
        entry(0, "weather", Some("public_weather"), ""),
        entry(1, "private_weather", Some("weather"), ""),
    ]);
    assert_eq!(c.resolve("weather", false), Some(0));
    assert_eq!(c.resolve("weather", true), Some(1));
    assert_eq!(c.resolve("nope", true), None);
}

#[test]
fn suggestions_match_substrings_both_ways() {
    let c = compatible(vec![
        entry(0, "weather", Some("weather_tool_id"), ""),
        entry(1, "weather_alerts", Some("weather_alerts"), ""),
        entry(2, "calendar", Some("calendar"), ""),
    ]);
    assert_eq!(c.suggestion_keys("WEATH"), ["weather", "weather_alerts"]);
    assert_eq!(c.suggestion_keys("calendar_x"), ["calendar"]);
}

#[test]
fn overlay_replaces_in_place_and_appends() {
    let base = compatible(vec![entry(0, "weather", Some("weather"), "Get weather"), entry(1, "mail", Some("mail"), "Send mail")]);
    let o = ToolCatalog::overlay(
        &base,
        vec![entry(2, "weather", Some("weather"), "Resolved weather"), entry(3, "mcp_issue", Some("mcp_issue"), "github issue")],
        Vec::new(),
    );
    assert_eq!(o.len(), 3);
    assert_eq!(o.by_key("weather"), Some(2));
    assert_eq!(o.search("github", params(5))[0].handle, 3);
    assert_eq!(o.search("resolved", params(5))[0].handle, 2);
    assert!(o.search("get", params(5)).is_empty());
    // the base is untouched
    assert_eq!(base.by_key("weather"), Some(0));
    assert!(base.search("github", params(5)).is_empty());
    let built = compatible(vec![
        entry(2, "weather", Some("weather"), "Resolved weather"),
        entry(1, "mail", Some("mail"), "Send mail"),
        entry(3, "mcp_issue", Some("mcp_issue"), "github issue"),
    ]);
    for q in ["weather", "github issue", "send mail weather"] {
        assert_eq!(o.search(q, params(5)), built.search(q, params(5)));
    }
}

fn enhanced(tools: &[(&str, &str, &str)]) -> ToolCatalog {
    let entries = tools.iter().enumerate().map(|(i, (id, d, _))| entry(i as u32, id, Some(id), d)).collect();
    built(entries, tools.iter().map(|(_, _, p)| p.to_string()).collect(), SearchMode::Enhanced)
}

#[test]
fn enhanced_mode_finds_word_forms_identifiers_and_parameters() {
    let c = enhanced(&[
        ("send_email", "Send a message to a recipient", "to: recipient address\nsubject: subject line"),
        ("createIssue", "Open a ticket in the tracker", ""),
        ("weather_forecast", "天氣預報 weather for a city", "city: name of the city"),
    ]);
    assert!(c.is_enhanced());
    assert_eq!(c.search("emails", params(5))[0].handle, 0);
    assert_eq!(c.search("create issue", params(5))[0].handle, 1);
    assert_eq!(c.search("subject line", params(5))[0].handle, 0);
    assert_eq!(c.search("天气预报", params(5))[0].handle, 2);
    // compatible mode finds none of these
    let compat = compatible(vec![
        entry(0, "send_email", Some("send_email"), "Send a message to a recipient"),
        entry(1, "createIssue", Some("createIssue"), "Open a ticket in the tracker"),
        entry(2, "weather_forecast", Some("weather_forecast"), "天氣預報 weather for a city"),
    ]);
    assert!(compat.search("emails", params(5)).is_empty());
    assert!(compat.search("天气预报", params(5)).is_empty());
}

#[test]
fn enhanced_mode_respects_top_k_min_score_and_id_less_tools() {
    let c = enhanced(&[("a_tool", "shared words here", ""), ("b_tool", "shared words too", ""), ("c_tool", "shared", "")]);
    assert_eq!(c.search("shared", params(2)).len(), 2);
    assert!(c.search("shared", params(0)).is_empty());
    let all = c.search("shared", SearchParams { inspect_all: true, ..params(1) });
    assert_eq!(all.len(), 3);
    let high = all[0].score;
    assert!(c.search("shared", SearchParams { min_score: high, ..params(5) }).iter().all(|h| h.score > high));
    // an id-less tool ranks first but is skipped; the next ones still fill topK
    let mut entries = vec![entry(0, "client", None, "shared shared shared")];
    entries.push(entry(1, "b_tool", Some("b_tool"), "shared words"));
    entries.push(entry(2, "c_tool", Some("c_tool"), "shared other words"));
    let c = built(entries, vec![], SearchMode::Enhanced);
    assert_eq!(c.search("shared", params(1)).len(), 1);
    assert_eq!(c.search("shared", params(1))[0].handle, 1);
}

#[test]
fn enhanced_suggestions_rank_by_closeness_and_overlay_stays_enhanced() {
    let c = enhanced(&[("calendar_events", "", ""), ("weather_report", "", ""), ("weather_radar", "", "")]);
    assert_eq!(c.suggestion_keys("wether_report").first(), Some(&"weather_report"));
    let o = ToolCatalog::overlay(&c, vec![entry(3, "mcp_emails", Some("mcp_emails"), "Read emails")], vec![String::new()]);
    assert!(o.is_enhanced());
    assert_eq!(o.search("email", params(5))[0].handle, 3);
}

#[test]
fn ambiguous_catalogs_are_reported() {
    let reserved = ["search_tools", "load_tool"];
    let check = |entries: Vec<ToolEntry>| compatible(entries).check_unambiguous(&reserved);
    assert_eq!(check(vec![entry(0, "a", Some("x"), ""), entry(1, "b", Some("y"), "")]), Ok(()));
    assert_eq!(
        check(vec![entry(0, "a", Some("same"), ""), entry(1, "b", Some("same"), "")]),
        Err(CatalogError::DuplicateName { name: "same".into() })
    );
    assert_eq!(
        check(vec![entry(0, "search_tools", Some("x"), "")]),
        Err(CatalogError::ReservedName { key: "search_tools".into(), name: "x".into() })
    );
    let conflict = check(vec![entry(0, "weather", Some("public_weather"), ""), entry(1, "private_weather", Some("weather"), "")]);
    assert_eq!(conflict, Err(CatalogError::KeyConflict { key: "weather".into(), owner: "private_weather".into() }));
    assert!(conflict.unwrap_err().to_string().starts_with("ToolSearchProcessor tool key \"weather\" conflicts"));
    // a key equal to its own tool's id is fine
    assert_eq!(check(vec![entry(0, "weather", Some("weather"), "")]), Ok(()));
}

#[test]
fn validated_build_rejects_ambiguity_and_otherwise_equals_the_plain_build() {
    let reserved = ["search_tools", "load_tool"];
    let dup = vec![entry(0, "a", Some("same"), ""), entry(1, "b", Some("same"), "")];
    let validated = |key_conflicts| BuildOptions::default().validated(&reserved, key_conflicts);
    assert_eq!(
        ToolCatalog::build(dup.into(), &validated(KeyConflicts::Reject)).unwrap_err(),
        BuildError::Catalog(CatalogError::DuplicateName { name: "same".into() })
    );
    let tools = || {
        SIX.iter().enumerate().map(|(i, (id, d))| entry(i as u32, id, Some(id), d)).collect::<Vec<_>>()
    };
    let checked = ToolCatalog::build(tools().into(), &validated(KeyConflicts::Reject)).unwrap();
    let plain = compatible(tools());
    for q in ["github issue", "create", "email email", "weather forecast"] {
        assert_eq!(checked.search(q, params(5)), plain.search(q, params(5)));
    }
}

#[test]
fn two_thread_build_ranks_exactly_like_one_thread() {
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "weather", "email", "issue", "calendar", "zeta"];
    let mut seed = 99u64;
    let mut pick = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        words[(seed >> 33) as usize % words.len()]
    };
    let entries: Vec<ToolEntry> = (0..PARALLEL_MIN_DOCS as u32 + 500)
        .map(|i| {
            let id = format!("{}_{}_{i}", pick(), pick());
            let description = (0..8).map(|_| pick()).collect::<Vec<_>>().join(" ");
            entry(i, &id, Some(&id), &description)
        })
        .collect();
    let parallel = compatible(entries.clone());
    // An overlay on an empty base takes the single-threaded path.
    let sequential = ToolCatalog::overlay(&compatible(vec![]), entries, Vec::new());
    for q in ["alpha", "weather email", "issue issue calendar", "zeta beta gamma delta", "nothing"] {
        for p in [params(5), params(50), SearchParams { inspect_all: true, ..params(5) }] {
            assert_eq!(parallel.search(q, p), sequential.search(q, p), "{q}");
        }
    }
}

#[test]
fn key_conflicts_can_be_accepted_and_resolve_like_the_reference() {
    let reserved = ["search_tools", "load_tool"];
    let tools = || vec![entry(0, "weather", Some("public_weather"), "pub"), entry(1, "private_weather", Some("weather"), "priv")];
    let validated = |key_conflicts| BuildOptions::default().validated(&reserved, key_conflicts);
    assert!(ToolCatalog::build(tools().into(), &validated(KeyConflicts::Reject)).is_err());
    let c = ToolCatalog::build(tools().into(), &validated(KeyConflicts::Accept)).unwrap();
    assert_eq!(c.resolve("weather", false), Some(0));
    assert_eq!(c.resolve("weather", true), Some(1));
    // duplicates and reserved names are still rejected
    let dup = vec![entry(0, "a", Some("same"), ""), entry(1, "b", Some("same"), "")];
    assert!(ToolCatalog::build(dup.into(), &validated(KeyConflicts::Accept)).is_err());
    let res = vec![entry(0, "load_tool", Some("x"), "")];
    assert!(ToolCatalog::build(res.into(), &validated(KeyConflicts::Accept)).is_err());
}

#[test]
fn listing_rows_follow_keys_resolution_and_the_named_document() {
    let c = compatible(vec![
        entry(0, "weather", Some("public_weather"), "pub"),
        entry(1, "private_weather", Some("weather"), "priv"),
        entry(2, "bare", None, "no id"),
    ]);
    let row = |key, tool, doc| ListingRow { key_handle: key, tool_handle: tool, doc_handle: doc };
    assert_eq!(c.listing(false), [row(0, 0, Some(0)), row(1, 1, Some(1)), row(2, 2, Some(2))]);
    // id-first: the key "weather" names the tool whose id is "weather"
    assert_eq!(c.listing(true), [row(0, 1, Some(1)), row(1, 1, Some(1)), row(2, 2, Some(2))]);
    // a repeated name shows the last indexed tool's description
    let d = compatible(vec![entry(0, "a", Some("same"), "first"), entry(1, "b", Some("same"), "second")]);
    assert_eq!(d.listing(false), [row(0, 0, Some(1)), row(1, 1, Some(1))]);
    // an overlay lists in merged key order with the resolved tool in place
    let o = ToolCatalog::overlay(&c, vec![entry(3, "bare", Some("bare2"), "x"), entry(4, "new", None, "n")], Vec::new());
    let rows = o.listing(false);
    assert_eq!(rows.iter().map(|r| r.key_handle).collect::<Vec<_>>(), [0, 1, 3, 4]);
    assert_eq!(rows[2], row(3, 3, Some(3)));
}

#[test]
fn array_index_keys_enumerate_first() {
    assert!(is_array_index("0") && is_array_index("123") && is_array_index("4294967294"));
    assert!(!is_array_index("01") && !is_array_index("4294967295") && !is_array_index("-1") && !is_array_index(""));
    let base = compatible(vec![entry(0, "5", Some("five"), ""), entry(1, "b", Some("b"), "")]);
    let o = ToolCatalog::overlay(&base, vec![entry(2, "z", Some("z"), ""), entry(3, "2", Some("two"), "")], Vec::new());
    let order: Vec<&str> = o.entries.iter().map(|e| e.key).collect();
    assert_eq!(o.search("two", params(5))[0].handle, 3);
    assert_eq!(order, ["2", "5", "b", "z"]);
}

/// [`crate::test_support::xorshift`] for `usize` bounds.
fn below(seed: u64) -> impl FnMut(usize) -> usize {
    let mut next = crate::test_support::xorshift(seed);
    move |k| next(k as u64) as usize
}

#[test]
fn joined_text_builds_equal_owned_entry_builds() {
    // Random catalogs with repeated names, id-less tools, keys equal to ids and
    // non-ASCII text: the catalog read in place from one joined text must search, list
    // and resolve exactly like the one built from owned entries, and so must overlays.
    let words = ["alpha", "beta", "天氣", "검색", "email", "issue", "calendar", "zeta", "ÉTÉ", "send"];
    let mut next = below(7);
    for round in 0..40 {
        let n = 1 + next(60);
        let enhanced = round % 4 == 3;
        let mut tools: Vec<(ToolEntry, String)> = Vec::new();
        for i in 0..n {
            let key = format!("{}_{}", words[next(words.len())], next(n + 3));
            let id = match next(4) {
                0 => None,
                1 => Some(key.clone()),
                _ => Some(format!("{}{}", words[next(words.len())], next(n))),
            };
            let description = (0..next(8)).map(|_| words[next(words.len())]).collect::<Vec<_>>().join(" ");
            let params = if enhanced { (0..next(3)).map(|_| words[next(words.len())]).collect::<Vec<_>>().join(" ") } else { String::new() };
            tools.push((entry(i as u32, &key, id.as_deref(), &description), params));
        }
        let joined = tools
            .iter()
            .map(|(e, p)| {
                let mut fields = format!("{}\0{}\0{}", e.key, e.id.as_deref().unwrap_or(""), e.description);
                if enhanced {
                    fields.push('\0');
                    fields.push_str(p);
                }
                fields
            })
            .collect::<Vec<_>>()
            .join("\0");
        let entries: Vec<ToolEntry> = tools.iter().map(|(e, _)| e.clone()).collect();
        let owned = if enhanced {
            built(entries, tools.iter().map(|(_, p)| p.clone()).collect(), SearchMode::Enhanced)
        } else {
            compatible(entries)
        };
        let mode = if enhanced { SearchMode::Enhanced } else { SearchMode::Compatible };
        let in_place = ToolCatalog::build(CatalogSource::Joined { text: &joined, count: n }, &BuildOptions::new(mode)).unwrap();
        let extra = vec![entry(n as u32, "0", Some("email_new"), "send email now"), entry(n as u32 + 1, &tools[0].0.key, None, "replaced 天氣")];
        let extra_params = if enhanced { vec!["to".to_owned(), String::new()] } else { Vec::new() };
        let overlays = (ToolCatalog::overlay(&owned, extra.clone(), extra_params.clone()), ToolCatalog::overlay(&in_place, extra, extra_params));
        for (a, b) in [(&owned, &in_place), (&overlays.0, &overlays.1)] {
            assert_eq!(a.listing(false), b.listing(false), "round {round}");
            assert_eq!(a.listing(true), b.listing(true), "round {round}");
            for q in words.iter().chain(&["email send", "天氣 issue", "beta_3", "alpha alpha zeta"]) {
                let all = SearchParams { inspect_all: true, ..params(3) };
                assert_eq!(a.search(q, params(3)), b.search(q, params(3)), "round {round} {q}");
                assert_eq!(a.search(q, all), b.search(q, all), "round {round} {q}");
                assert_eq!(a.suggestion_keys(q), b.suggestion_keys(q), "round {round} {q}");
                assert_eq!((a.by_key(q), a.by_id(q), a.resolve(q, true)), (b.by_key(q), b.by_id(q), b.resolve(q, true)));
            }
            for (e, _) in &tools {
                assert_eq!((a.by_key(&e.key), a.by_id(e.name())), (b.by_key(&e.key), b.by_id(e.name())));
            }
        }
    }
}

#[test]
fn names_resolve_like_a_scan() {
    // by_id is the first tool with that id, by_key the (last) tool with that key, with
    // ids equal to their own key (kept out of the id map when keys are unique), ids
    // shared across tools, id-less tools and, through the Rust API, repeated keys.
    let pool = ["a", "b", "c", "d"];
    let mut next = below(11);
    for round in 0..300 {
        let n = 1 + next(8);
        let repeat_keys = round % 3 == 0;
        let entries: Vec<ToolEntry> = (0..n)
            .map(|i| {
                let key = if repeat_keys { pool[next(4)].to_owned() } else { format!("{}{i}", pool[next(4)]) };
                let id = match next(3) {
                    0 => None,
                    1 => Some(key.clone()),
                    _ => Some(if next(2) == 0 { pool[next(4)].to_owned() } else { format!("{}{}", pool[next(4)], next(n)) }),
                };
                entry(i as u32, &key, id.as_deref(), "")
            })
            .collect();
        let catalog = compatible(entries.clone());
        let names: Vec<String> = pool.iter().map(|s| s.to_string()).chain((0..n).flat_map(|i| pool.iter().map(move |p| format!("{p}{i}")))).collect();
        for name in &names {
            let first_id = entries.iter().find(|e| e.id.as_deref() == Some(name.as_str())).map(|e| e.handle);
            let last_key = entries.iter().rev().find(|e| e.key == *name).map(|e| e.handle);
            assert_eq!(catalog.by_id(name), first_id, "round {round} {name}");
            assert_eq!(catalog.by_key(name), last_key, "round {round} {name}");
        }
    }
}

#[test]
fn a_checked_source_builds_like_the_source() {
    let reserved = ["search_tools", "load_tool"];
    let tools = || SIX.iter().enumerate().map(|(i, (id, d))| entry(i as u32, id, Some(id), d)).collect::<Vec<_>>();
    let joined = tools().iter().map(|e| format!("{}\0{}\0{}", e.key, e.id.as_deref().unwrap_or(""), e.description)).collect::<Vec<_>>().join("\0");
    for options in [BuildOptions::default(), BuildOptions::default().validated(&reserved, KeyConflicts::Reject)] {
        let checked = CatalogSource::Joined { text: &joined, count: SIX.len() }.check(&options).unwrap();
        assert_eq!(checked.len(), SIX.len());
        let from_checked = ToolCatalog::build(checked.into(), &options).unwrap();
        let from_entries = ToolCatalog::build(tools().into(), &options).unwrap();
        for q in ["github issue", "create", "email email", "weather forecast"] {
            assert_eq!(from_checked.search(q, params(5)), from_entries.search(q, params(5)));
        }
    }
    // unvalidated, a checked source keeps the reference's indexing of a repeated name
    let dup = vec![entry(0, "a", Some("same"), "first alpha"), entry(1, "b", Some("same"), "second beta")];
    let checked = CatalogSource::from(dup.clone()).check(&BuildOptions::default()).unwrap();
    let c = ToolCatalog::build(checked.into(), &BuildOptions::default()).unwrap();
    assert!(c.search("alpha", params(5)).is_empty());
    assert_eq!(c.search("beta", params(5)).len(), 1);
    // validated, the check fails as the build does
    let validated = BuildOptions::default().validated(&reserved, KeyConflicts::Reject);
    assert_eq!(CatalogSource::from(dup.clone()).check(&validated).unwrap_err(), ToolCatalog::build(dup.into(), &validated).unwrap_err());
    let short = CatalogSource::Joined { text: "a\0\0x", count: 2 }.check(&validated).unwrap_err();
    assert_eq!(short, BuildError::Joined(JoinedError::TooFewFields));
}

#[test]
fn action_mismatches_name_the_siblings_of_another_action() {
    let tools = [
        ("tracker_create_issue", "Create a new issue in a project"),
        ("tracker_list_issues", "List issues in a project"),
        ("tracker_delete_issue", "Delete an issue"),
        ("get_weather", "Weather forecast for a city"),
    ];
    let entries = tools.iter().enumerate().map(|(i, (n, d))| entry(i as u32, n, Some(n), d)).collect::<Vec<_>>();
    let names: Vec<&str> = tools.iter().map(|t| t.0).chain(["not_a_tool"]).collect();
    let c = built(entries.clone(), vec![], SearchMode::Enhanced);
    assert_eq!(c.action_mismatches("list the issues of the web project", &names), [true, false, true, false, false]);
    assert_eq!(c.action_mismatches("create an issue about the login bug", &names), [false, true, true, false, false]);
    // a request naming no action, and compatible mode, mismatch nothing
    assert_eq!(c.action_mismatches("the web project's issues", &names), [false; 5]);
    assert_eq!(built(entries, vec![], SearchMode::Compatible).action_mismatches("list the issues", &names), [false; 5]);
}
