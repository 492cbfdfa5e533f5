//! The learned-evidence index: merging repeats, bounds and eviction order, decay, deletion,
//! scopes and minResources, payloads, and that an unrelated request gets no vote.

use mastra_native_core::learn::*;

const DAY: f64 = 86_400_000.0;

fn index(global: bool) -> LearnedIndex {
    let mut config = LearnConfig::default();
    config.rules.global = global;
    LearnedIndex::new(config)
}

fn f(text: &str) -> Features {
    features_of(text)
}

#[test]
fn stems_and_stopwords_make_the_terms() {
    assert_eq!(f("booking the tables").terms, f("book table").terms);
    assert!(f("the to my").terms.is_empty());
    assert!(!f("幫我開個PR").terms.is_empty());
}

#[test]
fn a_repeat_is_merged_not_stored_again() {
    let mut ix = index(false);
    assert!(ix.add("r:a", "a", "book_table", f("book a table at Luigi"), 1.0, false));
    assert!(ix.add("r:a", "a", "book_table", f("book a table at Luigi"), 2.0, false));
    assert_eq!(ix.stats().examples, 1);
    // another resource's or tool's is another example
    ix.add("r:a", "b", "book_table", f("book a table at Luigi"), 2.0, false);
    ix.add("r:a", "a", "other", f("book a table at Luigi"), 2.0, false);
    assert_eq!(ix.stats(), LearnStats { examples: 3, seeds: 0, resources: 2, bytes: ix.stats().bytes });
    assert!(!ix.add("r:a", "a", "x", f("the"), 1.0, false), "no term, no example");
}

#[test]
fn a_call_no_later_than_the_last_counted_is_a_replay() {
    let mut ix = index(false);
    assert!(ix.add("r:a", "a", "book_table", f("book a table at Luigi"), 5.0, false));
    assert!(!ix.add("r:a", "a", "book_table", f("book a table at Luigi"), 5.0, false), "the same call read back");
    assert!(!ix.add("r:a", "a", "book_table", f("book a table at Luigi"), 3.0, false), "an older call of a conversation read back");
    assert!(ix.add("r:a", "a", "book_table", f("book a table at Luigi"), 6.0, false), "a later use");
    assert_eq!(ix.stats().examples, 1);
    // replays do not count as uses: a call read back three times is evicted as one use
    let mut config = LearnConfig::default();
    config.max_examples = 3;
    let mut ix = LearnedIndex::new(config);
    for t in 0..3 {
        ix.add("g", "a", "replayed", f("replayed request"), 0.0, false);
        ix.add("g", "a", "popular", f("popular request"), t as f64, false);
    }
    ix.add("g", "a", "x", f("request words x"), 10.0, false);
    ix.add("g", "a", "y", f("request words y"), 20.0, false);
    let kept = |ix: &mut LearnedIndex, text: &str, tool: &str| ix.votes(&["g"], Some("a"), &f(text), 20.0).iter().any(|v| v.tool == tool);
    assert!(kept(&mut ix, "popular request", "popular"));
    assert!(!kept(&mut ix, "replayed request", "replayed"));
}

#[test]
fn similar_requests_vote_for_their_tool_and_unrelated_ones_get_nothing() {
    let mut ix = index(false);
    ix.add("r:a", "a", "book_table", f("sort out dinner for four on friday at Luigi"), 0.0, false);
    ix.add("r:a", "a", "get_weather", f("is it raining in Oslo tomorrow"), 0.0, false);
    let votes = ix.votes(&["r:a"], Some("a"), &f("sort out dinner for two on saturday at Luigi"), 0.0);
    assert_eq!(votes[0].tool, "book_table");
    assert!(votes[0].confidence > 0.45 && votes[0].confidence < 1.0, "{votes:?}");
    assert!(ix.votes(&["r:a"], Some("a"), &f("convert 20 euros to yen"), 0.0).is_empty());
    // another partition sees nothing
    assert!(ix.votes(&["r:b"], Some("b"), &f("sort out dinner for two at Luigi"), 0.0).is_empty());
}

