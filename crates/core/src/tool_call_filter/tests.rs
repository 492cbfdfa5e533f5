use super::model_output::{node_kind as nk, object_flag as of, render_plan, NODE_STRIDE};
use super::step_window::{window_start, StepInput};
use super::layout::invocation_action;
use super::*;

/// Builds wire data for a conversation the way the JS layer does.
#[derive(Default)]
struct Wire {
    messages: Vec<i32>,
    parts: Vec<i32>,
    invocations: Vec<i32>,
    id_truthy: Vec<u8>,
    name_count: usize,
    tape: Vec<i32>,
}

struct P(i32, i32, i32, i32, i32);

fn text() -> P {
    P(part_kind::OTHER, tool_state::OTHER, NONE, NONE, NONE)
}
fn call(id: i32, name: i32) -> P {
    P(part_kind::TOOL_INVOCATION, tool_state::CALL, id, name, NONE)
}
fn result(id: i32, name: i32) -> P {
    P(part_kind::TOOL_INVOCATION, tool_state::RESULT, id, name, NONE)
}

impl Wire {
    fn new(ids: usize, names: usize) -> Self {
        Wire { id_truthy: vec![1; ids], name_count: names, ..Default::default() }
    }
    fn message(&mut self, top_level_text: bool, parts: &[P], invocations: &[(i32, i32)]) -> &mut Self {
        self.messages.extend([
            shape::WITH_PARTS,
            if top_level_text { message_flag::HAS_TOP_LEVEL_TEXT } else { 0 },
            parts.len() as i32,
            invocations.len() as i32,
        ]);
        for p in parts {
            self.parts.extend([p.0, p.1, p.2, p.3, p.4]);
        }
        for &(id, name) in invocations {
            self.invocations.extend([id, name]);
        }
        self
    }
    fn conversation(&self) -> Conversation<'_> {
        Conversation {
            messages: &self.messages,
            parts: &self.parts,
            invocations: &self.invocations,
            id_truthy: &self.id_truthy,
            name_count: self.name_count,
            model_output_tape: &self.tape,
        }
    }
    fn run(&self, mode: ExcludeMode, preserve: bool, preserved: &[bool]) -> (Vec<u8>, Vec<i32>) {
        let total = self.messages.len() / MESSAGE_STRIDE
            + self.parts.len() / PART_STRIDE
            + self.invocations.len() / INVOCATION_STRIDE;
        let mut actions = vec![255u8; total];
        let mut buffer = vec![0i32; 64];
        let mut plans = IntWriter::new(&mut buffer);
        decide(
            &self.conversation(),
            &FilterOptions { mode, preserve_model_output: preserve, preserved_ids: preserved },
            &mut actions,
            &mut plans,
        )
        .expect("decide");
        let written = plans.written().to_vec();
        (actions, written)
    }
}

const KEEP: u8 = part_action::KEEP;
const DROP: u8 = part_action::DROP;
const TEXT: u8 = part_action::TEXT;
const PASS: u8 = message_action::PASS;
const REBUILD: u8 = message_action::REBUILD;
const GONE: u8 = message_action::DROP;

#[test]
fn exclude_all_removes_every_tool_part_and_drops_emptied_messages() {
    let mut w = Wire::new(2, 1);
    w.message(false, &[text()], &[])
        .message(false, &[text(), call(0, 0), result(0, 0), text()], &[])
        .message(false, &[call(1, 0), result(1, 0)], &[]);
    let (actions, _) = w.run(ExcludeMode::All, false, &[]);
    assert_eq!(&actions[..3], &[PASS, REBUILD, GONE]);
    assert_eq!(&actions[4..8], &[KEEP, DROP, DROP, KEEP]);
}

#[test]
fn top_level_text_keeps_a_message_with_no_parts_left() {
    let mut w = Wire::new(1, 1);
    w.message(true, &[result(0, 0)], &[]);
    assert_eq!(w.run(ExcludeMode::All, false, &[]).0[0], REBUILD);
}

#[test]
fn other_parts_alone_keep_the_message() {
    // A step-start part is an ordinary non-tool part.
    let mut w = Wire::new(1, 1);
    w.message(false, &[call(0, 0), text()], &[]);
    assert_eq!(w.run(ExcludeMode::All, false, &[]).0[..3], [REBUILD, DROP, KEEP]);
}

