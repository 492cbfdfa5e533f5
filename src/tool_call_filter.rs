//! Native half of ToolCallFilter: one call per `processInput`/`processInputStep`, or per
//! `processLLMRequest` at the prompt stage.
//!
//! Everything crosses as typed arrays the JS layer reuses between calls (see the wire layout in
//! `mastra_native_core::tool_call_filter`); we write the decisions into caller-owned buffers, so
//! nothing is allocated on the JS heap here.

use mastra_native_core::tool_call_filter::{
    advance_step_window, decide, step_window::StepInput, Conversation, DecideError, ExcludeMode, FilterOptions,
    IntWriter, INVOCATION_STRIDE, MESSAGE_STRIDE, PART_STRIDE,
};
use mastra_native_core::tool_call_filter::model_output::NODE_STRIDE;
use mastra_native_core::tool_call_filter::prompt::{
    decide_prompt, Preserve, Prompt, PromptOptions, ReplacementRule, PROMPT_MESSAGE_STRIDE, PROMPT_PART_STRIDE,
};
use napi::bindgen_prelude::{Int32Array, Int32ArraySlice, Uint8Array, Uint8ArraySlice};
use napi::{Error, Result, Status};
use napi_derive::napi;

/// `header` fields, in order.
const MODE: usize = 0;
const PRESERVE_MODEL_OUTPUT: usize = 1;
const STEP_ENABLED: usize = 2;
const MESSAGE_COUNT: usize = 3;
const PART_COUNT: usize = 4;
const INVOCATION_COUNT: usize = 5;
const ID_COUNT: usize = 6;
const NAME_COUNT: usize = 7;
const NODE_COUNT: usize = 8;
const STEP_LENGTH: usize = 9;
const EXCLUDE_COUNT: usize = 10;
const EXCLUDE_NAMES: usize = 11;

const MODE_ALL: i32 = 0;
const MODE_NAMES: i32 = 1;

fn invalid(error: DecideError) -> Error {
    Error::new(Status::InvalidArg, error.to_string())
}

fn field(header: &[i32], index: usize) -> Result<usize> {
    header
        .get(index)
        .and_then(|&value| usize::try_from(value).ok())
        .ok_or_else(|| Error::new(Status::InvalidArg, format!("tool-call-filter header field {index} is invalid")))
}

fn prefix<'a, T>(values: &'a [T], length: usize, what: &str) -> Result<&'a [T]> {
    values
        .get(..length)
        .ok_or_else(|| Error::new(Status::InvalidArg, format!("tool-call-filter {what} buffer is too short")))
}

/// Runs the step window (when enabled) and the filter decisions.
///
/// `ints` receives, when the step window is enabled, `[new_count, new_ids..., seen_count,
/// seen_ids...]`, then `[segment_count, segments...]` for each part turned into text. Returns how
/// many ints were written. `actions` receives one byte per message, part and invocation entry.
#[napi(js_name = "nativeToolCallFilterDecide", catch_unwind)]
#[allow(clippy::too_many_arguments)]
pub fn native_tool_call_filter_decide(
    header: &[i32],
    window: f64,
    messages: &[i32],
    parts: &[i32],
    invocations: &[i32],
    id_truthy: &[u8],
    model_output_tape: &[i32],
    step: &[i32],
    mut actions: Uint8ArraySlice,
    mut ints: Int32ArraySlice,
) -> Result<u32> {
    // SAFETY: the JS layer passes dedicated output buffers that alias none of the inputs, and
    // nothing else runs on the JS thread during this synchronous call.
    let (actions, ints) = unsafe { (actions.as_mut(), ints.as_mut()) };
    decide_into(header, window, messages, parts, invocations, id_truthy, model_output_tape, step, actions, ints)
}

/// Decisions as returned arrays, for bindings whose typed-array arguments are copies (the
/// WebAssembly build): [`native_tool_call_filter_decide`] with output buffers of
/// `actionsLength` and `intsLength` made here.
#[napi(js_name = "nativeToolCallFilterDecideCopy", catch_unwind)]
#[allow(clippy::too_many_arguments)]
pub fn native_tool_call_filter_decide_copy(
    header: &[i32],
    window: f64,
    messages: &[i32],
    parts: &[i32],
    invocations: &[i32],
    id_truthy: &[u8],
    model_output_tape: &[i32],
    step: &[i32],
    actions_length: u32,
    ints_length: u32,
) -> Result<NativeDecisions> {
    let (mut actions, mut ints) = output_buffers(actions_length, ints_length)?;
    let written = decide_into(header, window, messages, parts, invocations, id_truthy, model_output_tape, step, &mut actions, &mut ints)?;
    Ok(NativeDecisions { written, actions: Uint8Array::new(actions), ints: Int32Array::new(ints) })
}

