//! Native half of ToolCallFilter: one call per `processInput`/`processInputStep`, or per
//! `processLLMRequest` at the prompt stage.
//!
//! Everything crosses as typed arrays the JS layer reuses between calls (see the wire layout in
//! `mastra_native_core::tool_call_filter::layout`, which `nativeToolCallFilterLayout` hands to
//! JS); we write the decisions into caller-owned buffers, so nothing is allocated on the JS heap
//! here (except with `copyOut`, for the WebAssembly build).

use std::collections::BTreeMap;

use mastra_native_core::tool_call_filter::layout::{self, exclude_mode, header, preserve, prompt_header, replacement};
use mastra_native_core::tool_call_filter::model_output::NODE_STRIDE;
use mastra_native_core::tool_call_filter::prompt::{
    decide_prompt, Preserve, Prompt, PromptOptions, ReplacementRule, PROMPT_MESSAGE_STRIDE, PROMPT_PART_STRIDE,
};
use mastra_native_core::tool_call_filter::{
    advance_step_window, decide, step_window::StepInput, Conversation, DecideError, ExcludeMode, FilterOptions,
    IntWriter, INVOCATION_STRIDE, MESSAGE_STRIDE, PART_STRIDE,
};
use napi::bindgen_prelude::{Either, Int32Array, Int32ArraySlice, Uint8Array, Uint8ArraySlice};
use napi::{Error, Result, Status};
use napi_derive::napi;

/// The wire layout's numbers by their JS names (see `layout::JS_CONSTANTS`): read once when
/// js/tool-call-filter loads, so the JS encoder holds no copy of them.
#[napi(js_name = "nativeToolCallFilterLayout")]
pub fn native_tool_call_filter_layout() -> BTreeMap<&'static str, i32> {
    layout::JS_CONSTANTS.iter().copied().collect()
}

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

fn excluded_names(header: &[i32], count_field: usize, names_at: usize) -> Result<&[i32]> {
    let count = field(header, count_field)?;
    header
        .get(names_at..names_at + count)
        .ok_or_else(|| Error::new(Status::InvalidArg, "tool-call-filter header is too short".to_string()))
}

/// What a decider returns with `copyOut`: the written count and both output buffers.
#[napi(object)]
pub struct NativeDecisions {
    pub written: u32,
    pub actions: Uint8Array,
    pub ints: Int32Array,
}

/// Runs `decide_into` on the caller's output buffers, or, with `copy_out`, on buffers of the same
/// lengths made here and returned: where typed arrays cross as copies (the WebAssembly build),
/// writes into the caller's buffers would never reach JS.
fn decide_with(
    mut actions: Uint8ArraySlice,
    mut ints: Int32ArraySlice,
    copy_out: Option<bool>,
    decide_into: impl FnOnce(&mut [u8], &mut [i32]) -> Result<u32>,
) -> Result<Either<u32, NativeDecisions>> {
    if copy_out == Some(true) {
        let (mut actions, mut ints) = output_buffers(actions.len(), ints.len())?;
        let written = decide_into(&mut actions, &mut ints)?;
        return Ok(Either::B(NativeDecisions { written, actions: Uint8Array::new(actions), ints: Int32Array::new(ints) }));
    }
    // SAFETY: the JS layer passes dedicated output buffers that alias none of the inputs, and
    // nothing else runs on the JS thread during this synchronous call.
    let (actions, ints) = unsafe { (actions.as_mut(), ints.as_mut()) };
    decide_into(actions, ints).map(Either::A)
}

/// Output buffers for `copy_out`, bounded (a length is the caller's buffer's).
fn output_buffers(actions_length: usize, ints_length: usize) -> Result<(Vec<u8>, Vec<i32>)> {
    const MAX: usize = 1 << 27;
    if actions_length > MAX || ints_length > MAX {
        return Err(Error::new(Status::InvalidArg, format!("tool-call-filter output buffers are too large ({actions_length}, {ints_length}; at most {MAX})")));
    }
    Ok((vec![0; actions_length], vec![0; ints_length]))
}

// --- message stage (`processInput`/`processInputStep`) ------------------------------------------

