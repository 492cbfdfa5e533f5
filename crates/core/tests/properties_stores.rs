//! Property tests for the loaded-name stores behind ToolSearchProcessor: random sequences of
//! reads, writes, clears and TTL sweeps on the in-memory store agree with a model of the
//! reference's `Map<thread, { tools: Set, lastAccessed }>`; the context-storage supplemental set
//! and the activation records read from random message results keep their invariants.
//!
//! `PROPTEST_CASES=5000 cargo test -p mastra-native-core --test properties_stores` searches longer.

use std::collections::HashMap;

use mastra_native_core::store::{derive_activated_names, ActivationRecord, InMemoryStore, MetaTool, SupplementalStore};
use proptest::prelude::*;

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[derive(Debug, Clone)]
enum Op {
    Read(u8),
    Add(u8, Vec<u8>),
    Clear(u8),
    ClearAll,
    /// Sweep with a TTL so large that nothing is idle long enough.
    SweepNone,
    /// Sweep "far in the future": every thread is idle.
    SweepAll,
}

fn op() -> impl Strategy<Value = Op> {
    let thread = 0u8..6;
    prop_oneof![
        4 => thread.clone().prop_map(Op::Read),
        4 => (thread.clone(), prop::collection::vec(0u8..5, 0..4)).prop_map(|(t, n)| Op::Add(t, n)),
        1 => thread.prop_map(Op::Clear),
        1 => Just(Op::ClearAll),
        1 => Just(Op::SweepNone),
        1 => Just(Op::SweepAll),
    ]
}

fn thread_name(t: u8) -> String {
    // Thread keys as the JS layer sends them, including empty and non-ASCII ones.
    ["default", "", "t-1", "スレッド", "\u{FFFD}", "a\0b"][t as usize].to_owned()
}

fn tool_name(n: u8) -> String {
    ["weather", "calendar", "send_email", "天气", ""][n as usize].to_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    #[test]
    fn in_memory_store_agrees_with_the_reference_map(ops in prop::collection::vec(op(), 0..40)) {
        let store = InMemoryStore::new();
        // Model: thread -> names in insertion order (Set semantics).
        let mut model: HashMap<String, Vec<String>> = HashMap::new();
        for op in ops {
            match op {
                Op::Read(t) => {
                    let names = store.loaded_names(&thread_name(t));
                    let entry = model.entry(thread_name(t)).or_default(); // reads create the entry
                    prop_assert_eq!(&names, entry);
                }
                Op::Add(t, names) => {
                    let names: Vec<String> = names.into_iter().map(tool_name).collect();
                    store.add_loaded(&thread_name(t), &names);
                    if !names.is_empty() {
                        let entry = model.entry(thread_name(t)).or_default();
                        for n in names {
                            if !entry.contains(&n) {
                                entry.push(n);
                            }
                        }
                    }
                }
                Op::Clear(t) => {
                    store.clear(&thread_name(t));
                    model.remove(&thread_name(t));
                }
                Op::ClearAll => {
                    store.clear_all();
                    model.clear();
                }
                Op::SweepNone => prop_assert_eq!(store.cleanup(1e12), 0),
                Op::SweepAll => {
                    let now = mastra_native_core::store::now_ms() + 1e6;
                    prop_assert_eq!(store.cleanup_at(1.0, now), model.len());
                    model.clear();
                }
            }
            let stats = store.stats();
            prop_assert_eq!(stats.thread_count, model.len());
            prop_assert_eq!(stats.oldest_access_time.is_some(), !model.is_empty());
        }
        // TTLs that disable cleanup (0, negative, NaN) never evict.
        for ttl in [0.0, -1.0, f64::NAN] {
            prop_assert_eq!(store.cleanup_at(ttl, f64::MAX), 0);
        }
        prop_assert_eq!(store.thread_count(), model.len());
    }

    #[test]
    fn activation_records_activate_only_real_loads(
        records in prop::collection::vec(
            (
                any::<bool>(),
                any::<bool>(),
                prop::option::of(0u8..5),
                prop::collection::vec(0u8..5, 0..3),
                prop::option::of(prop::collection::vec(0u8..5, 0..3)),
            ),
            0..12,
        ),
    ) {
        let records: Vec<ActivationRecord> = records
            .into_iter()
            .map(|(load, success, name, loaded, receipt)| ActivationRecord {
                meta_tool: if load { MetaTool::LoadTool } else { MetaTool::SearchTools },
                success,
                tool_name: name.map(tool_name),
                loaded: loaded.into_iter().map(tool_name).collect(),
                receipt: receipt.map(|r| r.into_iter().map(tool_name).collect()),
            })
            .collect();
        let names = derive_activated_names(&records);
        // Distinct, in first-activation order, and each one activated by some record.
        let mut expected: Vec<String> = Vec::new();
        for r in &records {
            let activated: Vec<&String> = match r.meta_tool {
                MetaTool::LoadTool => r.tool_name.iter().filter(|_| r.success).chain(&r.loaded).collect(),
                MetaTool::SearchTools => r.receipt.iter().flatten().collect(),
            };
            for n in activated {
                if !expected.contains(n) {
                    expected.push(n.clone());
                }
            }
        }
        prop_assert_eq!(names, expected);
    }

    #[test]
    fn supplemental_names_bridge_until_the_messages_own_them(
        added in prop::collection::vec(0u8..5, 0..4),
        from_messages in prop::collection::vec(0u8..5, 0..4),
        has_messages in any::<bool>(),
    ) {
        let store = SupplementalStore::new();
        let added: Vec<String> = added.into_iter().map(tool_name).collect();
        let from_messages: Vec<String> = from_messages.into_iter().map(tool_name).collect();
        store.add_loaded(Some("t"), &added);
        store.add_loaded(None, &added);
        let names = store.loaded_names(Some("t"), from_messages.clone(), has_messages);
        // Message names first (de-duplicated), then supplemental ones not already there.
        let mut expected: Vec<String> = Vec::new();
        for n in from_messages.iter().chain(&added) {
            if !expected.contains(n) {
                expected.push(n.clone());
            }
        }
        prop_assert_eq!(&names, &expected);
        // With live messages, names they carry leave the supplemental set; an emptied entry goes.
        let left: Vec<&String> = added.iter().filter(|n| !(has_messages && from_messages.contains(n))).collect();
        prop_assert_eq!(store.thread_count(), usize::from(!left.is_empty()));
        prop_assert_eq!(store.loaded_names(None, vec![], true), Vec::<String>::new());
    }
}
