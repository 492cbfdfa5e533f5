//! The wire layout of ToolCallFilter: every number the JS layer and the core must agree on
//! (record strides, kind and flag codes, header fields, answer codes), defined here once.
//!
//! The binding hands [`JS_CONSTANTS`] to JS once at load (`nativeToolCallFilterLayout()`), so the
//! JS encoder and the fuzz tests hold no numeric copy. Field order *inside* a record is described
//! next to each stride; the JS encoder writes records in that order.

// --- message stage (`processInput`/`processInputStep`) -----------------------------------------

/// Ints per message record: `[shape, flags, part_count, inv_count]`.
pub const MESSAGE_STRIDE: usize = 4;
/// Ints per part record: `[kind, state, tool_call_id, tool_name, model_output_root]`.
pub const PART_STRIDE: usize = 5;
/// Ints per `content.toolInvocations` entry: `[tool_call_id, tool_name]`.
pub const INVOCATION_STRIDE: usize = 2;
/// "No index": an absent id, name or model output.
pub const NONE: i32 = -1;

/// Message shapes (`shape` field).
pub mod shape {
    /// Not an object with a `content.parts` array: the reference returns such messages untouched.
    pub const OPAQUE: i32 = 0;
    /// `content` is an object whose `parts` is an array.
    pub const WITH_PARTS: i32 = 1;
}

/// Message flags (`flags` field).
pub mod message_flag {
    /// `content.content` is a string with non-whitespace text (JS `trim()` semantics).
    pub const HAS_TOP_LEVEL_TEXT: i32 = 1;
}

/// Part kinds.
pub mod part_kind {
    /// Any part whose `type` is not `tool-invocation` (including `null`/non-object entries).
    pub const OTHER: i32 = 0;
    /// `type === 'tool-invocation'`.
    pub const TOOL_INVOCATION: i32 = 1;
    /// A hole in a sparse `parts` array: `flatMap` skips it, so a rebuilt message loses it.
    pub const HOLE: i32 = 2;
}

/// `toolInvocation.state` values the reference distinguishes.
pub mod tool_state {
    pub const OTHER: i32 = 0;
    pub const CALL: i32 = 1;
    pub const RESULT: i32 = 2;
}

/// What happens to a message.
pub mod message_action {
    /// Returned as the same object.
    pub const PASS: u8 = 0;
    /// Returned as a shallow copy with the decided parts and `toolInvocations`.
    pub const REBUILD: u8 = 1;
    /// Left out of the result.
    pub const DROP: u8 = 2;
}

/// What happens to a part of a rebuilt message.
pub mod part_action {
    pub const KEEP: u8 = 0;
    pub const DROP: u8 = 1;
    /// Replaced in place by `{ type: 'text', text: '<toolName> result:\n<segments joined by \n>' }`.
    pub const TEXT: u8 = 2;
}

/// What happens to a `toolInvocations` entry of a rebuilt message.
pub mod invocation_action {
    pub const DROP: u8 = 0;
    pub const KEEP: u8 = 1;
}

/// Which tools are excluded (`mode` header field of both stages).
pub mod exclude_mode {
    /// `exclude` absent/falsy: every tool.
    pub const ALL: i32 = 0;
    /// A non-empty `exclude` array: the names follow the header's fixed fields.
    pub const NAMES: i32 = 1;
    /// An empty (or non-array) `exclude`: nothing.
    pub const NOTHING: i32 = 2;
}

/// Message-stage `header` fields, in order; the excluded name indices follow at `EXCLUDE_NAMES`.
pub mod header {
    pub const MODE: usize = 0;
    pub const PRESERVE_MODEL_OUTPUT: usize = 1;
    pub const STEP_ENABLED: usize = 2;
    pub const MESSAGE_COUNT: usize = 3;
    pub const PART_COUNT: usize = 4;
    pub const INVOCATION_COUNT: usize = 5;
    pub const ID_COUNT: usize = 6;
    pub const NAME_COUNT: usize = 7;
    pub const NODE_COUNT: usize = 8;
    pub const STEP_LENGTH: usize = 9;
    pub const EXCLUDE_COUNT: usize = 10;
    pub const EXCLUDE_NAMES: usize = 11;
}

// --- model output (both stages) ----------------------------------------------------------------

/// Array JSON is computed by JS only if a plan uses it: an array node's `c` may be a lazy ref
/// `<= LAZY_JSON` (`LAZY_JSON - k` for the k-th lazy array), which the core treats as a present
/// segment and passes through in the plan. If JS then finds that `JSON.stringify` fails, it sets
/// `c` to `NONE` and asks again.
pub const LAZY_JSON: i32 = -2;

