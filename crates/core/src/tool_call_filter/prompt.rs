//! Decisions for ToolCallFilter at the prompt stage (`processLLMRequest`): which parts of the
//! `LanguageModelV2Prompt` about to be sent to the model go, which stay, which become text, and
//! which messages are passed through, rebuilt or dropped. The message list is never touched.
//!
//! The JS layer describes the prompt with flat `i32` records (below); tool-call ids and tool names
//! are interned indices as in the message stage. Three ways of choosing the tool calls that
//! survive ([`Preserve`]) and two rules for the `<tool> result:` texts ([`ReplacementRule`]) cover
//! every host: 1.60–1.67, 1.68+, and 1.59's own behaviour replayed on the prompt for 1.58/1.59
//! hosts that opt in.

use super::model_output;
use super::step_window::{advance_step_window, window_start, StepInput};
use super::{DecideError, IntWriter};

pub use super::layout::{
    prompt_part_flag, prompt_part_kind, prompt_role, NEEDS_OUTPUTS, OUTPUT_NOT_ENCODED, PROMPT_MESSAGE_STRIDE,
    PROMPT_PART_STRIDE,
};
use super::layout::{CHANGED, UNCHANGED};

/// Which tool calls survive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Preserve<'a> {
    /// Every id of the current run: ids not in the request's first prompt. `history` is the
    /// membership of each interned id in the stored history set, or `None` when this is the first
    /// prompt of the request (the history is then recorded and nothing is preserved).
    Run { history: Option<&'a [u8]> },
    /// The last `window` assistant messages with tool calls, history and current run alike
    /// (1.60+ with `filterAfterToolSteps`).
    PromptSteps { window: f64 },
    /// 1.59's step window: one group per model call holding the run's tool calls first seen at
    /// that call; the last `window` groups survive, history never does.
    RunSteps { window: f64, history: Option<&'a [u8]>, seen: &'a [i32], groups: &'a [&'a [i32]] },
}

/// Which removed results leave a `<tool> result:` text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplacementRule {
    /// Every removed result whose `output` renders to text (1.60–1.67).
    EveryResult,
    /// Only results carrying the `mastra.modelOutput` marker (1.59, 1.68+).
    ModelOutputOnly,
}

/// A prompt in wire form.
#[derive(Debug, Clone, Copy)]
pub struct Prompt<'a> {
    pub messages: &'a [i32],
    pub parts: &'a [i32],
    /// `id_truthy[i]`: whether interned id `i` is a truthy JS value.
    pub id_truthy: &'a [u8],
    pub name_count: usize,
    /// Nodes of the rendered `output` values, see [`model_output`].
    pub model_output_tape: &'a [i32],
}

/// Options of one prompt pass.
#[derive(Debug, Clone, Copy)]
pub struct PromptOptions<'a> {
    /// `None`: every tool; `Some(names)`: the non-empty `exclude` list (name indices).
    pub exclude: Option<&'a [i32]>,
    /// `Some(rule)` when `preserveModelOutput` is on.
    pub replacement: Option<ReplacementRule>,
    pub preserve: Preserve<'a>,
    /// Place texts as 1.59's MessageList conversion does (1.58/1.59 hosts): a text that follows a
    /// kept tool call of the same assistant message starts a new assistant message, which goes
    /// after the tool message holding the results of the calls before it.
    pub split_after_kept_calls: bool,
}

pub use super::layout::{prompt_message_action, prompt_part_action};

struct PromptPart {
    kind: i32,
    id: i32,
    name: i32,
    flags: i32,
    output_root: i32,
}

fn read_part(parts: &[i32], index: usize) -> Result<PromptPart, DecideError> {
    let start = index * PROMPT_PART_STRIDE;
    let record = parts
        .get(start..start + PROMPT_PART_STRIDE)
        .ok_or(DecideError::Malformed("prompt part record out of range"))?;
    Ok(PromptPart { kind: record[0], id: record[1], name: record[2], flags: record[3], output_root: record[4] })
}

fn index_of(id: i32, len: usize) -> Option<usize> {
    usize::try_from(id).ok().filter(|&i| i < len)
}

fn flag_set(flags: &[u8], id: i32) -> bool {
    index_of(id, flags.len()).is_some_and(|i| flags[i] != 0)
}

