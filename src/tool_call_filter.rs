//! Native half of ToolCallFilter: one call per `processInput`/`processInputStep`.
//!
//! Everything crosses as typed arrays the JS layer reuses between calls (see the wire layout in
//! `mastra_native_core::tool_call_filter`); we write the decisions into caller-owned buffers, so
//! nothing is allocated on the JS heap here.

use mastra_native_core::tool_call_filter::{
    advance_step_window, decide, step_window::StepInput, Conversation, DecideError, ExcludeMode, FilterOptions,
    IntWriter, INVOCATION_STRIDE, MESSAGE_STRIDE, PART_STRIDE,
};
use mastra_native_core::tool_call_filter::model_output::NODE_STRIDE;
use napi::bindgen_prelude::{Int32ArraySlice, Uint8ArraySlice};
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
#[napi(js_name = "nativeToolCallFilterDecide")]
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
