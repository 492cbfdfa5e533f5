//! Property tests for ToolCallFilter's decisions over the flat `i32` records the JS layer sends
//! (message stage `decide`, step window, model-output plans, prompt stage `decide_prompt`):
//! arbitrary (malformed, out-of-range, negative) records never panic, and well-formed random
//! conversations keep the documented invariants — one decision per message, part and
//! `toolInvocations` entry; a removed call takes its results with it; preserved ids survive;
//! a message is dropped exactly when nothing is left; texts only where the options allow them.
//!
//! `PROPTEST_CASES=5000 cargo test -p mastra-native-core --test properties_tool_call_filter`
//! searches longer.

use std::collections::{HashMap, HashSet};

use mastra_native_core::tool_call_filter::layout::{CHANGED, UNCHANGED};
use mastra_native_core::tool_call_filter::model_output::{node_kind, object_flag, render_plan, LAZY_JSON, NODE_STRIDE};
use mastra_native_core::tool_call_filter::prompt::{
    decide_prompt, prompt_message_action as pma, prompt_part_action as ppa, prompt_part_flag, prompt_part_kind as ppk,
    prompt_role, Preserve, Prompt, PromptOptions, ReplacementRule, NEEDS_OUTPUTS, OUTPUT_NOT_ENCODED,
    PROMPT_MESSAGE_STRIDE, PROMPT_PART_STRIDE,
};
use mastra_native_core::tool_call_filter::step_window::{advance_step_window, window_start, StepInput};
use mastra_native_core::tool_call_filter::{
    decide, message_action as ma, part_action as pa, part_kind, shape, tool_state, Conversation, ExcludeMode,
    FilterOptions, IntWriter, INVOCATION_STRIDE, MESSAGE_STRIDE, NONE, PART_STRIDE,
};
use proptest::prelude::*;

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

const IDS: i32 = 6;
const NAMES: i32 = 4;

// ---------------------------------------------------------------------------------------------
// Model outputs: a random JS value, written as the JS layer writes it (pre-order nodes).

#[derive(Debug, Clone)]
enum Value {
    Nothing,
    Str { empty: bool, segment: i32 },
    Primitive { segment: i32 },
    Array { items: Vec<Value>, json: i32 },
    Object { type_is_text: bool, text: Option<(bool, i32)>, value: Option<Box<Value>>, json: i32 },
}

fn value() -> impl Strategy<Value = Value> {
    let segment = 0i32..50;
    let json = prop_oneof![Just(NONE), Just(LAZY_JSON), Just(LAZY_JSON - 3), 0i32..50];
    let leaf = prop_oneof![
        Just(Value::Nothing),
        (any::<bool>(), segment.clone()).prop_map(|(empty, segment)| Value::Str { empty, segment }),
        segment.clone().prop_map(|segment| Value::Primitive { segment }),
    ];
    leaf.prop_recursive(4, 24, 4, move |inner| {
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..4), json.clone()).prop_map(|(items, json)| Value::Array { items, json }),
            (
                any::<bool>(),
                prop::option::of((any::<bool>(), 0i32..50)),
                prop::option::of(inner.prop_map(Box::new)),
                json.clone()
            )
                .prop_map(|(type_is_text, text, value, json)| Value::Object { type_is_text, text, value, json }),
        ]
    })
}

fn encode(value: &Value, tape: &mut Vec<i32>) -> i32 {
    let root = (tape.len() / NODE_STRIDE) as i32;
    match value {
        Value::Nothing => tape.extend([node_kind::NOTHING, 0, 0, 0]),
        Value::Str { empty, segment } => tape.extend([node_kind::STRING, i32::from(*empty), *segment, 0]),
        Value::Primitive { segment } => tape.extend([node_kind::PRIMITIVE, 0, *segment, 0]),
        Value::Array { items, json } => {
            tape.extend([node_kind::ARRAY, items.len() as i32, 0, *json]);
            for item in items {
                encode(item, tape);
            }
        }
        Value::Object { type_is_text, text, value, json } => {
            let mut flags = 0;
            if *type_is_text {
                flags |= object_flag::TYPE_IS_TEXT;
            }
            if value.is_some() {
                flags |= object_flag::HAS_VALUE;
            }
            let mut segment = 0;
            if let Some((empty, s)) = text {
                flags |= object_flag::TEXT_IS_STRING;
                if *empty {
                    flags |= object_flag::TEXT_IS_EMPTY;
                }
                segment = *s;
            }
            tape.extend([node_kind::OBJECT, flags, segment, *json]);
            if let Some(v) = value {
                encode(v, tape);
            }
        }
    }
    root
}