/// Messages with their part ranges, validated once.
struct Layout {
    /// `(role, first_part, part_count)`.
    messages: Vec<(i32, usize, usize)>,
}

fn layout(prompt: &Prompt) -> Result<Layout, DecideError> {
    let part_total = prompt.parts.len() / PROMPT_PART_STRIDE;
    let mut messages = Vec::with_capacity(prompt.messages.len() / PROMPT_MESSAGE_STRIDE);
    let mut cursor = 0usize;
    for record in prompt.messages.chunks_exact(PROMPT_MESSAGE_STRIDE) {
        let count = usize::try_from(record[1]).map_err(|_| DecideError::Malformed("prompt part count"))?;
        if cursor + count > part_total {
            return Err(DecideError::Malformed("prompt message points past the parts"));
        }
        messages.push((record[0], cursor, count));
        cursor += count;
    }
    Ok(Layout { messages })
}

fn has_parts(role: i32) -> bool {
    role == prompt_role::ASSISTANT || role == prompt_role::OTHER
}

fn is_tool_part(kind: i32) -> bool {
    kind == prompt_part_kind::TOOL_CALL || kind == prompt_part_kind::TOOL_RESULT
}

/// Truthy ids of the tool-call/tool-result parts of non-system/user messages, first-seen order.
fn prompt_tool_call_ids(prompt: &Prompt, layout: &Layout) -> Result<Vec<i32>, DecideError> {
    let id_count = prompt.id_truthy.len();
    let mut seen = vec![false; id_count];
    let mut ids = Vec::new();
    for &(role, first, count) in &layout.messages {
        if !has_parts(role) {
            continue;
        }
        for index in first..first + count {
            let part = read_part(prompt.parts, index)?;
            if !is_tool_part(part.kind) {
                continue;
            }
            if let Some(i) = index_of(part.id, id_count) {
                if prompt.id_truthy[i] != 0 && !seen[i] {
                    seen[i] = true;
                    ids.push(part.id);
                }
            }
        }
    }
    Ok(ids)
}

/// What the preserve strategy decided, plus the state to write back.
struct Preserved {
    ids: Vec<bool>,
    /// Set when the history was recorded by this call: its ids, in first-seen order.
    recorded_history: Option<Vec<i32>>,
    /// For [`Preserve::RunSteps`]: the new group and the seen ids after this call.
    step: Option<(Vec<i32>, Vec<i32>)>,
}

fn run_ids(prompt: &Prompt, layout: &Layout, history: Option<&[u8]>) -> Result<(Vec<i32>, Option<Vec<i32>>), DecideError> {
    let ids = prompt_tool_call_ids(prompt, layout)?;
    match history {
        // The first prompt is the history: nothing in it belongs to the run.
        None => Ok((Vec::new(), Some(ids))),
        Some(flags) => Ok((ids.into_iter().filter(|&id| !flag_set(flags, id)).collect(), None)),
    }
}

fn preserved_ids(prompt: &Prompt, layout: &Layout, preserve: &Preserve) -> Result<Preserved, DecideError> {
    let id_count = prompt.id_truthy.len();
    let mut ids = vec![false; id_count];
    match *preserve {
        Preserve::Run { history } => {
            let (run, recorded_history) = run_ids(prompt, layout, history)?;
            for id in run {
                if let Some(i) = index_of(id, id_count) {
                    ids[i] = true;
                }
            }
            Ok(Preserved { ids, recorded_history, step: None })
        }
        Preserve::PromptSteps { window } => {
            // Every assistant message with at least one tool-call part is a step (falsy ids too).
            let mut steps: Vec<(usize, usize)> = Vec::new();
            for &(role, first, count) in &layout.messages {
                if role != prompt_role::ASSISTANT {
                    continue;
                }
                let mut has_call = false;
                for index in first..first + count {
                    if read_part(prompt.parts, index)?.kind == prompt_part_kind::TOOL_CALL {
                        has_call = true;
                        break;
                    }
                }
                if has_call {
                    steps.push((first, count));
                }
            }
            let start = window_start(window, steps.len());
            for &(first, count) in &steps[start..] {
                for index in first..first + count {
                    let part = read_part(prompt.parts, index)?;
                    if part.kind == prompt_part_kind::TOOL_CALL {
                        if let Some(i) = index_of(part.id, id_count) {
                            ids[i] = true;
                        }
                    }
                }
            }
            Ok(Preserved { ids, recorded_history: None, step: None })
        }
        Preserve::RunSteps { window, history, seen, groups } => {
            let (run, recorded_history) = run_ids(prompt, layout, history)?;
            let input = StepInput { seen, groups: groups.to_vec(), response_ids: &run };
            let outcome = advance_step_window(&input, prompt.id_truthy, window);
            Ok(Preserved { ids: outcome.preserved, recorded_history, step: Some((outcome.new_ids, outcome.seen_after)) })
        }
    }
}

