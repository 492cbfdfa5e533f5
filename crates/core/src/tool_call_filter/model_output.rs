//! The reference's `modelOutputToText`, over a flat description of the model output.
//!
//! The JS layer walks `providerMetadata.mastra.modelOutput` once and writes one 4-int node per
//! value in pre-order (`[kind, a, b, c]`). Strings never cross: a node names a JS-side segment
//! (the string itself, `String(v)` of a primitive, or `JSON.stringify(v)` of an array/object,
//! computed by JS because only JS knows `toJSON`, key order and number formatting). We decide
//! which segments make up the text; JS joins them with `\n`.
//!
//! Evaluation is iterative (reverse pre-order with a result stack), so arbitrarily deep values
//! cannot overflow the native stack.

use super::{DecideError, NONE};

pub use super::layout::{node_kind, object_flag, LAZY_JSON, NODE_STRIDE};

/// Text of one value: the segments to join with `\n`, and whether that join is non-empty.
/// Only a single `''` segment can make it empty: arrays keep non-empty children only.
#[derive(Debug, Clone, PartialEq)]
enum Rendered {
    Nothing,
    Text { segments: Vec<i32>, non_empty: bool },
}

impl Rendered {
    fn segment(index: i32, non_empty: bool) -> Self {
        Rendered::Text { segments: vec![index], non_empty }
    }

    /// A stringified value: `JSON.stringify` returns either a non-empty string or nothing.
    /// `NONE` means nothing; any other index (including the negative "not computed yet" refs of
    /// [`LAZY_JSON`]) is a segment.
    fn json(index: i32) -> Self {
        if index == NONE {
            Rendered::Nothing
        } else {
            Rendered::segment(index, true)
        }
    }
}

fn node(tape: &[i32], index: usize) -> Result<[i32; NODE_STRIDE], DecideError> {
    let start = index.checked_mul(NODE_STRIDE).ok_or(DecideError::Malformed("model output node"))?;
    let end = start.checked_add(NODE_STRIDE).ok_or(DecideError::Malformed("model output node"))?;
    let record = tape
        .get(start..end)
        .ok_or(DecideError::Malformed("model output node out of range"))?;
    Ok([record[0], record[1], record[2], record[3]])
}

fn child_count(record: &[i32; NODE_STRIDE]) -> Result<usize, DecideError> {
    match record[0] {
        node_kind::ARRAY => usize::try_from(record[1]).map_err(|_| DecideError::Malformed("array length")),
        node_kind::OBJECT => Ok(usize::from(record[1] & object_flag::HAS_VALUE != 0)),
        _ => Ok(0),
    }
}

/// The segments of the model output rooted at node `root`, or `None` when the reference would
/// produce no text (null result or `''`).
pub fn render_plan(tape: &[i32], root: usize) -> Result<Option<Vec<i32>>, DecideError> {
    // Find the end of the subtree.
    let mut pending = 1usize;
    let mut end = root;
    while pending > 0 {
        let record = node(tape, end)?;
        pending = pending - 1 + child_count(&record)?;
        end += 1;
    }

    // Children sit after their parent, so walking backwards finds every child's result on the
    // stack, first child on top.
    let mut results: Vec<Rendered> = Vec::new();
    for index in (root..end).rev() {
        let record = node(tape, index)?;
        let rendered = match record[0] {
            node_kind::STRING => Rendered::segment(record[2], record[1] == 0),
            node_kind::PRIMITIVE => Rendered::segment(record[2], true),
            node_kind::ARRAY => {
                let length = child_count(&record)?;
                let mut joined = Vec::new();
                for _ in 0..length {
                    if let Rendered::Text { segments, non_empty: true } =
                        results.pop().ok_or(DecideError::Malformed("array elements"))?
                    {
                        joined.extend(segments);
                    }
                }
                if joined.is_empty() {
                    Rendered::json(record[3])
                } else {
                    Rendered::Text { segments: joined, non_empty: true }
                }
            }
            node_kind::OBJECT => {
                let flags = record[1];
                let has_value = flags & object_flag::HAS_VALUE != 0;
                let value = if has_value {
                    let value_is_string = node(tape, index + 1)?[0] == node_kind::STRING;
                    let rendered = results.pop().ok_or(DecideError::Malformed("object value"))?;
                    Some((value_is_string, rendered))
                } else {
                    None
                };
                let text = (flags & object_flag::TEXT_IS_STRING != 0)
                    .then(|| Rendered::segment(record[2], flags & object_flag::TEXT_IS_EMPTY == 0));
                let type_is_text = flags & object_flag::TYPE_IS_TEXT != 0;
                match (value, text) {
                    (Some((true, value)), _) if type_is_text => value,
                    (_, Some(text)) if type_is_text => text,
                    (Some((_, value)), _) => value,
                    (None, Some(text)) => text,
                    (None, None) => Rendered::json(record[3]),
                }
            }
            _ => Rendered::Nothing,
        };
        results.push(rendered);
    }

    match results.pop() {
        Some(Rendered::Text { segments, non_empty: true }) => Ok(Some(segments)),
        Some(_) => Ok(None),
        None => Err(DecideError::Malformed("empty model output")),
    }
}