#[test]
fn exclude_names_removes_calls_and_results_by_name_and_by_excluded_id() {
    // names: 0 = weather (excluded), 1 = calculator, 2 = renamed
    let mut w = Wire::new(3, 3);
    w.message(false, &[call(0, 0), call(1, 1)], &[(0, 0), (1, 1), (2, 2)])
        .message(false, &[result(0, 2), result(1, 1), result(2, 0)], &[]);
    let (actions, _) = w.run(ExcludeMode::Names(&[0]), false, &[]);
    assert_eq!(&actions[..2], &[REBUILD, REBUILD]);
    assert_eq!(&actions[2..7], &[DROP, KEEP, DROP, KEEP, DROP]);
    // toolInvocations: weather entry and the id of an excluded call go, calculator stays;
    // entry (2,2) has id 2 which belongs to an excluded-name result part, so it goes too.
    assert_eq!(&actions[7..10], &[0, 1, 0]);
}

#[test]
fn exclude_names_keeps_other_states_even_for_excluded_names() {
    let mut w = Wire::new(1, 1);
    let partial = P(part_kind::TOOL_INVOCATION, tool_state::OTHER, 0, 0, NONE);
    w.message(false, &[partial], &[]);
    assert_eq!(w.run(ExcludeMode::Names(&[0]), false, &[]).0, vec![REBUILD, KEEP]);
    assert_eq!(w.run(ExcludeMode::All, false, &[]).0, vec![GONE, DROP]);
}

#[test]
fn nothing_mode_passes_everything() {
    let mut w = Wire::new(1, 1);
    w.message(false, &[call(0, 0)], &[]);
    assert_eq!(w.run(ExcludeMode::Nothing, false, &[]).0[0], PASS);
}

#[test]
fn preserved_ids_survive_and_keep_their_invocation_entries() {
    let mut w = Wire::new(2, 1);
    w.message(false, &[call(0, 0), call(1, 0)], &[(0, 0), (1, 0)]);
    let (actions, _) = w.run(ExcludeMode::All, false, &[false, true]);
    assert_eq!(actions, vec![REBUILD, DROP, KEEP, invocation_action::DROP, invocation_action::KEEP]);
}

#[test]
fn falsy_ids_are_never_preserved_for_parts() {
    let mut w = Wire::new(1, 1);
    w.id_truthy = vec![0];
    w.message(false, &[call(0, 0)], &[(0, 0)]);
    let (actions, _) = w.run(ExcludeMode::All, false, &[true]);
    // The part goes (falsy id), the toolInvocations entry matches without a truthiness check.
    assert_eq!(actions, vec![GONE, DROP, invocation_action::KEEP]);
}

#[test]
fn holes_in_parts_are_dropped_from_rebuilt_messages() {
    let mut w = Wire::new(1, 1);
    w.message(false, &[P(part_kind::HOLE, 0, NONE, NONE, NONE), call(0, 0), text()], &[]);
    assert_eq!(w.run(ExcludeMode::All, false, &[]).0, vec![REBUILD, DROP, DROP, KEEP]);
}

#[test]
fn opaque_messages_pass_through() {
    let mut w = Wire::new(1, 1);
    w.messages.extend([shape::OPAQUE, 0, 0, 0]);
    assert_eq!(w.run(ExcludeMode::All, false, &[]).0, vec![PASS]);
}

fn push_node(tape: &mut Vec<i32>, kind: i32, a: i32, b: i32, c: i32) -> usize {
    tape.extend([kind, a, b, c]);
    tape.len() / NODE_STRIDE - 1
}

#[test]
fn preserve_model_output_turns_completed_results_into_text() {
    let mut w = Wire::new(2, 1);
    let root = push_node(&mut w.tape, nk::STRING, 0, 7, -1) as i32;
    let with_output = P(part_kind::TOOL_INVOCATION, tool_state::RESULT, 0, 0, root);
    let call_with_output = P(part_kind::TOOL_INVOCATION, tool_state::CALL, 1, 0, root);
    w.message(false, &[with_output, call_with_output], &[]);
    let (actions, plans) = w.run(ExcludeMode::All, true, &[]);
    assert_eq!(actions, vec![REBUILD, TEXT, DROP]);
    assert_eq!(plans, vec![1, 7]);
    // Off: plain removal.
    let (actions, plans) = w.run(ExcludeMode::All, false, &[]);
    assert_eq!(actions, vec![GONE, DROP, DROP]);
    assert!(plans.is_empty());
}