/// Decides the fate of every message and part of `prompt`.
///
/// `actions` receives one byte per message, then one per part. `ints` receives, in order:
/// `[changed]`; `[history_count, history_ids...]` (count 0 unless this call recorded the
/// history); for [`Preserve::RunSteps`] `[new_count, new_ids..., seen_count, seen_ids...]`;
/// `[split_length, splits...]` where `splits` holds, for every assistant message that is split,
/// `[assistant_message, tool_message or -1, tool_part_count, segment of each tool part (-1:
/// dropped)...]`; then, for every `TEXT`/`SPLIT_TEXT` part in part order,
/// `[source_result_part, segment_count, segments...]`: the text is
/// `<source's toolName> result:\n<segments joined by \n>`.
///
/// When `changed` is 0 the host returns `undefined` (the prompt goes on unchanged) and no
/// actions or plans are written. When some removed result that may leave a text has its output
/// [`OUTPUT_NOT_ENCODED`], `ints` is `[NEEDS_OUTPUTS, count, part indices...]` instead: encode
/// those outputs and decide again (the state lists are not written then).
// Part indices address both the wire records and the action bytes.
#[allow(clippy::needless_range_loop)]
pub fn decide_prompt(
    prompt: &Prompt,
    options: &PromptOptions,
    actions: &mut [u8],
    ints: &mut IntWriter,
) -> Result<(), DecideError> {
    let layout = layout(prompt)?;
    let message_count = layout.messages.len();
    let part_count = prompt.parts.len() / PROMPT_PART_STRIDE;
    if actions.len() < message_count + part_count {
        return Err(DecideError::OutputTooSmall("actions"));
    }
    let id_count = prompt.id_truthy.len();

    let preserved = preserved_ids(prompt, &layout, &options.preserve)?;
    let changed_at = ints.len();
    ints.push(UNCHANGED)?;
    let write_state = |ints: &mut IntWriter| -> Result<(), DecideError> {
        push_list(ints, preserved.recorded_history.as_deref().unwrap_or_default())?;
        if let Some((new_ids, seen_after)) = &preserved.step {
            push_list(ints, new_ids)?;
            push_list(ints, seen_after)?;
        }
        Ok(())
    };

    // Excluded ids: tool parts of non-system/user messages, not preserved, with a matching name.
    let mut excluded_names = super::name_flags(options.exclude.unwrap_or_default(), prompt.name_count);
    if let Some(names) = options.exclude {
        for &name in names {
            if let Some(i) = index_of(name, prompt.name_count) {
                excluded_names[i] = true;
            }
        }
    }
    let mut excluded = vec![false; id_count];
    let mut any_excluded = false;
    for &(role, first, count) in &layout.messages {
        if !has_parts(role) {
            continue;
        }
        for index in first..first + count {
            let part = read_part(prompt.parts, index)?;
            if !is_tool_part(part.kind) || flag_set_bool(&preserved.ids, part.id) {
                continue;
            }
            let matches = options.exclude.is_none() || flag_set_bool(&excluded_names, part.name);
            // A falsy id is never removed (the host keeps parts without a truthy id).
            if matches && index_of(part.id, id_count).is_some_and(|i| prompt.id_truthy[i] != 0) {
                excluded[part.id as usize] = true;
                any_excluded = true;
            }
        }
    }
    if !any_excluded {
        return write_state(ints);
    }

    // Outputs still to encode for the texts of removed results.
    if let Some(rule) = options.replacement {
        let mut missing = Vec::new();
        for &(role, first, count) in &layout.messages {
            if !has_parts(role) {
                continue;
            }
            for index in first..first + count {
                let part = read_part(prompt.parts, index)?;
                if part.kind == prompt_part_kind::TOOL_RESULT
                    && part.output_root == OUTPUT_NOT_ENCODED
                    && flag_set_bool(&excluded, part.id)
                    && (rule == ReplacementRule::EveryResult
                        || part.flags & prompt_part_flag::HAS_MODEL_OUTPUT_MARKER != 0)
                {
                    missing.push(i32::try_from(index).map_err(|_| DecideError::Malformed("part index"))?);
                }
            }
        }
        if !missing.is_empty() {
            ints.set(changed_at, NEEDS_OUTPUTS)?;
            return push_list(ints, &missing);
        }
    }
    write_state(ints)?;

    // Replacement texts: per excluded id, the last removed result that renders to text.
    let mut sources: Vec<Option<(usize, Vec<i32>)>> = vec![None; id_count];
    if let Some(rule) = options.replacement {
        for &(role, first, count) in &layout.messages {
            if !has_parts(role) {
                continue;
            }
            for index in first..first + count {
                let part = read_part(prompt.parts, index)?;
                if part.kind != prompt_part_kind::TOOL_RESULT || !flag_set_bool(&excluded, part.id) {
                    continue;
                }
                if rule == ReplacementRule::ModelOutputOnly
                    && part.flags & prompt_part_flag::HAS_MODEL_OUTPUT_MARKER == 0
                {
                    continue;
                }
                if part.output_root < 0 {
                    continue;
                }
                let root = usize::try_from(part.output_root).map_err(|_| DecideError::Malformed("output root"))?;
                if let Some(segments) = model_output::render_plan(prompt.model_output_tape, root)? {
                    sources[part.id as usize] = Some((index, segments));
                }
            }
        }
    }

    // Ids that have a tool-call part in some assistant message.
    let mut has_call_part = vec![false; id_count];
    for &(role, first, count) in &layout.messages {
        if role != prompt_role::ASSISTANT {
            continue;
        }
        for index in first..first + count {
            let part = read_part(prompt.parts, index)?;
            if part.kind == prompt_part_kind::TOOL_CALL {
                if let Some(i) = index_of(part.id, id_count) {
                    has_call_part[i] = true;
                }
            }
        }
    }

    let (message_actions, part_actions) = actions.split_at_mut(message_count);
    let mut changed = false;
    let mut plans: Vec<i32> = Vec::new();
    let mut split_messages: Vec<usize> = Vec::new();
    for (message_index, &(role, first, count)) in layout.messages.iter().enumerate() {
        match role {
            prompt_role::ASSISTANT | prompt_role::OTHER => {}
            prompt_role::OPAQUE_EMPTY => {
                message_actions[message_index] = prompt_message_action::DROP;
                continue;
            }
            _ => {
                message_actions[message_index] = prompt_message_action::PASS;
                continue;
            }
        }
        let mut remaining = 0usize;
        let mut message_changed = false;
        let mut previous_is_call = false;
        let mut splits_here = false;
        for index in first..first + count {
            let part = read_part(prompt.parts, index)?;
            if !is_tool_part(part.kind) || !flag_set_bool(&excluded, part.id) {
                part_actions[index] = prompt_part_action::KEEP;
                previous_is_call = part.kind == prompt_part_kind::TOOL_CALL;
                remaining += 1;
                continue;
            }
            changed = true;
            message_changed = true;
            let emits_text = part.kind == prompt_part_kind::TOOL_CALL
                || (role == prompt_role::ASSISTANT && !flag_set_bool(&has_call_part, part.id));
            let source = if emits_text { sources[part.id as usize].as_ref() } else { None };
            match source {
                Some((source_index, segments)) => {
                    part_actions[index] = if options.split_after_kept_calls && previous_is_call && role == prompt_role::ASSISTANT {
                        splits_here = true;
                        prompt_part_action::SPLIT_TEXT
                    } else {
                        prompt_part_action::TEXT
                    };
                    previous_is_call = false;
                    remaining += 1;
                    plans.push(i32::try_from(*source_index).map_err(|_| DecideError::Malformed("part index"))?);
                    plans.push(i32::try_from(segments.len()).map_err(|_| DecideError::Malformed("plan size"))?);
                    plans.extend_from_slice(segments);
                }
                None => part_actions[index] = prompt_part_action::DROP,
            }
        }
        if splits_here {
            split_messages.push(message_index);
        }
        message_actions[message_index] = if remaining == 0 {
            prompt_message_action::DROP
        } else if message_changed {
            prompt_message_action::REBUILD
        } else {
            prompt_message_action::PASS
        };
    }
    if !changed {
        return Ok(());
    }
    ints.set(changed_at, CHANGED)?;
    let splits = split_plans(prompt, &layout, &split_messages, message_actions, part_actions)?;
    push_list(ints, &splits)?;
    for &value in &plans {
        ints.push(value)?;
    }
    Ok(())
}