/// Reference model of `modelOutputToText` over the same value: the segments joined by `\n`, as
/// a list, or `None` when the reference produces no text.
fn model_text(value: &Value) -> Option<(Vec<i32>, bool)> {
    let json = |j: i32| (j != NONE).then(|| (vec![j], true));
    match value {
        Value::Nothing => None,
        Value::Str { empty, segment } => Some((vec![*segment], !empty)),
        Value::Primitive { segment } => Some((vec![*segment], true)),
        Value::Array { items, json: j } => {
            let joined: Vec<i32> = items
                .iter()
                .filter_map(model_text)
                .filter(|(_, non_empty)| *non_empty)
                .flat_map(|(segments, _)| segments)
                .collect();
            if joined.is_empty() {
                json(*j)
            } else {
                Some((joined, true))
            }
        }
        Value::Object { type_is_text, text, value, json: j } => {
            let text = text.map(|(empty, s)| (vec![s], !empty));
            if *type_is_text {
                if let Some(v) = value {
                    if matches!(**v, Value::Str { .. }) {
                        return model_text(v);
                    }
                }
                if let Some(t) = text {
                    return Some(t);
                }
            }
            match (value, text) {
                (Some(v), _) => model_text(v),
                (None, Some(t)) => Some(t),
                (None, None) => json(*j),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Message stage.

#[derive(Debug, Clone)]
struct MsgPart {
    kind: i32,
    state: i32,
    id: i32,
    name: i32,
    output: Option<Value>,
}

#[derive(Debug, Clone)]
struct Message {
    shape: i32,
    top_level_text: bool,
    parts: Vec<MsgPart>,
    /// `None`: `toolInvocations` is not an array (negative count on the wire).
    invocations: Option<Vec<(i32, i32)>>,
}

fn index(max: i32) -> impl Strategy<Value = i32> {
    prop_oneof![8 => 0..max, 1 => Just(NONE), 1 => Just(max + 3)]
}

fn msg_part() -> impl Strategy<Value = MsgPart> {
    (
        prop_oneof![1 => Just(part_kind::OTHER), 4 => Just(part_kind::TOOL_INVOCATION), 1 => Just(part_kind::HOLE)],
        prop_oneof![Just(tool_state::OTHER), Just(tool_state::CALL), Just(tool_state::CALL), Just(tool_state::RESULT), Just(tool_state::RESULT)],
        index(IDS),
        index(NAMES),
        prop::option::weighted(0.5, value()),
    )
        .prop_map(|(kind, state, id, name, output)| MsgPart { kind, state, id, name, output })
}

fn message() -> impl Strategy<Value = Message> {
    (
        prop_oneof![1 => Just(shape::OPAQUE), 5 => Just(shape::WITH_PARTS)],
        any::<bool>(),
        prop::collection::vec(msg_part(), 0..5),
        prop::option::weighted(0.8, prop::collection::vec((index(IDS), index(NAMES)), 0..3)),
    )
        .prop_map(|(shape, top_level_text, parts, invocations)| Message { shape, top_level_text, parts, invocations })
}

struct MsgWire {
    messages: Vec<i32>,
    parts: Vec<i32>,
    invocations: Vec<i32>,
    tape: Vec<i32>,
}

fn msg_wire(conversation: &[Message]) -> MsgWire {
    let mut w = MsgWire { messages: vec![], parts: vec![], invocations: vec![], tape: vec![] };
    for m in conversation {
        let inv = m.invocations.as_ref().map_or(-1, |v| v.len() as i32);
        w.messages.extend([m.shape, i32::from(m.top_level_text), m.parts.len() as i32, inv]);
        for p in &m.parts {
            let root = p.output.as_ref().map_or(NONE, |v| encode(v, &mut w.tape));
            w.parts.extend([p.kind, p.state, p.id, p.name, root]);
        }
        for &(id, name) in m.invocations.iter().flatten() {
            w.invocations.extend([id, name]);
        }
    }
    w
}

fn exclude_mode() -> impl Strategy<Value = Option<Vec<i32>>> {
    // None = all tools; Some([]) = nothing; Some(names) = those names (out-of-range ones too).
    prop_oneof![1 => Just(None), 1 => Just(Some(vec![])), 3 => prop::collection::vec(index(NAMES), 1..3).prop_map(Some)]
}

fn truthy() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop_oneof![4 => Just(1u8), 1 => Just(0u8)], IDS as usize)
}

// ---------------------------------------------------------------------------------------------
// Prompt stage.

#[derive(Debug, Clone)]
struct PPart {
    kind: i32,
    id: i32,
    name: i32,
    marked: bool,
    /// `None` = no output (-1); `Some(None)` = not encoded yet.
    output: Option<Option<Value>>,
}

#[derive(Debug, Clone)]
struct PMessage {
    role: i32,
    parts: Vec<PPart>,
}

fn p_part() -> impl Strategy<Value = PPart> {
    (
        prop_oneof![1 => Just(ppk::OTHER), 2 => Just(ppk::TOOL_CALL), 2 => Just(ppk::TOOL_RESULT)],
        index(IDS),
        index(NAMES),
        any::<bool>(),
        prop_oneof![1 => Just(None), 1 => Just(Some(None)), 2 => value().prop_map(|v| Some(Some(v)))],
    )
        .prop_map(|(kind, id, name, marked, output)| PPart { kind, id, name, marked, output })
}

fn p_message() -> impl Strategy<Value = PMessage> {
    (
        prop_oneof![
            1 => Just(prompt_role::PASS),
            3 => Just(prompt_role::ASSISTANT),
            2 => Just(prompt_role::OTHER),
            1 => Just(prompt_role::OPAQUE),
            1 => Just(prompt_role::OPAQUE_EMPTY),
        ],
        prop::collection::vec(p_part(), 0..5),
    )
        .prop_map(|(role, parts)| {
            // String contents have no parts on the wire.
            let parts = if role == prompt_role::OPAQUE || role == prompt_role::OPAQUE_EMPTY { vec![] } else { parts };
            PMessage { role, parts }
        })
}

struct PWire {
    messages: Vec<i32>,
    parts: Vec<i32>,
    tape: Vec<i32>,
}

fn p_wire(prompt: &[PMessage]) -> PWire {
    let mut w = PWire { messages: vec![], parts: vec![], tape: vec![] };
    for m in prompt {
        w.messages.extend([m.role, m.parts.len() as i32]);
        for p in &m.parts {
            let root = match &p.output {
                None => NONE,
                Some(None) => OUTPUT_NOT_ENCODED,
                Some(Some(v)) => encode(v, &mut w.tape),
            };
            let flags = if p.marked { prompt_part_flag::HAS_MODEL_OUTPUT_MARKER } else { 0 };
            w.parts.extend([p.kind, p.id, p.name, flags, root]);
        }
    }
    w
}

#[derive(Debug, Clone)]
enum PreserveChoice {
    Run(Option<Vec<u8>>),
    PromptSteps(f64),
    RunSteps(f64, Option<Vec<u8>>, Vec<i32>, Vec<Vec<i32>>),
}

fn window() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(1.0), Just(2.0), Just(3.0), Just(f64::NAN), Just(f64::INFINITY), Just(-1.5), 0.0f64..4.0]
}

