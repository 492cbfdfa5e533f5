//! Decisions for ToolCallFilter: which tool-invocation parts go, which stay, which become text,
//! and which messages are passed through, rebuilt or dropped.
//!
//! The JS layer never hands us messages. It reads them once and describes them with flat `i32`
//! records (the wire layout, [`layout`]); tool-call ids and tool names arrive as indices into tables
//! the JS layer interns with `Map` (SameValueZero, the same equality the reference's `Set` and
//! `Array.prototype.includes` use). We answer with one action byte per message, part and
//! `toolInvocations` entry, plus the segment plans of the `<tool> result:` texts.
//!
//! Nothing here panics on malformed input: every read is bounds-checked and reported as
//! [`DecideError`].

pub mod layout;
pub mod model_output;
pub mod prompt;
pub mod step_window;

pub use step_window::{advance_step_window, StepOutcome};

// The wire constants live in `layout` (shared with JS through the binding); re-exported here
// under the paths the decisions and tests use.
pub use layout::{
    message_action, message_flag, part_action, part_kind, shape, tool_state, INVOCATION_STRIDE, MESSAGE_STRIDE,
    NONE, PART_STRIDE,
};
use layout::invocation_action;

/// Which tools the filter removes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ExcludeMode<'a> {
    /// `exclude` absent/falsy: every tool-invocation part goes.
    All,
    /// A non-empty `exclude` array, as tool-name indices.
    Names(&'a [i32]),
    /// An empty list (or a non-array `exclude`): the input is returned as is.
    Nothing,
}

/// A conversation in wire form (see the strides in [`layout`]).
#[derive(Debug, Clone, Copy)]
pub struct Conversation<'a> {
    pub messages: &'a [i32],
    pub parts: &'a [i32],
    pub invocations: &'a [i32],
    /// Number of interned tool-call ids; `id_truthy[i]` tells whether id `i` is a truthy JS value.
    pub id_truthy: &'a [u8],
    /// Number of interned tool names.
    pub name_count: usize,
    /// Model-output nodes, see [`model_output`].
    pub model_output_tape: &'a [i32],
}

/// Options for one filtering pass.
#[derive(Debug, Clone, Copy)]
pub struct FilterOptions<'a> {
    pub mode: ExcludeMode<'a>,
    pub preserve_model_output: bool,
    /// Tool-call ids (by index) kept by the step window; empty in `processInput`.
    pub preserved_ids: &'a [bool],
}

/// Malformed wire data or an output buffer that is too small.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecideError {
    Malformed(&'static str),
    OutputTooSmall(&'static str),
}

impl std::fmt::Display for DecideError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecideError::Malformed(what) => write!(f, "malformed tool-call-filter input: {what}"),
            DecideError::OutputTooSmall(what) => write!(f, "tool-call-filter output buffer too small: {what}"),
        }
    }
}

impl std::error::Error for DecideError {}

/// A bounds-checked cursor over an output `i32` buffer.
pub struct IntWriter<'o> {
    buffer: &'o mut [i32],
    len: usize,
}

impl<'o> IntWriter<'o> {
    pub fn new(buffer: &'o mut [i32]) -> Self {
        IntWriter { buffer, len: 0 }
    }