/// Runs the step window (when enabled) and the filter decisions.
///
/// `ints` receives, when the step window is enabled, `[new_count, new_ids..., seen_count,
/// seen_ids...]`, then `[segment_count, segments...]` for each part turned into text. Returns how
/// many ints were written. `actions` receives one byte per message, part and invocation entry.
/// With `copyOut`, see [`NativeDecisions`].
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
    actions: Uint8ArraySlice,
    ints: Int32ArraySlice,
    copy_out: Option<bool>,
) -> Result<Either<u32, NativeDecisions>> {
    decide_with(actions, ints, copy_out, |actions, ints| {
        decide_into(header, window, messages, parts, invocations, id_truthy, model_output_tape, step, actions, ints)
    })
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
    let exclude_names = excluded_names(header, header::EXCLUDE_COUNT, header::EXCLUDE_NAMES)?;
    let mode = match header.get(header::MODE).copied() {
        Some(exclude_mode::ALL) => ExcludeMode::All,
        Some(exclude_mode::NAMES) => ExcludeMode::Names(exclude_names),
        _ => ExcludeMode::Nothing,
    };
    let conversation = Conversation {
        messages: prefix(messages, field(header, header::MESSAGE_COUNT)? * MESSAGE_STRIDE, "message")?,
        parts: prefix(parts, field(header, header::PART_COUNT)? * PART_STRIDE, "part")?,
        invocations: prefix(invocations, field(header, header::INVOCATION_COUNT)? * INVOCATION_STRIDE, "invocation")?,
        id_truthy: prefix(id_truthy, field(header, header::ID_COUNT)?, "id")?,
        name_count: field(header, header::NAME_COUNT)?,
        model_output_tape: prefix(model_output_tape, field(header, header::NODE_COUNT)? * NODE_STRIDE, "model output")?,
    };

    let mut writer = IntWriter::new(ints);
    let mut preserved = Vec::new();
    if field(header, header::STEP_ENABLED)? != 0 {
        let step_input = StepInput::parse(prefix(step, field(header, header::STEP_LENGTH)?, "step")?).map_err(invalid)?;
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
        preserve_model_output: field(header, header::PRESERVE_MODEL_OUTPUT)? != 0,
        preserved_ids: &preserved,
    };
    decide(&conversation, &options, actions, &mut writer).map_err(invalid)?;
    Ok(writer.len() as u32)
}

// --- prompt stage (`processLLMRequest`) ---------------------------------------------------------

/// Decides one `processLLMRequest` call (see `decide_prompt` in the core for the `ints` layout).
/// `history` holds, per interned id, 1 when the request's recorded history contains it (read only
/// when the header says the history is known). `step` is the step-window state
/// `[seen_count, seen..., group_count, (group_len, ids...)..., 0]` for the run-steps strategy.
/// Returns how many ints were written; with `copyOut`, see [`NativeDecisions`].
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
    actions: Uint8ArraySlice,
    ints: Int32ArraySlice,
    copy_out: Option<bool>,
) -> Result<Either<u32, NativeDecisions>> {
    decide_with(actions, ints, copy_out, |actions, ints| {
        decide_prompt_into(header, window, messages, parts, id_truthy, history, model_output_tape, step, actions, ints)
    })
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
    let exclude_names = excluded_names(header, prompt_header::EXCLUDE_COUNT, prompt_header::EXCLUDE_NAMES)?;
    let exclude = match header.get(prompt_header::MODE).copied() {
        Some(exclude_mode::NAMES) => Some(exclude_names),
        _ => None,
    };
    let id_count = field(header, prompt_header::ID_COUNT)?;
    let prompt = Prompt {
        messages: prefix(messages, field(header, prompt_header::MESSAGE_COUNT)? * PROMPT_MESSAGE_STRIDE, "message")?,
        parts: prefix(parts, field(header, prompt_header::PART_COUNT)? * PROMPT_PART_STRIDE, "part")?,
        id_truthy: prefix(id_truthy, id_count, "id")?,
        name_count: field(header, prompt_header::NAME_COUNT)?,
        model_output_tape: prefix(model_output_tape, field(header, prompt_header::NODE_COUNT)? * NODE_STRIDE, "model output")?,
    };
    let replacement = match header.get(prompt_header::REPLACEMENT).copied() {
        Some(replacement::EVERY_RESULT) => Some(ReplacementRule::EveryResult),
        Some(replacement::MODEL_OUTPUT_ONLY) => Some(ReplacementRule::ModelOutputOnly),
        _ => None,
    };
    let history = if field(header, prompt_header::HISTORY_KNOWN)? != 0 { Some(prefix(history, id_count, "history")?) } else { None };
    let step_input;
    let groups: Vec<&[i32]>;
    let preserve = match header.get(prompt_header::PRESERVE).copied() {
        Some(preserve::RUN) => Preserve::Run { history },
        Some(preserve::PROMPT_STEPS) => Preserve::PromptSteps { window },
        Some(preserve::RUN_STEPS) => {
            step_input = StepInput::parse(prefix(step, field(header, prompt_header::STEP_LENGTH)?, "step")?).map_err(invalid)?;
            groups = step_input.groups.clone();
            Preserve::RunSteps { window, history, seen: step_input.seen, groups: &groups }
        }
        _ => return Err(Error::new(Status::InvalidArg, "tool-call-filter preserve strategy is invalid".to_string())),
    };
    let split_after_kept_calls = field(header, prompt_header::SPLIT_AFTER_KEPT_CALLS)? != 0;
    let options = PromptOptions { exclude, replacement, preserve, split_after_kept_calls };
    let mut writer = IntWriter::new(ints);
    decide_prompt(&prompt, &options, actions, &mut writer).map_err(invalid)?;
    Ok(writer.len() as u32)
}