fn history() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop::option::of(prop::collection::vec(0u8..2, IDS as usize))
}

fn preserve_choice() -> impl Strategy<Value = PreserveChoice> {
    prop_oneof![
        history().prop_map(PreserveChoice::Run),
        window().prop_map(PreserveChoice::PromptSteps),
        (
            window(),
            history(),
            prop::collection::vec(index(IDS), 0..4),
            prop::collection::vec(prop::collection::vec(index(IDS), 0..3), 0..4)
        )
            .prop_map(|(w, h, s, g)| PreserveChoice::RunSteps(w, h, s, g)),
    ]
}

#[derive(Debug, Clone)]
struct PromptCase {
    prompt: Vec<PMessage>,
    truthy: Vec<u8>,
    exclude: Option<Vec<i32>>,
    replacement: Option<ReplacementRule>,
    preserve: PreserveChoice,
    split: bool,
}

fn prompt_case() -> impl Strategy<Value = PromptCase> {
    (
        prop::collection::vec(p_message(), 0..7),
        truthy(),
        prop::option::of(prop::collection::vec(index(NAMES), 1..3)),
        prop_oneof![Just(None), Just(Some(ReplacementRule::EveryResult)), Just(Some(ReplacementRule::ModelOutputOnly))],
        preserve_choice(),
        any::<bool>(),
    )
        .prop_map(|(prompt, truthy, exclude, replacement, preserve, split)| PromptCase {
            prompt,
            truthy,
            exclude,
            replacement,
            preserve,
            split,
        })
}

