//! `filterAfterToolSteps`: the per-request step bookkeeping kept in `args.state`.
//!
//! Each `processInputStep` call appends one group: the response tool-call ids not seen before
//! (possibly none). The ids of the last `filterAfterToolSteps` groups are preserved by the filter.
//! Ids are interned indices; the JS layer writes the state arrays back from our answer.

use super::DecideError;

/// Wire layout of the step input, one `i32` slice:
/// `[seen_count, seen..., group_count, (group_len, ids...)..., response_count, response_ids...]`.
#[derive(Debug, Clone, PartialEq)]
pub struct StepInput<'a> {
    /// `state.toolCallFilterSeenToolCallIds`, as iterated by `new Set(...)`.
    pub seen: &'a [i32],
    /// `state.toolCallFilterStepToolCallIds`, each group already flattened one level.
    pub groups: Vec<&'a [i32]>,
    /// Tool-call ids of the response messages' tool-invocation parts, in part order.
    pub response_ids: &'a [i32],
}

/// The state to write back and the ids the window preserves.
#[derive(Debug, Clone, PartialEq)]
pub struct StepOutcome {
    /// The new group: response ids (truthy, de-duplicated) not seen before.
    pub new_ids: Vec<i32>,
    /// `unique(seen + new_ids)`, in first-seen order.
    pub seen_after: Vec<i32>,
    /// Membership by id index: the ids of the last `window` groups (the new group included).
    pub preserved: Vec<bool>,
}

fn take<'a>(wire: &'a [i32], cursor: &mut usize, what: &'static str) -> Result<&'a [i32], DecideError> {
    let length = wire.get(*cursor).copied().ok_or(DecideError::Malformed(what))?;
    let length = usize::try_from(length).map_err(|_| DecideError::Malformed(what))?;
    let start = *cursor + 1;
    let slice = wire.get(start..start + length).ok_or(DecideError::Malformed(what))?;
    *cursor = start + length;
    Ok(slice)
}

impl<'a> StepInput<'a> {
    pub fn parse(wire: &'a [i32]) -> Result<Self, DecideError> {
        let mut cursor = 0usize;
        let seen = take(wire, &mut cursor, "seen ids")?;
        let group_count = wire.get(cursor).copied().ok_or(DecideError::Malformed("group count"))?;
        cursor += 1;
        let group_count = usize::try_from(group_count).map_err(|_| DecideError::Malformed("group count"))?;
        let mut groups = Vec::with_capacity(group_count.min(wire.len()));
        for _ in 0..group_count {
            groups.push(take(wire, &mut cursor, "group")?);
        }
        let response_ids = take(wire, &mut cursor, "response ids")?;
        Ok(StepInput { seen, groups, response_ids })
    }
}

/// Index where `array.slice(-keep)` starts, with `keep = Math.max(0, window)` (NaN stays NaN)
/// and `keep === 0` meaning "no groups". Follows JS `ToIntegerOrInfinity`: NaN and
/// `-0.5` start at 0 (all groups), `-1.5` keeps the last one.
pub fn window_start(window: f64, group_count: usize) -> usize {
    let keep = if window.is_nan() { f64::NAN } else { window.max(0.0) };
    if keep == 0.0 {
        return group_count;
    }
    let relative = if keep.is_nan() { 0.0 } else { (-keep).trunc() };
    if relative == 0.0 || relative == f64::NEG_INFINITY {
        return 0;
    }
    let from_end = group_count as f64 + relative;
    if from_end <= 0.0 {
        0
    } else {
        from_end as usize
    }
}

/// Runs one step: records the new group and returns which ids the window keeps.
///
/// `id_truthy[i]` says whether interned id `i` is a truthy JS value: the reference only counts
/// truthy response ids.
pub fn advance_step_window(input: &StepInput, id_truthy: &[u8], window: f64) -> StepOutcome {
    let id_count = id_truthy.len();
    let index_of = |id: i32| usize::try_from(id).ok().filter(|&i| i < id_count);

    let mut seen_flags = vec![false; id_count];
    let mut seen_after = Vec::with_capacity(input.seen.len() + input.response_ids.len());
    for &id in input.seen {
        if let Some(i) = index_of(id) {
            if !seen_flags[i] {
                seen_flags[i] = true;
                seen_after.push(id);
            }
        }
    }

    let mut new_ids = Vec::new();
    for &id in input.response_ids {
        if let Some(i) = index_of(id) {
            if id_truthy[i] != 0 && !seen_flags[i] {
                seen_flags[i] = true;
                new_ids.push(id);
            }
        }
    }
    seen_after.extend_from_slice(&new_ids);

    let group_count = input.groups.len() + 1;
    let start = window_start(window, group_count);
    let mut preserved = vec![false; id_count];
    let kept_groups = input.groups.iter().copied().chain(std::iter::once(new_ids.as_slice())).skip(start);
    for group in kept_groups {
        for &id in group {
            if let Some(i) = index_of(id) {
                preserved[i] = true;
            }
        }
    }

    StepOutcome { new_ids, seen_after, preserved }
}