#[test]
fn votes_decay_with_age_and_seeds_do_not() {
    let mut ix = index(false);
    ix.add("r:a", "a", "book_table", f("dinner at Luigi"), 0.0, false);
    ix.add(SEED_PARTITION, SEED_PARTITION, "get_weather", f("weather at Luigi"), 0.0, true);
    let fresh = ix.votes(&["r:a"], Some("a"), &f("dinner at Luigi"), 0.0)[0].confidence;
    let old = ix.votes(&["r:a"], Some("a"), &f("dinner at Luigi"), 60.0 * DAY)[0].confidence;
    // confidence = votes / (votes + prior 0.25): a full vote 1/1.25, two half-lives 0.25/0.5
    assert!((fresh - 0.8).abs() < 1e-6 && (old - 0.5).abs() < 1e-6, "two half-lives: {fresh} -> {old}");
    let seed_now = ix.votes(&[SEED_PARTITION], Some("a"), &f("weather at Luigi"), 0.0)[0].confidence;
    let seed_later = ix.votes(&[SEED_PARTITION], Some("a"), &f("weather at Luigi"), 600.0 * DAY)[0].confidence;
    assert_eq!(seed_now, seed_later);
}

#[test]
fn global_scope_needs_distinct_resources_unless_own_or_seeded() {
    let mut ix = index(true);
    ix.add("g", "mallory", "evil_tool", f("send the quarterly report to finance"), 0.0, false);
    let q = f("send the quarterly report to finance please");
    assert!(ix.votes(&["g"], Some("alice"), &q, 0.0).is_empty(), "one resource cannot teach another");
    assert_eq!(ix.votes(&["g"], Some("mallory"), &q, 0.0)[0].tool, "evil_tool", "its own votes count for itself");
    ix.add("g", "bob", "evil_tool", f("send quarterly report to finance now"), 0.0, false);
    let votes = ix.votes(&["g"], Some("alice"), &q, 0.0);
    assert_eq!((votes[0].tool.as_str(), votes[0].resources), ("evil_tool", 2));
    // a resource counts once per tool: repeats from mallory do not make two resources
    let mut ix = index(true);
    ix.add("g", "mallory", "evil_tool", f("send the quarterly report to finance"), 0.0, false);
    ix.add("g", "mallory", "evil_tool", f("send the quarterly report to finance today"), 0.0, false);
    assert!(ix.votes(&["g"], Some("alice"), &q, 0.0).is_empty());
}

#[test]
fn bounds_evict_the_least_used_and_oldest_first_down_to_ninety_percent() {
    let mut config = LearnConfig::default();
    config.max_examples = 10;
    let mut ix = LearnedIndex::new(config);
    ix.add(SEED_PARTITION, SEED_PARTITION, "seeded", f("seed request words"), 0.0, true);
    // "popular" used three times; the rest once, at increasing times
    for t in 0..3 {
        ix.add("g", "a", "popular", f("popular request"), t as f64, false);
    }
    for i in 0..10 {
        ix.add("g", "a", &format!("t{i}"), f(&format!("request number w{i}")), (i + 1) as f64 * 1000.0, false);
    }
    let stats = ix.stats();
    assert_eq!(stats.examples, 9, "down to 90% of 10");
    assert_eq!(stats.seeds, 1, "seeds are never evicted");
    let kept = |ix: &mut LearnedIndex, text: &str, tool: &str| ix.votes(&["g"], Some("a"), &f(text), 10_000.0).iter().any(|v| v.tool == tool);
    assert!(kept(&mut ix, "popular request", "popular"));
    assert!(!kept(&mut ix, "request number w0", "t0"), "the oldest single use went first");
    assert!(!kept(&mut ix, "request number w1", "t1"));
    assert!(kept(&mut ix, "request number w9", "t9"));
}