/// Runs `decide_prompt` on a case; returns the actions and the ints written.
fn run_prompt(case: &PromptCase, wire: &PWire) -> (Vec<u8>, Vec<i32>) {
    let prompt = Prompt {
        messages: &wire.messages,
        parts: &wire.parts,
        id_truthy: &case.truthy,
        name_count: NAMES as usize,
        model_output_tape: &wire.tape,
    };
    let groups: Vec<&[i32]>;
    let preserve = match &case.preserve {
        PreserveChoice::Run(h) => Preserve::Run { history: h.as_deref() },
        PreserveChoice::PromptSteps(w) => Preserve::PromptSteps { window: *w },
        PreserveChoice::RunSteps(w, h, seen, g) => {
            groups = g.iter().map(Vec::as_slice).collect();
            Preserve::RunSteps { window: *w, history: h.as_deref(), seen, groups: &groups }
        }
    };
    let options = PromptOptions { exclude: case.exclude.as_deref(), replacement: case.replacement, preserve, split_after_kept_calls: case.split };
    let message_count = wire.messages.len() / PROMPT_MESSAGE_STRIDE;
    let part_count = wire.parts.len() / PROMPT_PART_STRIDE;
    let mut actions = vec![0xEEu8; message_count + part_count];
    // Generous: every list the answer can hold, with every part turned into a long text.
    let mut ints = vec![0i32; 64 + 8 * IDS as usize + 4 * message_count + part_count * (4 + wire.tape.len())];
    let mut writer = IntWriter::new(&mut ints);
    decide_prompt(&prompt, &options, &mut actions, &mut writer).expect("well-formed prompt");
    let written = writer.written().to_vec();
    (actions, written)
}