#[test]
fn empty_model_output_text_yields_no_part() {
    let mut w = Wire::new(1, 1);
    let root = push_node(&mut w.tape, nk::STRING, 1, 0, -1) as i32;
    w.message(false, &[P(part_kind::TOOL_INVOCATION, tool_state::RESULT, 0, 0, root)], &[]);
    assert_eq!(w.run(ExcludeMode::All, true, &[]).0, vec![GONE, DROP]);
}

#[test]
fn render_text_object_prefers_string_value_then_text() {
    let mut tape = Vec::new();
    // {type:'text', value:'v'}
    push_node(&mut tape, nk::OBJECT, of::TYPE_IS_TEXT | of::HAS_VALUE, -1, -1);
    push_node(&mut tape, nk::STRING, 0, 3, -1);
    assert_eq!(render_plan(&tape, 0).unwrap(), Some(vec![3]));
    // {type:'text', value: 5, text:'t'} -> text
    let mut tape = Vec::new();
    push_node(&mut tape, nk::OBJECT, of::TYPE_IS_TEXT | of::HAS_VALUE | of::TEXT_IS_STRING, 9, -1);
    push_node(&mut tape, nk::PRIMITIVE, 0, 4, -1);
    assert_eq!(render_plan(&tape, 0).unwrap(), Some(vec![9]));
    // {type:'json', value: 5, text:'t'} -> value
    let mut tape = Vec::new();
    push_node(&mut tape, nk::OBJECT, of::HAS_VALUE | of::TEXT_IS_STRING, 9, -1);
    push_node(&mut tape, nk::PRIMITIVE, 0, 4, -1);
    assert_eq!(render_plan(&tape, 0).unwrap(), Some(vec![4]));
    // {text:'only'} -> text; {a:1} -> json
    let mut tape = Vec::new();
    push_node(&mut tape, nk::OBJECT, of::TEXT_IS_STRING, 2, -1);
    push_node(&mut tape, nk::OBJECT, 0, -1, 6);
    assert_eq!(render_plan(&tape, 0).unwrap(), Some(vec![2]));
    assert_eq!(render_plan(&tape, 1).unwrap(), Some(vec![6]));
    // {value: undefined} -> nothing; circular {} (json failed) -> nothing
    let mut tape = Vec::new();
    push_node(&mut tape, nk::OBJECT, of::HAS_VALUE, -1, -1);
    push_node(&mut tape, nk::NOTHING, 0, -1, -1);
    push_node(&mut tape, nk::OBJECT, 0, -1, -1);
    assert_eq!(render_plan(&tape, 0).unwrap(), None);
    assert_eq!(render_plan(&tape, 2).unwrap(), None);
}

#[test]
fn render_arrays_join_non_empty_children_or_fall_back_to_json() {
    // [ 'a', '', null, [ 'b' ], {type:'json', value:{x:1}} ]
    let mut tape = Vec::new();
    push_node(&mut tape, nk::ARRAY, 5, -1, 100);
    push_node(&mut tape, nk::STRING, 0, 1, -1);
    push_node(&mut tape, nk::STRING, 1, 2, -1);
    push_node(&mut tape, nk::NOTHING, 0, -1, -1);
    push_node(&mut tape, nk::ARRAY, 1, -1, 101);
    push_node(&mut tape, nk::STRING, 0, 3, -1);
    push_node(&mut tape, nk::OBJECT, of::HAS_VALUE, -1, -1);
    push_node(&mut tape, nk::OBJECT, 0, -1, 4);
    assert_eq!(render_plan(&tape, 0).unwrap(), Some(vec![1, 3, 4]));
    // [null, ''] -> its JSON
    let mut tape = Vec::new();
    push_node(&mut tape, nk::ARRAY, 2, -1, 50);
    push_node(&mut tape, nk::NOTHING, 0, -1, -1);
    push_node(&mut tape, nk::STRING, 1, 0, -1);
    assert_eq!(render_plan(&tape, 0).unwrap(), Some(vec![50]));
}

#[test]
fn lazy_array_json_refs_are_passed_through_as_segments() {
    let mut tape = Vec::new();
    push_node(&mut tape, nk::ARRAY, 1, -1, -7);
    push_node(&mut tape, nk::NOTHING, 0, -1, -1);
    assert_eq!(render_plan(&tape, 0).unwrap(), Some(vec![-7]));
}