#[test]
fn the_byte_bound_holds() {
    let mut config = LearnConfig::default();
    config.max_bytes = 4096;
    let mut ix = LearnedIndex::new(config);
    for i in 0..500 {
        ix.add("g", "a", "t", f(&format!("request {i} alpha{i} beta{i}")), i as f64, false);
        assert!(ix.stats().bytes <= 4096);
    }
    assert!(ix.stats().examples > 10);
}

#[test]
fn forget_and_clear() {
    let mut ix = index(false);
    ix.add(SEED_PARTITION, SEED_PARTITION, "seeded", f("seed request"), 0.0, true);
    ix.add("r:a", "a", "t1", f("first request"), 0.0, false);
    ix.add("r:a", "a", "t2", f("second request"), 0.0, false);
    ix.add("r:b", "b", "t1", f("first request"), 0.0, false);
    assert_eq!(ix.forget_resource("a"), 2);
    assert_eq!(ix.forget_resource("a"), 0);
    assert!(ix.votes(&["r:a"], Some("a"), &f("first request"), 0.0).is_empty());
    assert_eq!(ix.votes(&["r:b"], Some("b"), &f("first request"), 0.0)[0].tool, "t1");
    ix.clear();
    assert_eq!(ix.stats(), LearnStats { examples: 0, seeds: 1, resources: 0, bytes: 0 });
    assert_eq!(ix.votes(&[SEED_PARTITION], None, &f("seed request"), 0.0)[0].tool, "seeded");
}

#[test]
fn payloads_round_trip_and_garbage_is_refused() {
    let mut features = f("book a table at Luigi for four");
    features.vector = quantize(&[0.5, -0.25, 0.0, 1.0]);
    assert_eq!(features.vector.as_deref(), Some(&[64i8, -32, 0, 127][..]));
    let payload = encode_payload(&features);
    assert_eq!(decode_payload(&payload), Some(features.clone()));
    assert_eq!(decode_payload("not base64 at all!"), None);
    assert_eq!(decode_payload(""), None);
    assert_eq!(decode_payload(&payload[..payload.len() - 4]), None);
    // (a vector value of -128 is never quantized: a payload carrying one is not ours)
    let mut forged = features.clone();
    forged.vector = Some(vec![64, -128, 0, 127]);
    assert_eq!(decode_payload(&encode_payload(&forged)), None);
    let mut ix = index(false);
    assert!(ix.add("r:a", "a", "book_table", decode_payload(&payload).unwrap(), 0.0, false));
    assert_eq!(ix.votes(&["r:a"], Some("a"), &f("table at Luigi"), 0.0)[0].tool, "book_table");
}

#[test]
fn vectors_find_neighbours_that_share_no_term() {
    let mut ix = index(false);
    let mut past = f("dinner reservation");
    past.vector = quantize(&[1.0, 0.1, 0.0, 0.0]);
    ix.add("r:a", "a", "book_table", past, 0.0, false);
    let mut other = f("weather forecast");
    other.vector = quantize(&[0.0, 0.0, 1.0, 0.0]);
    ix.add("r:a", "a", "get_weather", other, 0.0, false);
    let mut query = f("réserver un restaurant");
    query.vector = quantize(&[0.95, 0.15, 0.05, 0.0]);
    let votes = ix.votes(&["r:a"], Some("a"), &query, 0.0);
    assert_eq!(votes.len(), 1);
    assert_eq!(votes[0].tool, "book_table");
    // lexical-only: nothing
    let mut lexical = LearnConfig::default();
    lexical.blend.vector_weight = 0.0;
    ix.config = lexical;
    assert!(ix.votes(&["r:a"], Some("a"), &query, 0.0).is_empty());
}