fn take_list<'a>(ints: &'a [i32], cursor: &mut usize) -> &'a [i32] {
    let n = ints[*cursor] as usize;
    let list = &ints[*cursor + 1..*cursor + 1 + n];
    *cursor += 1 + n;
    list
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    // --- anything goes: malformed records never panic ---------------------------------------

    #[test]
    fn decide_never_panics_on_arbitrary_records(
        messages in prop::collection::vec(prop_oneof![-3i32..8, any::<i32>()], 0..24),
        parts in prop::collection::vec(prop_oneof![-3i32..8, any::<i32>()], 0..40),
        invocations in prop::collection::vec(prop_oneof![-3i32..8, any::<i32>()], 0..12),
        id_truthy in prop::collection::vec(any::<u8>(), 0..8),
        name_count in 0usize..8,
        tape in prop::collection::vec(prop_oneof![-3i32..8, any::<i32>()], 0..32),
        mode in 0u8..3,
        names in prop::collection::vec(any::<i32>(), 0..3),
        preserve in any::<bool>(),
        preserved_ids in prop::collection::vec(any::<bool>(), 0..8),
        actions_len in 0usize..80,
        ints_len in 0usize..64,
    ) {
        let conversation = Conversation { messages: &messages, parts: &parts, invocations: &invocations, id_truthy: &id_truthy, name_count, model_output_tape: &tape };
        let mode = match mode { 0 => ExcludeMode::All, 1 => ExcludeMode::Names(&names), _ => ExcludeMode::Nothing };
        let options = FilterOptions { mode, preserve_model_output: preserve, preserved_ids: &preserved_ids };
        let mut actions = vec![0u8; actions_len];
        let mut ints = vec![0i32; ints_len];
        let mut writer = IntWriter::new(&mut ints);
        let _ = decide(&conversation, &options, &mut actions, &mut writer);
    }

    #[test]
    fn render_plan_never_panics_on_arbitrary_tapes(
        tape in prop::collection::vec(prop_oneof![-3i32..6, any::<i32>()], 0..48),
        root in prop_oneof![
            4 => 0usize..14,
            1 => any::<u32>().prop_map(|r| r as usize),
            1 => any::<usize>(),
            1 => (0usize..4).prop_map(|d| usize::MAX / NODE_STRIDE - d),
        ],
    ) {
        let _ = render_plan(&tape, root);
    }

    #[test]
    fn step_window_never_panics_on_arbitrary_wire(
        wire in prop::collection::vec(prop_oneof![-2i32..6, any::<i32>()], 0..32),
        id_truthy in prop::collection::vec(any::<u8>(), 0..8),
        window in prop_oneof![any::<f64>(), window()],
    ) {
        if let Ok(input) = StepInput::parse(&wire) {
            let outcome = advance_step_window(&input, &id_truthy, window);
            prop_assert_eq!(outcome.preserved.len(), id_truthy.len());
        }
        for groups in 0..4usize {
            prop_assert!(window_start(window, groups) <= groups);
        }
    }

    #[test]
    fn decide_prompt_never_panics_on_arbitrary_records(
        messages in prop::collection::vec(prop_oneof![-4i32..6, any::<i32>()], 0..16),
        parts in prop::collection::vec(prop_oneof![-4i32..8, any::<i32>()], 0..40),
        id_truthy in prop::collection::vec(any::<u8>(), 0..8),
        name_count in 0usize..8,
        tape in prop::collection::vec(prop_oneof![-3i32..6, any::<i32>()], 0..32),
        exclude in prop::option::of(prop::collection::vec(any::<i32>(), 0..3)),
        replacement in 0u8..3,
        preserve in preserve_choice(),
        history in prop::collection::vec(any::<u8>(), 0..8),
        split in any::<bool>(),
        actions_len in 0usize..64,
        ints_len in 0usize..64,
    ) {
        let prompt = Prompt { messages: &messages, parts: &parts, id_truthy: &id_truthy, name_count, model_output_tape: &tape };
        let groups: Vec<&[i32]>;
        let preserve = match &preserve {
            PreserveChoice::Run(h) => Preserve::Run { history: h.as_ref().map(|_| history.as_slice()) },
            PreserveChoice::PromptSteps(w) => Preserve::PromptSteps { window: *w },
            PreserveChoice::RunSteps(w, h, seen, g) => {
                groups = g.iter().map(Vec::as_slice).collect();
                Preserve::RunSteps { window: *w, history: h.as_ref().map(|_| history.as_slice()), seen, groups: &groups }
            }
        };
        let replacement = match replacement { 0 => None, 1 => Some(ReplacementRule::EveryResult), _ => Some(ReplacementRule::ModelOutputOnly) };
        let options = PromptOptions { exclude: exclude.as_deref(), replacement, preserve, split_after_kept_calls: split };
        let mut actions = vec![0u8; actions_len];
        let mut ints = vec![0i32; ints_len];
        let mut writer = IntWriter::new(&mut ints);
        let _ = decide_prompt(&prompt, &options, &mut actions, &mut writer);
    }

    // --- well-formed input: the documented invariants ---------------------------------------

    #[test]
    fn model_output_plans_equal_the_reference_model(v in value()) {
        let mut tape = vec![node_kind::NOTHING, 0, 0, 0]; // something before the root
        let root = encode(&v, &mut tape) as usize;
        let plan = render_plan(&tape, root).expect("well-formed tape");
        let expected = model_text(&v).filter(|(_, non_empty)| *non_empty).map(|(segments, _)| segments);
        prop_assert_eq!(plan, expected);
    }

    #[test]
    fn message_stage_decisions_keep_their_invariants(
        conversation in prop::collection::vec(message(), 0..7),
        truthy in truthy(),
        exclude in exclude_mode(),
        preserve_output in any::<bool>(),
        preserved in prop::option::of(prop::collection::vec(any::<bool>(), IDS as usize)),
    ) {
        let w = msg_wire(&conversation);
        let c = Conversation { messages: &w.messages, parts: &w.parts, invocations: &w.invocations, id_truthy: &truthy, name_count: NAMES as usize, model_output_tape: &w.tape };
        let mode = match &exclude { None => ExcludeMode::All, Some(v) if v.is_empty() => ExcludeMode::Nothing, Some(v) => ExcludeMode::Names(v) };
        let preserved_ids = preserved.clone().unwrap_or_default();
        let options = FilterOptions { mode, preserve_model_output: preserve_output, preserved_ids: &preserved_ids };
        let message_count = w.messages.len() / MESSAGE_STRIDE;
        let part_count = w.parts.len() / PART_STRIDE;
        let invocation_count = w.invocations.len() / INVOCATION_STRIDE;
        let total = message_count + part_count + invocation_count;
        let mut actions = vec![0xEEu8; total];
        let mut ints = vec![0i32; 8 + part_count * (2 + w.tape.len())];
        let mut writer = IntWriter::new(&mut ints);
        decide(&c, &options, &mut actions, &mut writer).expect("well-formed conversation");
        let plans = writer.written().to_vec();
        // Deterministic.
        let mut again = vec![0xEEu8; total];
        let mut ints2 = vec![0i32; 8 + part_count * (2 + w.tape.len())];
        let mut writer2 = IntWriter::new(&mut ints2);
        decide(&c, &options, &mut again, &mut writer2).unwrap();
        prop_assert_eq!(&again[..message_count], &actions[..message_count]);
        prop_assert_eq!(writer2.written(), &plans[..]);

        let truthy_id = |id: i32| (0..IDS).contains(&id) && truthy[id as usize] != 0;
        let is_preserved = |id: i32| truthy_id(id) && preserved_ids.get(id as usize).copied().unwrap_or(false);
        // Out-of-range name indices are in no set (the JS layer interns every name it sends).
        let excluded_name = |name: i32| (0..NAMES).contains(&name) && exclude.as_ref().is_some_and(|v| v.contains(&name));
        // Ids whose call/result (any state) carries an excluded name, in a message with parts.
        let mut excluded_ids: HashSet<i32> = HashSet::new();
        for m in &conversation {
            if m.shape != shape::WITH_PARTS { continue; }
            for p in &m.parts {
                if p.kind == part_kind::TOOL_INVOCATION && excluded_name(p.name) && truthy_id(p.id) {
                    excluded_ids.insert(p.id);
                }
            }
        }

        let (message_actions, rest) = actions.split_at(message_count);
        let (part_actions, _invocation_actions) = rest.split_at(part_count);
        let mut part_index = 0usize;
        let mut text_parts = 0usize;
        for (mi, m) in conversation.iter().enumerate() {
            let range = part_index..part_index + m.parts.len();
            part_index += m.parts.len();
            let has_tool_part = m.shape == shape::WITH_PARTS && m.parts.iter().any(|p| p.kind == part_kind::TOOL_INVOCATION);
            if !has_tool_part || matches!(mode, ExcludeMode::Nothing) {
                prop_assert_eq!(message_actions[mi], ma::PASS);
                continue;
            }
            let mut remaining = 0;
            for (p, &action) in m.parts.iter().zip(&part_actions[range]) {
                prop_assert!(action <= pa::TEXT, "part action {}", action);
                if action != pa::DROP { remaining += 1; }
                if action == pa::TEXT {
                    text_parts += 1;
                    prop_assert!(preserve_output && p.state == tool_state::RESULT && p.output.is_some());
                }
                match p.kind {
                    part_kind::HOLE => prop_assert_eq!(action, pa::DROP),
                    part_kind::TOOL_INVOCATION => {
                        let removed = action != pa::KEEP;
                        if is_preserved(p.id) {
                            prop_assert!(!removed, "preserved id {} removed", p.id);
                        } else if matches!(mode, ExcludeMode::All) {
                            prop_assert!(removed, "exclude-all kept a tool part");
                        } else {
                            // Names: a call goes with its name; a result goes with its name or
                            // with any excluded call of the same id (the pair goes together).
                            let expected = match p.state {
                                tool_state::CALL => excluded_name(p.name),
                                tool_state::RESULT => excluded_name(p.name) || excluded_ids.contains(&p.id),
                                _ => false,
                            };
                            prop_assert_eq!(removed, expected, "part {:?}", p);
                        }
                        if removed && p.state == tool_state::RESULT && preserve_output {
                            // A removed result leaves text exactly when its output renders to text.
                            let renders = p.output.as_ref().and_then(model_text).is_some_and(|(_, non_empty)| non_empty);
                            prop_assert_eq!(action == pa::TEXT, renders);
                        }
                    }
                    _ => prop_assert_eq!(action, pa::KEEP),
                }
            }
            let expected = if remaining == 0 && !m.top_level_text { ma::DROP } else { ma::REBUILD };
            prop_assert_eq!(message_actions[mi], expected);
        }
        // One `[count, segments...]` plan per text part, nothing else.
        let mut cursor = 0usize;
        for _ in 0..text_parts {
            let n = plans[cursor] as usize;
            prop_assert!(n > 0);
            cursor += 1 + n;
        }
        prop_assert_eq!(cursor, plans.len());
    }

    #[test]
    fn step_window_keeps_the_last_groups(
        seen in prop::collection::vec(index(IDS), 0..5),
        groups in prop::collection::vec(prop::collection::vec(index(IDS), 0..3), 0..5),
        response in prop::collection::vec(index(IDS), 0..5),
        truthy in truthy(),
        window in prop_oneof![Just(0.0), Just(1.0), Just(2.0), Just(3.0), Just(f64::NAN), Just(f64::INFINITY)],
    ) {
        let input = StepInput { seen: &seen, groups: groups.iter().map(Vec::as_slice).collect(), response_ids: &response };
        let outcome = advance_step_window(&input, &truthy, window);
        let in_range = |id: i32| (0..IDS).contains(&id);
        // New ids: truthy, in range, unseen, distinct, in response order.
        let mut expected_new: Vec<i32> = Vec::new();
        for &id in &response {
            if in_range(id) && truthy[id as usize] != 0 && !seen.contains(&id) && !expected_new.contains(&id) {
                expected_new.push(id);
            }
        }
        prop_assert_eq!(&outcome.new_ids, &expected_new);
        let mut expected_seen: Vec<i32> = Vec::new();
        for &id in seen.iter().chain(&expected_new) {
            if in_range(id) && !expected_seen.contains(&id) { expected_seen.push(id); }
        }
        prop_assert_eq!(&outcome.seen_after, &expected_seen);
        // `slice(-window)` of the groups plus the new one.
        let mut all: Vec<Vec<i32>> = groups.clone();
        all.push(expected_new);
        let keep = if window.is_nan() { all.len() } else if window == 0.0 { 0 } else { (window as usize).min(all.len()) };
        let mut expected_preserved = vec![false; IDS as usize];
        for g in &all[all.len() - keep..] {
            for &id in g { if in_range(id) { expected_preserved[id as usize] = true; } }
        }
        prop_assert_eq!(outcome.preserved, expected_preserved);
    }

    #[test]
    fn prompt_stage_decisions_keep_their_invariants(case in prompt_case()) {
        let wire = p_wire(&case.prompt);
        let (actions, ints) = run_prompt(&case, &wire);
        prop_assert_eq!(run_prompt(&case, &wire), (actions.clone(), ints.clone()), "deterministic");
        let message_count = case.prompt.len();
        let all_parts: Vec<&PPart> = case.prompt.iter().flat_map(|m| &m.parts).collect();
        let has_parts = |role: i32| role == prompt_role::ASSISTANT || role == prompt_role::OTHER;
        let truthy_id = |id: i32| (0..IDS).contains(&id) && case.truthy[id as usize] != 0;

        if ints[0] == NEEDS_OUTPUTS {
            // Asked for outputs: only not-yet-encoded results, listed once each.
            let asked = &ints[2..2 + ints[1] as usize];
            prop_assert_eq!(ints.len(), 2 + asked.len());
            prop_assert!(!asked.is_empty());
            prop_assert!(case.replacement.is_some());
            for &i in asked {
                let p = all_parts[i as usize];
                prop_assert_eq!(p.kind, ppk::TOOL_RESULT);
                prop_assert!(matches!(p.output, Some(None)));
            }
            // Encoding them answers the question: the next call decides.
            let mut encoded = case.clone();
            let mut flat = 0usize;
            for m in &mut encoded.prompt {
                for p in &mut m.parts {
                    if asked.contains(&(flat as i32)) {
                        p.output = Some(Some(Value::Str { empty: false, segment: 9 }));
                    }
                    flat += 1;
                }
            }
            let (_, again) = run_prompt(&encoded, &p_wire(&encoded.prompt));
            prop_assert!(again[0] == UNCHANGED || again[0] == CHANGED, "asked again: {:?}", again);
            return Ok(());
        }
        prop_assert!(ints[0] == UNCHANGED || ints[0] == CHANGED);
        let mut cursor = 1usize;
        let history = take_list(&ints, &mut cursor).to_vec();
        // The first prompt of a request is recorded as its history: the tool ids, first-seen order.
        let recording = matches!(&case.preserve, PreserveChoice::Run(None) | PreserveChoice::RunSteps(_, None, _, _));
        if recording {
            let mut expected: Vec<i32> = Vec::new();
            for m in &case.prompt {
                if !has_parts(m.role) { continue; }
                for p in &m.parts {
                    if (p.kind == ppk::TOOL_CALL || p.kind == ppk::TOOL_RESULT) && truthy_id(p.id) && !expected.contains(&p.id) {
                        expected.push(p.id);
                    }
                }
            }
            prop_assert_eq!(&history, &expected);
        } else {
            prop_assert!(history.is_empty());
        }
        if matches!(case.preserve, PreserveChoice::RunSteps(..)) {
            take_list(&ints, &mut cursor);
            take_list(&ints, &mut cursor);
        }
        if ints[0] == UNCHANGED {
            prop_assert_eq!(cursor, ints.len());
            return Ok(());
        }
        let splits = take_list(&ints, &mut cursor).to_vec();
        let (message_actions, part_actions) = actions.split_at(message_count);

        // Fate per id: every tool part of an id has the same fate (calls and results go together).
        let mut fate: HashMap<i32, bool> = HashMap::new();
        let mut part_index = 0usize;
        let mut texts: Vec<(usize, i32)> = Vec::new();
        for (mi, m) in case.prompt.iter().enumerate() {
            let actions_here = &part_actions[part_index..part_index + m.parts.len()];
            let first = part_index;
            part_index += m.parts.len();
            if !has_parts(m.role) {
                let expected = if m.role == prompt_role::OPAQUE_EMPTY { pma::DROP } else { pma::PASS };
                prop_assert_eq!(message_actions[mi], expected);
                continue;
            }
            for (k, (p, &action)) in m.parts.iter().zip(actions_here).enumerate() {
                prop_assert!(action <= ppa::SPLIT_TEXT);
                let tool = p.kind == ppk::TOOL_CALL || p.kind == ppk::TOOL_RESULT;
                if !tool || !truthy_id(p.id) {
                    prop_assert_eq!(action, ppa::KEEP, "non-tool part or falsy id removed");
                    continue;
                }
                let removed = action != ppa::KEEP;
                prop_assert_eq!(*fate.entry(p.id).or_insert(removed), removed, "id {} split between kept and removed", p.id);
                if removed {
                    if let Some(names) = &case.exclude {
                        // Some tool part of this id carries an excluded name.
                        prop_assert!(all_parts.iter().any(|q| q.id == p.id && names.contains(&q.name)));
                    }
                    if let PreserveChoice::Run(Some(h)) = &case.preserve {
                        prop_assert!(h[p.id as usize] != 0, "run id {} (not in the history) removed", p.id);
                    }
                }
                if action == ppa::TEXT || action == ppa::SPLIT_TEXT {
                    prop_assert!(case.replacement.is_some());
                    texts.push((first + k, p.id));
                }
                if action == ppa::SPLIT_TEXT {
                    prop_assert!(case.split && m.role == prompt_role::ASSISTANT);
                }
            }
            let all_dropped = actions_here.iter().all(|&a| a == ppa::DROP);
            let all_kept = actions_here.iter().all(|&a| a == ppa::KEEP) && !m.parts.is_empty();
            let expected = if all_dropped { pma::DROP } else if all_kept { pma::PASS } else { pma::REBUILD };
            prop_assert_eq!(message_actions[mi], expected);
        }
        // Split plans: `[assistant, tool or -1, count, segments...]` for split assistant messages.
        let mut s = 0usize;
        while s < splits.len() {
            let assistant = splits[s] as usize;
            prop_assert_eq!(case.prompt[assistant].role, prompt_role::ASSISTANT);
            let tool_count = splits[s + 2] as usize;
            if splits[s + 1] >= 0 {
                prop_assert_eq!(splits[s + 1] as usize, assistant + 1);
                prop_assert_eq!(tool_count, case.prompt[assistant + 1].parts.len());
            } else {
                prop_assert_eq!(tool_count, 0);
            }
            s += 3 + tool_count;
        }
        prop_assert_eq!(s, splits.len());
        // One plan per text part, in part order: `[source result part, n, segments...]`; the source
        // is a removed result of the same id whose output renders.
        for (part, id) in texts {
            let source = ints[cursor] as usize;
            let n = ints[cursor + 1] as usize;
            let src = all_parts[source];
            prop_assert_eq!(src.kind, ppk::TOOL_RESULT, "text of part {} from a non-result", part);
            prop_assert_eq!(src.id, id);
            prop_assert!(part_actions[source] != ppa::KEEP);
            prop_assert!(n > 0);
            cursor += 2 + n;
        }
        prop_assert_eq!(cursor, ints.len());
    }
}

/// Regression: a root whose first node index ends past `usize::MAX` (`root * 4 + 4` overflows)
/// panicked with "attempt to add with overflow" in debug builds instead of reporting malformed
/// input. (Unreachable from JavaScript, where roots are `i32`, but `render_plan` is public.)
#[test]
fn render_plan_rejects_roots_whose_node_ends_past_usize_max() {
    let tape = [node_kind::STRING, 0, 0, 0];
    for root in [usize::MAX / NODE_STRIDE, usize::MAX / NODE_STRIDE - 1, usize::MAX] {
        assert!(render_plan(&tape, root).is_err(), "root {root}");
    }
}