/// For each split assistant message: which of its segments each part of the following tool
/// message belongs to (the segment holding the kept call of the same id; else the first).
#[allow(clippy::needless_range_loop)]
fn split_plans(
    prompt: &Prompt,
    layout: &Layout,
    split_messages: &[usize],
    message_actions: &[u8],
    part_actions: &[u8],
) -> Result<Vec<i32>, DecideError> {
    let mut out = Vec::new();
    let id_count = prompt.id_truthy.len();
    for &message_index in split_messages {
        let (_, first, count) = layout.messages[message_index];
        let mut segment_of_id: Vec<i32> = vec![-1; id_count];
        let mut segment = 0i32;
        for index in first..first + count {
            match part_actions[index] {
                prompt_part_action::SPLIT_TEXT => segment += 1,
                prompt_part_action::KEEP => {
                    let part = read_part(prompt.parts, index)?;
                    if part.kind == prompt_part_kind::TOOL_CALL {
                        if let Some(i) = index_of(part.id, id_count) {
                            if segment_of_id[i] == -1 {
                                segment_of_id[i] = segment;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        out.push(i32::try_from(message_index).map_err(|_| DecideError::Malformed("message index"))?);
        let next = message_index + 1;
        match layout.messages.get(next) {
            Some(&(prompt_role::OTHER, tool_first, tool_count)) => {
                out.push(i32::try_from(next).map_err(|_| DecideError::Malformed("message index"))?);
                out.push(i32::try_from(tool_count).map_err(|_| DecideError::Malformed("part count"))?);
                let dropped = message_actions[next] == prompt_message_action::DROP;
                for index in tool_first..tool_first + tool_count {
                    let part = read_part(prompt.parts, index)?;
                    let value = if dropped || part_actions[index] == prompt_part_action::DROP {
                        -1
                    } else if part.kind == prompt_part_kind::TOOL_RESULT {
                        index_of(part.id, id_count).map(|i| segment_of_id[i]).filter(|&s| s >= 0).unwrap_or(0)
                    } else {
                        0
                    };
                    out.push(value);
                }
            }
            _ => {
                out.push(-1);
                out.push(0);
            }
        }
    }
    Ok(out)
}

fn flag_set_bool(flags: &[bool], id: i32) -> bool {
    index_of(id, flags.len()).is_some_and(|i| flags[i])
}

fn push_list(ints: &mut IntWriter, values: &[i32]) -> Result<(), DecideError> {
    ints.push(i32::try_from(values.len()).map_err(|_| DecideError::Malformed("list size"))?)?;
    for &value in values {
        ints.push(value)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::model_output::{node_kind, NODE_STRIDE};
    use super::super::NONE;
    use super::*;

    use prompt_message_action as ma;
    use prompt_part_action as pa;
    use prompt_part_kind as pk;
    use prompt_role as role;

    /// A prompt in wire form, built the way the JS layer builds it.
    #[derive(Default)]
    struct Wire {
        messages: Vec<i32>,
        parts: Vec<i32>,
        id_truthy: Vec<u8>,
        tape: Vec<i32>,
    }

    #[derive(Clone, Copy)]
    struct Part {
        kind: i32,
        id: i32,
        name: i32,
        flags: i32,
        root: i32,
    }

    fn text() -> Part {
        Part { kind: pk::OTHER, id: NONE, name: NONE, flags: 0, root: NONE }
    }
    fn call(id: i32, name: i32) -> Part {
        Part { kind: pk::TOOL_CALL, id, name, flags: 0, root: NONE }
    }
    fn result(id: i32, name: i32) -> Part {
        Part { kind: pk::TOOL_RESULT, id, name, flags: 0, root: NONE }
    }

    impl Wire {
        fn new(ids: usize) -> Self {
            Wire { id_truthy: vec![1; ids], ..Default::default() }
        }
        fn message(&mut self, role: i32, parts: &[Part]) -> &mut Self {
            self.messages.extend([role, parts.len() as i32]);
            for p in parts {
                self.parts.extend([p.kind, p.id, p.name, p.flags, p.root]);
            }
            self
        }
        /// A string output (segment `segment`) for a result part; returns the part.
        fn with_text(&mut self, part: Part, segment: i32, marked: bool) -> Part {
            let root = (self.tape.len() / NODE_STRIDE) as i32;
            self.tape.extend([node_kind::STRING, 0, segment, -1]);
            Part { root, flags: if marked { prompt_part_flag::HAS_MODEL_OUTPUT_MARKER } else { 0 }, ..part }
        }
        fn run(&self, options: &PromptOptions) -> (Vec<u8>, Vec<i32>) {
            let prompt = Prompt {
                messages: &self.messages,
                parts: &self.parts,
                id_truthy: &self.id_truthy,
                name_count: 3,
                model_output_tape: &self.tape,
            };
            let mut actions = vec![0u8; self.messages.len() / PROMPT_MESSAGE_STRIDE + self.parts.len() / PROMPT_PART_STRIDE];
            let mut ints = vec![0i32; 256];
            let mut writer = IntWriter::new(&mut ints);
            decide_prompt(&prompt, options, &mut actions, &mut writer).unwrap();
            let written = writer.written().to_vec();
            (actions, written)
        }
    }

    fn options(preserve: Preserve) -> PromptOptions {
        PromptOptions { exclude: None, replacement: None, preserve, split_after_kept_calls: false }
    }

    const KNOWN_EMPTY: &[u8] = &[0, 0, 0, 0, 0, 0];

    /// user, assistant [call 0 (name 0), call 1 (name 1)], tool [result 0, result 1]
    fn two_calls() -> Wire {
        let mut wire = Wire::new(2);
        wire.message(role::PASS, &[])
            .message(role::ASSISTANT, &[call(0, 0), call(1, 1)])
            .message(role::OTHER, &[result(0, 0), result(1, 1)]);
        wire
    }

    #[test]
    fn first_prompt_is_recorded_as_history_and_filtered() {
        let wire = two_calls();
        let (actions, ints) = wire.run(&options(Preserve::Run { history: None }));
        // changed, history [0, 1], no splits, no plans
        assert_eq!(ints, vec![CHANGED, 2, 0, 1, 0]);
        assert_eq!(&actions[..3], &[ma::PASS, ma::DROP, ma::DROP]);
    }

    #[test]
    fn run_ids_outside_the_history_survive() {
        let wire = two_calls();
        let history = [1u8, 0];
        let (actions, ints) = wire.run(&options(Preserve::Run { history: Some(&history) }));
        assert_eq!(ints[..2], [1, 0]);
        // assistant keeps call 1 only; tool keeps result 1 only
        assert_eq!(&actions[..3], &[ma::PASS, ma::REBUILD, ma::REBUILD]);
        assert_eq!(&actions[3..], &[pa::DROP, pa::KEEP, pa::DROP, pa::KEEP]);
    }

    #[test]
    fn nothing_to_exclude_means_unchanged() {
        let wire = two_calls();
        let history = [0u8, 0];
        let (_, ints) = wire.run(&options(Preserve::Run { history: Some(&history) }));
        assert_eq!(ints, vec![0, 0]);
        let names = [2];
        let mut only_unknown = options(Preserve::Run { history: Some(KNOWN_EMPTY) });
        only_unknown.exclude = Some(&names);
        assert_eq!(wire.run(&only_unknown).1, vec![0, 0]);
    }

    #[test]
    fn exclude_names_remove_calls_and_results_as_pairs() {
        let wire = two_calls();
        let names = [1];
        let mut opts = options(Preserve::Run { history: None });
        opts.exclude = Some(&names);
        let (actions, _) = wire.run(&opts);
        assert_eq!(&actions[3..], &[pa::KEEP, pa::DROP, pa::KEEP, pa::DROP]);
    }

    #[test]
    fn falsy_ids_are_never_removed() {
        let mut wire = two_calls();
        wire.id_truthy[0] = 0;
        // Window 0 excludes every call, but the falsy id's call and result stay.
        let (actions, ints) = wire.run(&options(Preserve::PromptSteps { window: 0.0 }));
        assert_eq!(ints[0], CHANGED);
        assert_eq!(&actions[3..], &[pa::KEEP, pa::DROP, pa::KEEP, pa::DROP]);
    }

    #[test]
    fn prompt_steps_keep_the_last_assistant_tool_messages() {
        let mut wire = Wire::new(3);
        wire.message(role::ASSISTANT, &[call(0, 0)])
            .message(role::OTHER, &[result(0, 0)])
            .message(role::ASSISTANT, &[text()])
            .message(role::ASSISTANT, &[call(1, 0), call(2, 0)])
            .message(role::OTHER, &[result(1, 0), result(2, 0)]);
        let (actions, _) = wire.run(&options(Preserve::PromptSteps { window: 1.0 }));
        assert_eq!(&actions[..5], &[ma::DROP, ma::DROP, ma::PASS, ma::PASS, ma::PASS]);
        let (_, ints) = wire.run(&options(Preserve::PromptSteps { window: 2.0 }));
        assert_eq!(ints, vec![0, 0]);
        // NaN keeps everything (slice(-NaN) is slice(0)); 0 keeps nothing.
        assert_eq!(wire.run(&options(Preserve::PromptSteps { window: f64::NAN })).1, vec![0, 0]);
        let (actions, _) = wire.run(&options(Preserve::PromptSteps { window: 0.0 }));
        assert_eq!(&actions[..5], &[ma::DROP, ma::DROP, ma::PASS, ma::DROP, ma::DROP]);
    }

    #[test]
    fn run_steps_group_new_ids_per_call_and_never_keep_history() {
        let wire = two_calls();
        // History knows id 0; id 1 is new at this call → group [1]; window 1 keeps it.
        let history = [1u8, 0];
        let groups: [&[i32]; 1] = [&[]];
        let preserve = Preserve::RunSteps { window: 1.0, history: Some(&history), seen: &[], groups: &groups };
        let (actions, ints) = wire.run(&options(preserve));
        // changed, no history recorded, new [1], seen [1], no splits
        assert_eq!(ints, vec![1, 0, 1, 1, 1, 1, 0]);
        assert_eq!(&actions[3..], &[pa::DROP, pa::KEEP, pa::DROP, pa::KEEP]);
        // Seen before, in an older group outside the window: removed.
        let groups: [&[i32]; 2] = [&[1], &[]];
        let preserve = Preserve::RunSteps { window: 1.0, history: Some(&history), seen: &[1], groups: &groups };
        let (actions, _) = wire.run(&options(preserve));
        assert_eq!(&actions[..3], &[ma::PASS, ma::DROP, ma::DROP]);
    }

    #[test]
    fn replacement_texts_follow_the_rule_and_sit_where_the_call_was() {
        let mut wire = Wire::new(2);
        let result0 = wire.with_text(result(0, 0), 7, true);
        let result1 = wire.with_text(result(1, 1), 8, false);
        wire.message(role::ASSISTANT, &[call(0, 0), call(1, 1)]).message(role::OTHER, &[result0, result1]);
        let mut every = options(Preserve::Run { history: None });
        every.replacement = Some(ReplacementRule::EveryResult);
        let (actions, ints) = wire.run(&every);
        assert_eq!(&actions[..2], &[ma::REBUILD, ma::DROP]);
        assert_eq!(&actions[2..4], &[pa::TEXT, pa::TEXT]);
        // changed, history [0, 1], splits [], plans: (source part 2, 1 segment: 7), (part 3: 8)
        assert_eq!(ints, vec![1, 2, 0, 1, 0, 2, 1, 7, 3, 1, 8]);
        let mut marked = every;
        marked.replacement = Some(ReplacementRule::ModelOutputOnly);
        let (actions, ints) = wire.run(&marked);
        assert_eq!(&actions[2..4], &[pa::TEXT, pa::DROP]);
        assert_eq!(ints[5..], [2, 1, 7]);
    }

    #[test]
    fn outputs_are_asked_for_only_when_a_removed_result_needs_its_text() {
        let not_encoded = |part: Part, marked: bool| Part {
            root: OUTPUT_NOT_ENCODED,
            flags: if marked { prompt_part_flag::HAS_MODEL_OUTPUT_MARKER } else { 0 },
            ..part
        };
        let mut wire = Wire::new(2);
        wire.message(role::ASSISTANT, &[call(0, 0), call(1, 1)])
            .message(role::OTHER, &[not_encoded(result(0, 0), true), not_encoded(result(1, 1), false)]);
        let mut opts = options(Preserve::Run { history: None });
        opts.replacement = Some(ReplacementRule::ModelOutputOnly);
        // Both removed; only the marked result (part 2) may leave a text.
        assert_eq!(wire.run(&opts).1, vec![NEEDS_OUTPUTS, 1, 2]);
        opts.replacement = Some(ReplacementRule::EveryResult);
        assert_eq!(wire.run(&opts).1, vec![NEEDS_OUTPUTS, 2, 2, 3]);
        // Nothing removed: nothing asked.
        let history = [0u8, 0];
        opts.preserve = Preserve::Run { history: Some(&history) };
        assert_eq!(wire.run(&opts).1, vec![0, 0]);
    }

    #[test]
    fn converted_placement_splits_after_a_kept_call() {
        // assistant [call 0 kept, call 1 removed → text], tool [result 0, result 1]
        let mut wire = Wire::new(2);
        let result1 = wire.with_text(result(1, 1), 5, true);
        wire.message(role::ASSISTANT, &[call(0, 0), call(1, 1)]).message(role::OTHER, &[result(0, 0), result1]);
        let names = [1];
        let mut opts = options(Preserve::Run { history: None });
        opts.exclude = Some(&names);
        opts.replacement = Some(ReplacementRule::ModelOutputOnly);
        opts.split_after_kept_calls = true;
        let (actions, ints) = wire.run(&opts);
        assert_eq!(&actions[2..], &[pa::KEEP, pa::SPLIT_TEXT, pa::KEEP, pa::DROP]);
        // changed, history [0, 1], splits: (assistant 0, tool 1, 2 parts: segment 0, dropped), plan
        assert_eq!(ints, vec![1, 2, 0, 1, 5, 0, 1, 2, 0, -1, 3, 1, 5]);
        // In place (1.60+): no split.
        opts.split_after_kept_calls = false;
        let (actions, _) = wire.run(&opts);
        assert_eq!(&actions[2..], &[pa::KEEP, pa::TEXT, pa::KEEP, pa::DROP]);
    }

    #[test]
    fn provider_executed_results_without_a_call_emit_text_in_place() {
        let mut wire = Wire::new(1);
        let orphan = wire.with_text(result(0, 0), 3, true);
        wire.message(role::ASSISTANT, &[text(), orphan]);
        let mut opts = options(Preserve::Run { history: None });
        opts.replacement = Some(ReplacementRule::ModelOutputOnly);
        let (actions, ints) = wire.run(&opts);
        assert_eq!(&actions, &[ma::REBUILD, pa::KEEP, pa::TEXT]);
        assert_eq!(ints[4..], [1, 1, 3]);
    }

    #[test]
    fn empty_string_contents_are_dropped_only_when_something_changed() {
        let mut wire = two_calls();
        wire.message(role::OPAQUE_EMPTY, &[]).message(role::OPAQUE, &[]);
        let (actions, _) = wire.run(&options(Preserve::Run { history: None }));
        assert_eq!(&actions[3..5], &[ma::DROP, ma::PASS]);
    }

    #[test]
    fn malformed_wire_is_an_error_not_a_panic() {
        let prompt = Prompt { messages: &[role::ASSISTANT, 5], parts: &[], id_truthy: &[], name_count: 0, model_output_tape: &[] };
        let mut actions = [0u8; 8];
        let mut ints = [0i32; 8];
        let mut writer = IntWriter::new(&mut ints);
        let opts = options(Preserve::Run { history: None });
        assert!(decide_prompt(&prompt, &opts, &mut actions, &mut writer).is_err());
        let wire = two_calls();
        let prompt = Prompt { messages: &wire.messages, parts: &wire.parts, id_truthy: &wire.id_truthy, name_count: 2, model_output_tape: &[] };
        let mut small = [0i32; 2];
        let mut writer = IntWriter::new(&mut small);
        assert_eq!(decide_prompt(&prompt, &opts, &mut actions, &mut writer), Err(DecideError::OutputTooSmall("ints")));
    }
}