/// What the `*Copy` deciders return: the written count and both output buffers.
#[napi(object)]
pub struct NativeDecisions {
    pub written: u32,
    pub actions: Uint8Array,
    pub ints: Int32Array,
}

/// Output buffers for the `*Copy` deciders, bounded (a length is the caller's buffer's).
fn output_buffers(actions_length: u32, ints_length: u32) -> Result<(Vec<u8>, Vec<i32>)> {
    const MAX: u32 = 1 << 27;
    if actions_length > MAX || ints_length > MAX {
        return Err(Error::new(Status::InvalidArg, format!("tool-call-filter output buffers are too large ({actions_length}, {ints_length}; at most {MAX})")));
    }
    Ok((vec![0; actions_length as usize], vec![0; ints_length as usize]))
}

#[allow(clippy::too_many_arguments)]
fn decide_into(
    header: &[i32],
    window: f64,
    messages: &[i32],
    parts: &[i32],
    invocations: &[i32],
    id_truthy: &[u8],
    model_output_tape: &[i32],
    step: &[i32],
    actions: &mut [u8],
    ints: &mut [i32],
) -> Result<u32> {
    let exclude_count = field(header, EXCLUDE_COUNT)?;
    let exclude_names = header
        .get(EXCLUDE_NAMES..EXCLUDE_NAMES + exclude_count)
        .ok_or_else(|| Error::new(Status::InvalidArg, "tool-call-filter header is too short".to_string()))?;
    let mode = match header.get(MODE).copied() {
        Some(MODE_ALL) => ExcludeMode::All,
        Some(MODE_NAMES) => ExcludeMode::Names(exclude_names),
        _ => ExcludeMode::Nothing,
    };
    let conversation = Conversation {
        messages: prefix(messages, field(header, MESSAGE_COUNT)? * MESSAGE_STRIDE, "message")?,
        parts: prefix(parts, field(header, PART_COUNT)? * PART_STRIDE, "part")?,
        invocations: prefix(invocations, field(header, INVOCATION_COUNT)? * INVOCATION_STRIDE, "invocation")?,
        id_truthy: prefix(id_truthy, field(header, ID_COUNT)?, "id")?,
        name_count: field(header, NAME_COUNT)?,
        model_output_tape: prefix(model_output_tape, field(header, NODE_COUNT)? * NODE_STRIDE, "model output")?,
    };

    let mut writer = IntWriter::new(ints);
    let mut preserved = Vec::new();
    if field(header, STEP_ENABLED)? != 0 {
        let step_input = StepInput::parse(prefix(step, field(header, STEP_LENGTH)?, "step")?).map_err(invalid)?;
        let outcome = advance_step_window(&step_input, conversation.id_truthy, window);
        for list in [&outcome.new_ids, &outcome.seen_after] {
            writer.push(list.len() as i32).map_err(invalid)?;
            for &id in list {
                writer.push(id).map_err(invalid)?;
            }
        }
        preserved = outcome.preserved;
    }

    let options = FilterOptions {
        mode,
        preserve_model_output: field(header, PRESERVE_MODEL_OUTPUT)? != 0,
        preserved_ids: &preserved,
    };
    decide(&conversation, &options, actions, &mut writer).map_err(invalid)?;
    Ok(writer.len() as u32)
}

// --- prompt stage (`processLLMRequest`) ---------------------------------------------------------

/// Prompt `header` fields, in order.
const P_MODE: usize = 0;
const P_REPLACEMENT: usize = 1;
const P_PRESERVE: usize = 2;
const P_HISTORY_KNOWN: usize = 3;
const P_MESSAGE_COUNT: usize = 4;
const P_PART_COUNT: usize = 5;
const P_ID_COUNT: usize = 6;
const P_NAME_COUNT: usize = 7;
const P_NODE_COUNT: usize = 8;
const P_STEP_LENGTH: usize = 9;
const P_EXCLUDE_COUNT: usize = 10;
const P_SPLIT_AFTER_KEPT_CALLS: usize = 11;
const P_EXCLUDE_NAMES: usize = 12;

const REPLACEMENT_EVERY_RESULT: i32 = 1;
const REPLACEMENT_MODEL_OUTPUT_ONLY: i32 = 2;
const PRESERVE_RUN: i32 = 0;
const PRESERVE_PROMPT_STEPS: i32 = 1;
const PRESERVE_RUN_STEPS: i32 = 2;