    pub fn push(&mut self, value: i32) -> Result<(), DecideError> {
        let slot = self.buffer.get_mut(self.len).ok_or(DecideError::OutputTooSmall("ints"))?;
        *slot = value;
        self.len += 1;
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Overwrites an int already written.
    pub fn set(&mut self, at: usize, value: i32) -> Result<(), DecideError> {
        if at >= self.len {
            return Err(DecideError::OutputTooSmall("ints"));
        }
        self.buffer[at] = value;
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn written(&self) -> &[i32] {
        &self.buffer[..self.len]
    }
}

/// A set of interned indices; out-of-range and `NONE` are simply "not in the set".
fn contains(set: &[bool], index: i32) -> bool {
    usize::try_from(index).ok().and_then(|i| set.get(i)).copied().unwrap_or(false)
}

/// Flags for name indices `0..=max(valid names)`, all unset: room for every valid name in
/// `names` (those in `0..name_count`) and nothing more.
pub(crate) fn name_flags(names: &[i32], name_count: usize) -> Vec<bool> {
    let len = names.iter().filter_map(|&n| usize::try_from(n).ok().filter(|&i| i < name_count)).max().map_or(0, |m| m + 1);
    vec![false; len]
}

fn insert(set: &mut [bool], index: i32) {
    if let Some(slot) = usize::try_from(index).ok().and_then(|i| set.get_mut(i)) {
        *slot = true;
    }
}

struct Part {
    kind: i32,
    state: i32,
    id: i32,
    name: i32,
    model_output_root: i32,
}

fn read_part(parts: &[i32], index: usize) -> Result<Part, DecideError> {
    let start = index * PART_STRIDE;
    let record = parts
        .get(start..start + PART_STRIDE)
        .ok_or(DecideError::Malformed("part record out of range"))?;
    Ok(Part { kind: record[0], state: record[1], id: record[2], name: record[3], model_output_root: record[4] })
}

fn count(value: i32, what: &'static str) -> Result<usize, DecideError> {
    usize::try_from(value).map_err(|_| DecideError::Malformed(what))
}

/// Decides the fate of every message, part and `toolInvocations` entry of `conversation`.
///
/// Mirrors `filterAllToolCalls` / `filterSpecificToolCalls` of `@mastra/core@1.59.0`; with
/// [`ExcludeMode::Nothing`] every message passes (the JS layer returns the input array itself).
///
/// `actions` receives one byte per message, then per part, then per `toolInvocations` entry;
/// `plans` receives `[segment_count, segment...]` for every `TEXT` part, in part order.
pub fn decide(
    conversation: &Conversation,
    options: &FilterOptions,
    actions: &mut [u8],
    plans: &mut IntWriter,
) -> Result<(), DecideError> {
    let message_count = conversation.messages.len() / MESSAGE_STRIDE;
    let part_count = conversation.parts.len() / PART_STRIDE;
    let invocation_count = conversation.invocations.len() / INVOCATION_STRIDE;
    if actions.len() < message_count + part_count + invocation_count {
        return Err(DecideError::OutputTooSmall("actions"));
    }
    let (message_actions, rest) = actions.split_at_mut(message_count);
    let (part_actions, rest) = rest.split_at_mut(part_count);
    let invocation_keep = &mut rest[..invocation_count];

    let id_count = conversation.id_truthy.len();
    let id_is_truthy = |id: i32| {
        usize::try_from(id).ok().and_then(|i| conversation.id_truthy.get(i)).is_some_and(|&t| t != 0)
    };

    // Sized by the excluded names themselves, not `name_count` (a caller's count must not
    // size an allocation; names past the last excluded one read as not excluded).
    let mut excluded_names = match options.mode {
        ExcludeMode::Names(names) => name_flags(names, conversation.name_count),
        _ => Vec::new(),
    };
    let mut excluded_ids = vec![false; id_count];
    if let ExcludeMode::Names(names) = options.mode {
        for &name in names {
            insert(&mut excluded_names, name);
        }
        // Pass 1: ids of every tool part (any state) whose name is excluded.
        let mut part_cursor = 0usize;
        for message in conversation.messages.chunks_exact(MESSAGE_STRIDE) {
            let parts_here = count(message[2], "part count")?;
            if message[0] == shape::WITH_PARTS {
                for index in part_cursor..part_cursor + parts_here {
                    let part = read_part(conversation.parts, index)?;
                    if part.kind == part_kind::TOOL_INVOCATION
                        && contains(&excluded_names, part.name)
                        && id_is_truthy(part.id)
                    {
                        insert(&mut excluded_ids, part.id);
                    }
                }
            }
            part_cursor += parts_here;
        }
    }

    let mut part_cursor = 0usize;
    let mut invocation_cursor = 0usize;
    for (message_index, message) in conversation.messages.chunks_exact(MESSAGE_STRIDE).enumerate() {
        let parts_here = count(message[2], "part count")?;
        // A negative count means "toolInvocations is not an array".
        let invocations_here = usize::try_from(message[3]).unwrap_or(0);
        let part_range = part_cursor..part_cursor + parts_here;
        let invocation_range = invocation_cursor..invocation_cursor + invocations_here;
        part_cursor += parts_here;
        invocation_cursor += invocations_here;
        if part_range.end > part_count || invocation_range.end > invocation_count {
            return Err(DecideError::Malformed("message record points past the parts"));
        }

        let mut has_tool_part = false;
        if message[0] == shape::WITH_PARTS {
            for index in part_range.clone() {
                if read_part(conversation.parts, index)?.kind == part_kind::TOOL_INVOCATION {
                    has_tool_part = true;
                    break;
                }
            }
        }
        if !has_tool_part || options.mode == ExcludeMode::Nothing {
            message_actions[message_index] = message_action::PASS;
            continue;
        }

        let mut remaining_parts = 0usize;
        for index in part_range {
            let part = read_part(conversation.parts, index)?;
            let action = match part.kind {
                part_kind::HOLE => part_action::DROP,
                part_kind::TOOL_INVOCATION => {
                    let preserved = id_is_truthy(part.id) && contains(options.preserved_ids, part.id);
                    let excluded = !preserved
                        && match options.mode {
                            ExcludeMode::All => true,
                            ExcludeMode::Names(_) => {
                                let name_excluded = contains(&excluded_names, part.name);
                                (part.state == tool_state::CALL && name_excluded)
                                    || (part.state == tool_state::RESULT
                                        && (name_excluded || contains(&excluded_ids, part.id)))
                            }
                            ExcludeMode::Nothing => false,
                        };
                    if excluded {
                        replacement_for_removed_part(conversation, options, &part, plans)?
                    } else {
                        part_action::KEEP
                    }
                }
                _ => part_action::KEEP,
            };
            if action != part_action::DROP {
                remaining_parts += 1;
            }
            part_actions[index] = action;
        }

        let has_top_level_text = message[1] & message_flag::HAS_TOP_LEVEL_TEXT != 0;
        message_actions[message_index] = if remaining_parts == 0 && !has_top_level_text {
            message_action::DROP
        } else {
            message_action::REBUILD
        };

        for index in invocation_range {
            let start = index * INVOCATION_STRIDE;
            let (id, name) = (conversation.invocations[start], conversation.invocations[start + 1]);
            // Unlike parts, entries are matched against the window without a truthiness check.
            let keep = contains(options.preserved_ids, id)
                || match options.mode {
                    ExcludeMode::Names(_) => !contains(&excluded_names, name) && !contains(&excluded_ids, id),
                    _ => false,
                };
            invocation_keep[index] = if keep { invocation_action::KEEP } else { invocation_action::DROP };
        }
    }
    Ok(())
}

/// A removed part becomes text only when the option is on, it is a completed result, it carries a
/// model output, and that output renders to a non-empty text.
fn replacement_for_removed_part(
    conversation: &Conversation,
    options: &FilterOptions,
    part: &Part,
    plans: &mut IntWriter,
) -> Result<u8, DecideError> {
    if !options.preserve_model_output || part.state != tool_state::RESULT || part.model_output_root == NONE {
        return Ok(part_action::DROP);
    }
    let root = count(part.model_output_root, "model output root")?;
    match model_output::render_plan(conversation.model_output_tape, root)? {
        Some(segments) if !segments.is_empty() => {
            plans.push(i32::try_from(segments.len()).map_err(|_| DecideError::Malformed("plan size"))?)?;
            for segment in segments {
                plans.push(segment)?;
            }
            Ok(part_action::TEXT)
        }
        _ => Ok(part_action::DROP),
    }
}

#[cfg(test)]
mod tests;