#[test]
fn render_deep_nesting_does_not_recurse() {
    let depth = 200_000;
    let mut tape = Vec::new();
    for _ in 0..depth {
        push_node(&mut tape, nk::ARRAY, 1, -1, -1);
    }
    push_node(&mut tape, nk::STRING, 0, 1, -1);
    assert_eq!(render_plan(&tape, 0).unwrap(), Some(vec![1]));
}

#[test]
fn malformed_input_is_an_error_not_a_panic() {
    assert!(render_plan(&[nk::ARRAY, 3, -1, -1], 0).is_err());
    assert!(render_plan(&[], 0).is_err());
    let conversation = Conversation {
        messages: &[shape::WITH_PARTS, 0, 5, 0],
        parts: &[],
        invocations: &[],
        id_truthy: &[],
        name_count: 0,
        model_output_tape: &[],
    };
    let mut actions = vec![0u8; 1];
    let mut buffer = vec![0i32; 1];
    let mut plans = IntWriter::new(&mut buffer);
    let options = FilterOptions { mode: ExcludeMode::All, preserve_model_output: false, preserved_ids: &[] };
    assert!(decide(&conversation, &options, &mut actions, &mut plans).is_err());
    assert!(StepInput::parse(&[3, 1]).is_err());
    assert!(StepInput::parse(&[-1]).is_err());
}

#[test]
fn window_start_follows_js_slice_semantics() {
    assert_eq!(window_start(0.0, 3), 3);
    assert_eq!(window_start(-2.0, 3), 3);
    assert_eq!(window_start(1.0, 3), 2);
    assert_eq!(window_start(1.5, 3), 2);
    assert_eq!(window_start(2.0, 3), 1);
    assert_eq!(window_start(5.0, 3), 0);
    assert_eq!(window_start(f64::NAN, 3), 0);
    assert_eq!(window_start(0.5, 3), 0);
    assert_eq!(window_start(f64::INFINITY, 3), 0);
}

#[test]
fn step_window_appends_a_group_per_call_and_preserves_the_last_ones() {
    // ids: 0 call-old, 1 call-recent
    let truthy = [1u8, 1];
    let first = StepInput { seen: &[], groups: vec![], response_ids: &[0] };
    let outcome = advance_step_window(&first, &truthy, 1.0);
    assert_eq!(outcome.new_ids, vec![0]);
    assert_eq!(outcome.seen_after, vec![0]);
    assert_eq!(outcome.preserved, vec![true, false]);

    let second = StepInput { seen: &[0], groups: vec![&[0]], response_ids: &[0, 1, 1] };
    let outcome = advance_step_window(&second, &truthy, 1.0);
    assert_eq!(outcome.new_ids, vec![1]);
    assert_eq!(outcome.seen_after, vec![0, 1]);
    assert_eq!(outcome.preserved, vec![false, true]);

    let third = StepInput { seen: &[0, 1], groups: vec![&[0], &[1]], response_ids: &[0, 1] };
    let outcome = advance_step_window(&third, &truthy, 1.0);
    assert!(outcome.new_ids.is_empty());
    assert_eq!(outcome.preserved, vec![false, false]);
    assert_eq!(advance_step_window(&third, &truthy, 2.0).preserved, vec![false, true]);
}

#[test]
fn step_window_ignores_falsy_response_ids() {
    let outcome = advance_step_window(&StepInput { seen: &[], groups: vec![], response_ids: &[0, 1] }, &[0, 1], 1.0);
    assert_eq!(outcome.new_ids, vec![1]);
}

#[test]
fn step_input_parses_the_wire_layout() {
    let wire = [1, 7, 2, 1, 7, 0, 2, 8, 9];
    let parsed = StepInput::parse(&wire).unwrap();
    assert_eq!(parsed.seen, &[7]);
    assert_eq!(parsed.groups, vec![&[7][..], &[][..]]);
    assert_eq!(parsed.response_ids, &[8, 9]);
}

#[test]
fn name_flags_are_sized_by_the_excluded_names_not_the_declared_count() {
    // A declared count of 2^31-1 names once sized a vector of that many flags.
    assert_eq!(super::name_flags(&[2, 0], i32::MAX as usize).len(), 3);
    assert_eq!(super::name_flags(&[5, -1, 9], 6).len(), 6, "names past the count are ignored");
    assert!(super::name_flags(&[], i32::MAX as usize).is_empty());
}