/// Ints per model-output node: `[kind, a, b, c]`.
pub const NODE_STRIDE: usize = 4;

/// Node kinds (`kind` field).
pub mod node_kind {
    /// `null`, `undefined`, a function, a symbol, or a back-reference of a cycle: no text.
    pub const NOTHING: i32 = 0;
    /// A JS string: `b` = segment, `a` = 1 when it is `''`.
    pub const STRING: i32 = 1;
    /// A number, boolean or bigint: `b` = segment holding `String(v)` (never empty).
    pub const PRIMITIVE: i32 = 2;
    /// An array: `a` = element count (elements follow), `c` = its `JSON.stringify` segment, -1
    /// when that fails, or a lazy ref (see [`LAZY_JSON`](super::LAZY_JSON)).
    pub const ARRAY: i32 = 3;
    /// A non-array object: `a` = flags, `b` = segment of its string `text`, `c` = its
    /// `JSON.stringify` segment or -1; when `HAS_VALUE`, the `value` node follows.
    pub const OBJECT: i32 = 4;
}

/// Object node flags.
pub mod object_flag {
    /// `type === 'text'`.
    pub const TYPE_IS_TEXT: i32 = 1;
    /// `'value' in object` (the value node follows).
    pub const HAS_VALUE: i32 = 2;
    /// `typeof text === 'string'`.
    pub const TEXT_IS_STRING: i32 = 4;
    /// That `text` is `''`.
    pub const TEXT_IS_EMPTY: i32 = 8;
}

// --- prompt stage (`processLLMRequest`) --------------------------------------------------------

/// Ints per prompt message record: `[role, part_count]`.
pub const PROMPT_MESSAGE_STRIDE: usize = 2;
/// Ints per prompt part record: `[kind, tool_call_id, tool_name, flags, output_root]`.
pub const PROMPT_PART_STRIDE: usize = 5;

/// Message roles as the filter sees them.
pub mod prompt_role {
    /// `system` or `user`: always passed through.
    pub const PASS: i32 = 0;
    /// `assistant` with an array `content`.
    pub const ASSISTANT: i32 = 1;
    /// Any other role (`tool`, ...) with an array `content`.
    pub const OTHER: i32 = 2;
    /// A non-system/user message whose `content` is a non-empty string: kept as is.
    pub const OPAQUE: i32 = 3;
    /// A non-system/user message whose `content` is `''`: nothing to send, dropped when filtering.
    pub const OPAQUE_EMPTY: i32 = 4;
}

/// Part kinds.
pub mod prompt_part_kind {
    pub const OTHER: i32 = 0;
    pub const TOOL_CALL: i32 = 1;
    pub const TOOL_RESULT: i32 = 2;
}

/// Part flags.
pub mod prompt_part_flag {
    /// The part has an own, non-nullish `providerOptions.mastra.modelOutput`.
    pub const HAS_MODEL_OUTPUT_MARKER: i32 = 1;
}

/// An `output_root` not encoded yet: when such a result needs its text, `decide_prompt` asks
/// for it instead of deciding.
pub const OUTPUT_NOT_ENCODED: i32 = -3;

/// `changed` value (first answer int) of an answer that leaves the prompt as it is.
pub const UNCHANGED: i32 = 0;
/// `changed` value of an answer with decisions to apply.
pub const CHANGED: i32 = 1;
/// `changed` value of an answer that asks for outputs instead of deciding.
pub const NEEDS_OUTPUTS: i32 = 2;

/// Message actions.
pub mod prompt_message_action {
    pub const PASS: u8 = 0;
    /// A shallow copy with the kept parts (`{ ...message, content }`).
    pub const REBUILD: u8 = 1;
    pub const DROP: u8 = 2;
}

/// Part actions.
pub mod prompt_part_action {
    pub const KEEP: u8 = 0;
    pub const DROP: u8 = 1;
    /// Replaced by `{ type: 'text', text }`; see `decide_prompt` for the plan.
    pub const TEXT: u8 = 2;
    /// As `TEXT`, and this text starts a new assistant message (see
    /// `PromptOptions::split_after_kept_calls`).
    pub const SPLIT_TEXT: u8 = 3;
}

/// `replacement` header field: which removed results leave a `<tool> result:` text.
pub mod replacement {
    /// `preserveModelOutput` off: none.
    pub const NONE: i32 = 0;
    pub const EVERY_RESULT: i32 = 1;
    pub const MODEL_OUTPUT_ONLY: i32 = 2;
}