/// Decides one `processLLMRequest` call (see `decide_prompt` in the core for the `ints` layout).
/// `history` holds, per interned id, 1 when the request's recorded history contains it (read only
/// when the header says the history is known). `step` is the step-window state
/// `[seen_count, seen..., group_count, (group_len, ids...)..., 0]` for the run-steps strategy.
/// Returns how many ints were written.
#[napi(js_name = "nativeToolCallFilterDecidePrompt", catch_unwind)]
#[allow(clippy::too_many_arguments)]
pub fn native_tool_call_filter_decide_prompt(
    header: &[i32],
    window: f64,
    messages: &[i32],
    parts: &[i32],
    id_truthy: &[u8],
    history: &[u8],
    model_output_tape: &[i32],
    step: &[i32],
    mut actions: Uint8ArraySlice,
    mut ints: Int32ArraySlice,
) -> Result<u32> {
    // SAFETY: as in `native_tool_call_filter_decide`: dedicated, non-aliased output buffers.
    let (actions, ints) = unsafe { (actions.as_mut(), ints.as_mut()) };
    decide_prompt_into(header, window, messages, parts, id_truthy, history, model_output_tape, step, actions, ints)
}

/// [`native_tool_call_filter_decide_prompt`] returning its buffers (see
/// [`native_tool_call_filter_decide_copy`]).
#[napi(js_name = "nativeToolCallFilterDecidePromptCopy", catch_unwind)]
#[allow(clippy::too_many_arguments)]
pub fn native_tool_call_filter_decide_prompt_copy(
    header: &[i32],
    window: f64,
    messages: &[i32],
    parts: &[i32],
    id_truthy: &[u8],
    history: &[u8],
    model_output_tape: &[i32],
    step: &[i32],
    actions_length: u32,
    ints_length: u32,
) -> Result<NativeDecisions> {
    let (mut actions, mut ints) = output_buffers(actions_length, ints_length)?;
    let written = decide_prompt_into(header, window, messages, parts, id_truthy, history, model_output_tape, step, &mut actions, &mut ints)?;
    Ok(NativeDecisions { written, actions: Uint8Array::new(actions), ints: Int32Array::new(ints) })
}

#[allow(clippy::too_many_arguments)]
fn decide_prompt_into(
    header: &[i32],
    window: f64,
    messages: &[i32],
    parts: &[i32],
    id_truthy: &[u8],
    history: &[u8],
    model_output_tape: &[i32],
    step: &[i32],
    actions: &mut [u8],
    ints: &mut [i32],
) -> Result<u32> {
    let exclude_count = field(header, P_EXCLUDE_COUNT)?;
    let exclude = match header.get(P_MODE).copied() {
        Some(MODE_NAMES) => Some(
            header
                .get(P_EXCLUDE_NAMES..P_EXCLUDE_NAMES + exclude_count)
                .ok_or_else(|| Error::new(Status::InvalidArg, "tool-call-filter header is too short".to_string()))?,
        ),
        _ => None,
    };
    let id_count = field(header, P_ID_COUNT)?;
    let prompt = Prompt {
        messages: prefix(messages, field(header, P_MESSAGE_COUNT)? * PROMPT_MESSAGE_STRIDE, "message")?,
        parts: prefix(parts, field(header, P_PART_COUNT)? * PROMPT_PART_STRIDE, "part")?,
        id_truthy: prefix(id_truthy, id_count, "id")?,
        name_count: field(header, P_NAME_COUNT)?,
        model_output_tape: prefix(model_output_tape, field(header, P_NODE_COUNT)? * NODE_STRIDE, "model output")?,
    };
    let replacement = match header.get(P_REPLACEMENT).copied() {
        Some(REPLACEMENT_EVERY_RESULT) => Some(ReplacementRule::EveryResult),
        Some(REPLACEMENT_MODEL_OUTPUT_ONLY) => Some(ReplacementRule::ModelOutputOnly),
        _ => None,
    };
    let history = if field(header, P_HISTORY_KNOWN)? != 0 { Some(prefix(history, id_count, "history")?) } else { None };
    let step_input;
    let groups: Vec<&[i32]>;
    let preserve = match header.get(P_PRESERVE).copied() {
        Some(PRESERVE_RUN) => Preserve::Run { history },
        Some(PRESERVE_PROMPT_STEPS) => Preserve::PromptSteps { window },
        Some(PRESERVE_RUN_STEPS) => {
            step_input = StepInput::parse(prefix(step, field(header, P_STEP_LENGTH)?, "step")?).map_err(invalid)?;
            groups = step_input.groups.clone();
            Preserve::RunSteps { window, history, seen: step_input.seen, groups: &groups }
        }
        _ => return Err(Error::new(Status::InvalidArg, "tool-call-filter preserve strategy is invalid".to_string())),
    };
    let split_after_kept_calls = field(header, P_SPLIT_AFTER_KEPT_CALLS)? != 0;
    let options = PromptOptions { exclude, replacement, preserve, split_after_kept_calls };
    let mut writer = IntWriter::new(ints);
    decide_prompt(&prompt, &options, actions, &mut writer).map_err(invalid)?;
    Ok(writer.len() as u32)
}