#[test]
fn a_very_common_term_does_not_walk_every_example() {
    let mut config = LearnConfig::default();
    config.max_examples = 100_000;
    config.max_bytes = 1 << 30;
    let mut ix = LearnedIndex::new(config);
    for i in 0..20_000 {
        ix.add("g", &format!("u{}", i % 50), &format!("tool{}", i % 300), f(&format!("please help w{i} x{}", i % 997)), 0.0, false);
    }
    let t0 = std::time::Instant::now();
    for _ in 0..100 {
        ix.votes(&["g"], Some("u1"), &f("please help w17 x17"), 0.0);
    }
    let per = t0.elapsed().as_secs_f64() * 10.0;
    // (debug build, generous; the release bench measures the real cost)
    assert!(per < 5.0, "{per} ms per request");
    assert_eq!(ix.votes(&["g"], Some("u1"), &f("please help w17 x17"), 0.0)[0].tool, "tool17");
}

fn assert_profile_is_a_rebuild(ix: &LearnedIndex, partition: &str, tool: &str) {
    let (kept, rebuilt, kept_resources, rebuilt_resources) = ix.profile_check(partition, tool).expect("a profile");
    assert_eq!(kept_resources, rebuilt_resources, "{tool}: contributing resources");
    assert_eq!(kept.len(), rebuilt.len(), "{tool}: terms");
    for ((t1, w1), (t2, w2)) in kept.iter().zip(&rebuilt) {
        assert_eq!(t1, t2);
        assert!((w1 - w2).abs() < 1e-4, "{tool}: term {t1} weighs {w1} kept, {w2} rebuilt");
    }
}

#[test]
fn profiles_stay_equal_to_a_rebuild_through_add_merge_evict_and_forget() {
    let mut config = LearnConfig::default();
    config.max_examples = 40;
    let mut ix = LearnedIndex::new(config);
    let words = ["dinner", "table", "weather", "rain", "invoice", "finance", "report", "flight", "hotel", "taxi", "paris", "oslo"];
    let tools = ["book_table", "get_weather", "send_report", "book_trip"];
    let mut seed = 7u64;
    let mut next = |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for step in 0..300 {
        let text = format!("{} {}", words[next(5)], words[next(12)]);
        let tool = tools[next(4)];
        let resource = format!("u{}", next(5));
        // (repeats of a few texts merge: uses + 1 and a later time)
        ix.add("g", &resource, tool, f(&text), step as f64 * DAY, false);
        if step % 97 == 96 {
            ix.forget_resource("u3");
        }
        assert!(ix.profile_postings_agree(), "step {step}: the posting lists a search walks hold the profiles' weights");
    }
    assert!(ix.stats().examples <= 40);
    for tool in tools {
        if ix.profile_check("g", tool).is_some() {
            assert_profile_is_a_rebuild(&ix, "g", tool);
        }
    }
    ix.forget_resource("u1");
    for tool in tools {
        if ix.profile_check("g", tool).is_some() {
            assert_profile_is_a_rebuild(&ix, "g", tool);
        }
    }
    assert!(ix.profile_postings_agree());
    ix.clear();
    assert!(tools.iter().all(|t| ix.profile_check("g", t).is_none()), "forgotten examples leave no profile");
}

#[test]
fn a_tools_past_requests_together_match_and_unrelated_requests_do_not() {
    let mut ix = index(false);
    ix.add("r:a", "a", "book_table", f("dinner for four at Luigi"), 0.0, false);
    ix.add("r:a", "a", "book_table", f("reserve a table tonight"), 0.0, false);
    ix.add("r:a", "a", "get_weather", f("is it raining in Oslo tomorrow"), 0.0, false);
    // shares one word with each past request of book_table, none with get_weather's
    let hits = ix.profile_matches(&["r:a"], Some("a"), &f("a table for dinner"));
    assert_eq!(hits[0].tool.as_ref(), "book_table", "{hits:?}");
    assert!(hits.iter().all(|h| h.tool.as_ref() != "get_weather"));
    assert!(ix.profile_matches(&["r:a"], Some("a"), &f("convert 20 euros to yen")).is_empty());
    assert!(ix.profile_matches(&["r:b"], Some("b"), &f("a table for dinner")).is_empty());
}