/// `preserve` header field: how the surviving tool calls are chosen.
pub mod preserve {
    pub const RUN: i32 = 0;
    pub const PROMPT_STEPS: i32 = 1;
    pub const RUN_STEPS: i32 = 2;
}

/// Prompt-stage `header` fields, in order; the excluded name indices follow at `EXCLUDE_NAMES`.
pub mod prompt_header {
    pub const MODE: usize = 0;
    pub const REPLACEMENT: usize = 1;
    pub const PRESERVE: usize = 2;
    pub const HISTORY_KNOWN: usize = 3;
    pub const MESSAGE_COUNT: usize = 4;
    pub const PART_COUNT: usize = 5;
    pub const ID_COUNT: usize = 6;
    pub const NAME_COUNT: usize = 7;
    pub const NODE_COUNT: usize = 8;
    pub const STEP_LENGTH: usize = 9;
    pub const EXCLUDE_COUNT: usize = 10;
    pub const SPLIT_AFTER_KEPT_CALLS: usize = 11;
    pub const EXCLUDE_NAMES: usize = 12;
}

// --- the JS view ---------------------------------------------------------------------------------

/// Every constant above under the name the JS layer uses (flat; prefixed by group).
pub const JS_CONSTANTS: &[(&str, i32)] = &[
    ("MESSAGE_STRIDE", MESSAGE_STRIDE as i32),
    ("PART_STRIDE", PART_STRIDE as i32),
    ("INVOCATION_STRIDE", INVOCATION_STRIDE as i32),
    ("NONE", NONE),
    ("SHAPE_OPAQUE", shape::OPAQUE),
    ("SHAPE_WITH_PARTS", shape::WITH_PARTS),
    ("FLAG_TOP_LEVEL_TEXT", message_flag::HAS_TOP_LEVEL_TEXT),
    ("PART_OTHER", part_kind::OTHER),
    ("PART_TOOL_INVOCATION", part_kind::TOOL_INVOCATION),
    ("PART_HOLE", part_kind::HOLE),
    ("STATE_OTHER", tool_state::OTHER),
    ("STATE_CALL", tool_state::CALL),
    ("STATE_RESULT", tool_state::RESULT),
    ("ACTION_PASS", message_action::PASS as i32),
    ("ACTION_REBUILD", message_action::REBUILD as i32),
    ("ACTION_DROP", message_action::DROP as i32),
    ("PART_KEEP", part_action::KEEP as i32),
    ("PART_DROP", part_action::DROP as i32),
    ("PART_TEXT", part_action::TEXT as i32),
    ("INVOCATION_DROP", invocation_action::DROP as i32),
    ("INVOCATION_KEEP", invocation_action::KEEP as i32),
    ("MODE_ALL", exclude_mode::ALL),
    ("MODE_NAMES", exclude_mode::NAMES),
    ("MODE_NOTHING", exclude_mode::NOTHING),
    ("HEADER_MODE", header::MODE as i32),
    ("HEADER_PRESERVE_MODEL_OUTPUT", header::PRESERVE_MODEL_OUTPUT as i32),
    ("HEADER_STEP_ENABLED", header::STEP_ENABLED as i32),
    ("HEADER_MESSAGE_COUNT", header::MESSAGE_COUNT as i32),
    ("HEADER_PART_COUNT", header::PART_COUNT as i32),
    ("HEADER_INVOCATION_COUNT", header::INVOCATION_COUNT as i32),
    ("HEADER_ID_COUNT", header::ID_COUNT as i32),
    ("HEADER_NAME_COUNT", header::NAME_COUNT as i32),
    ("HEADER_NODE_COUNT", header::NODE_COUNT as i32),
    ("HEADER_STEP_LENGTH", header::STEP_LENGTH as i32),
    ("HEADER_EXCLUDE_COUNT", header::EXCLUDE_COUNT as i32),
    ("HEADER_EXCLUDE_NAMES", header::EXCLUDE_NAMES as i32),
    ("LAZY_JSON", LAZY_JSON),
    ("NODE_STRIDE", NODE_STRIDE as i32),
    ("NODE_NOTHING", node_kind::NOTHING),
    ("NODE_STRING", node_kind::STRING),
    ("NODE_PRIMITIVE", node_kind::PRIMITIVE),
    ("NODE_ARRAY", node_kind::ARRAY),
    ("NODE_OBJECT", node_kind::OBJECT),
    ("OBJECT_TYPE_IS_TEXT", object_flag::TYPE_IS_TEXT),
    ("OBJECT_HAS_VALUE", object_flag::HAS_VALUE),
    ("OBJECT_TEXT_IS_STRING", object_flag::TEXT_IS_STRING),
    ("OBJECT_TEXT_IS_EMPTY", object_flag::TEXT_IS_EMPTY),
    ("PROMPT_MESSAGE_STRIDE", PROMPT_MESSAGE_STRIDE as i32),
    ("PROMPT_PART_STRIDE", PROMPT_PART_STRIDE as i32),
    ("ROLE_PASS", prompt_role::PASS),
    ("ROLE_ASSISTANT", prompt_role::ASSISTANT),
    ("ROLE_OTHER", prompt_role::OTHER),
    ("ROLE_OPAQUE", prompt_role::OPAQUE),
    ("ROLE_OPAQUE_EMPTY", prompt_role::OPAQUE_EMPTY),
    ("PROMPT_PART_OTHER", prompt_part_kind::OTHER),
    ("PROMPT_PART_TOOL_CALL", prompt_part_kind::TOOL_CALL),
    ("PROMPT_PART_TOOL_RESULT", prompt_part_kind::TOOL_RESULT),
    ("FLAG_MODEL_OUTPUT_MARKER", prompt_part_flag::HAS_MODEL_OUTPUT_MARKER),
    ("OUTPUT_NOT_ENCODED", OUTPUT_NOT_ENCODED),
    ("PROMPT_UNCHANGED", UNCHANGED),
    ("PROMPT_CHANGED", CHANGED),
    ("NEEDS_OUTPUTS", NEEDS_OUTPUTS),
    ("PROMPT_PASS", prompt_message_action::PASS as i32),
    ("PROMPT_REBUILD", prompt_message_action::REBUILD as i32),
    ("PROMPT_DROP", prompt_message_action::DROP as i32),
    ("PROMPT_KEEP", prompt_part_action::KEEP as i32),
    ("PROMPT_PART_DROP", prompt_part_action::DROP as i32),
    ("PROMPT_TEXT", prompt_part_action::TEXT as i32),
    ("PROMPT_SPLIT_TEXT", prompt_part_action::SPLIT_TEXT as i32),
    ("REPLACEMENT_NONE", replacement::NONE),
    ("REPLACEMENT_EVERY_RESULT", replacement::EVERY_RESULT),
    ("REPLACEMENT_MODEL_OUTPUT_ONLY", replacement::MODEL_OUTPUT_ONLY),
    ("PRESERVE_RUN", preserve::RUN),
    ("PRESERVE_PROMPT_STEPS", preserve::PROMPT_STEPS),
    ("PRESERVE_RUN_STEPS", preserve::RUN_STEPS),
    ("PROMPT_HEADER_MODE", prompt_header::MODE as i32),
    ("PROMPT_HEADER_REPLACEMENT", prompt_header::REPLACEMENT as i32),
    ("PROMPT_HEADER_PRESERVE", prompt_header::PRESERVE as i32),
    ("PROMPT_HEADER_HISTORY_KNOWN", prompt_header::HISTORY_KNOWN as i32),
    ("PROMPT_HEADER_MESSAGE_COUNT", prompt_header::MESSAGE_COUNT as i32),
    ("PROMPT_HEADER_PART_COUNT", prompt_header::PART_COUNT as i32),
    ("PROMPT_HEADER_ID_COUNT", prompt_header::ID_COUNT as i32),
    ("PROMPT_HEADER_NAME_COUNT", prompt_header::NAME_COUNT as i32),
    ("PROMPT_HEADER_NODE_COUNT", prompt_header::NODE_COUNT as i32),
    ("PROMPT_HEADER_STEP_LENGTH", prompt_header::STEP_LENGTH as i32),
    ("PROMPT_HEADER_EXCLUDE_COUNT", prompt_header::EXCLUDE_COUNT as i32),
    ("PROMPT_HEADER_SPLIT_AFTER_KEPT_CALLS", prompt_header::SPLIT_AFTER_KEPT_CALLS as i32),
    ("PROMPT_HEADER_EXCLUDE_NAMES", prompt_header::EXCLUDE_NAMES as i32),
];

#[cfg(test)]
mod tests {
    use super::JS_CONSTANTS;
    use std::collections::HashSet;

    #[test]
    fn js_names_are_unique_upper_snake_case() {
        let mut names = HashSet::new();
        for &(name, _) in JS_CONSTANTS {
            assert!(names.insert(name), "{name} is listed twice");
            assert!(name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'), "{name}");
        }
    }
}