#[test]
fn profiles_in_global_scope_need_distinct_resources_unless_own_or_seeded() {
    let mut config = LearnConfig::default();
    config.rules.global = true;
    config.rules.min_resources = 3;
    let mut ix = LearnedIndex::new(config);
    let q = f("send the quarterly report to finance please");
    ix.add("g", "mallory", "evil_tool", f("send the quarterly report to finance"), 0.0, false);
    ix.add("g", "alice", "evil_tool", f("weather in oslo"), 0.0, false);
    ix.add("g", "alice", "good_tool", f("quarterly numbers"), 0.0, false);
    let hits = ix.profile_matches(&["g"], Some("bob"), &q);
    assert!(hits.iter().all(|h| h.tool.as_ref() != "evil_tool"), "two resources of three: {hits:?}");
    // mallory's own contributions count for mallory; alice's own part of the profile does not match
    assert_eq!(ix.profile_matches(&["g"], Some("mallory"), &q)[0].tool.as_ref(), "evil_tool");
    assert!(ix.profile_matches(&["g"], Some("alice"), &q).iter().all(|h| h.tool.as_ref() != "evil_tool"));
    ix.add("g", "carol", "evil_tool", f("quarterly report for finance"), 0.0, false);
    let hits = ix.profile_matches(&["g"], Some("bob"), &q);
    assert_eq!((hits[0].tool.as_ref(), hits[0].resources), ("evil_tool", 3));
    // a seed is trusted alone
    ix.add(SEED_PARTITION, SEED_PARTITION, "seeded_tool", f("book flight to paris"), 0.0, true);
    assert_eq!(ix.profile_matches(&["g", SEED_PARTITION], Some("bob"), &f("flight to paris"))[0].tool.as_ref(), "seeded_tool");
}

#[test]
fn a_profile_weighs_recent_requests_over_old_ones() {
    let mut ix = index(false);
    ix.add("r:a", "a", "tool", f("alpha beta"), 0.0, false);
    ix.add("r:a", "a", "tool", f("gamma delta"), 300.0 * DAY, false);
    let recent = ix.profile_matches(&["r:a"], Some("a"), &f("gamma delta"))[0].similarity;
    let old = ix.profile_matches(&["r:a"], Some("a"), &f("alpha beta"));
    assert!(old.is_empty() || old[0].similarity < recent / 2.0, "ten half-lives apart: {old:?} vs {recent}");
    assert_profile_is_a_rebuild(&ix, "r:a", "tool");
}

#[test]
fn profiles_count_against_the_byte_bound() {
    // one tool per example: every example brings a profile of its own
    let mut config = LearnConfig::default();
    config.max_bytes = 16_384;
    let mut ix = LearnedIndex::new(config);
    for i in 0..400 {
        ix.add("g", "a", &format!("tool{i}"), f(&format!("request {i} alpha{i} beta{i} gamma{i}")), i as f64, false);
        assert!(ix.stats().bytes <= 16_384, "after {i}: {:?}", ix.stats());
    }
    let kept = ix.stats();
    // a profile costs at least its overhead: fewer examples fit than without profiles
    let mut alone = LearnedIndex::new(LearnConfig::default());
    alone.add("g", "a", "tool", f("request 1 alpha1 beta1 gamma1"), 0.0, false);
    assert!(alone.stats().bytes > 256, "an example and its profile: {:?}", alone.stats());
    assert!(kept.examples > 5 && kept.examples * 256 < 16_384, "{kept:?}");
    // forgetting everything frees the profiles too
    ix.clear();
    assert_eq!(ix.stats().bytes, 0);
}
