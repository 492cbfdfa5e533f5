//! A catalog's entries: every string in one text buffer and a fixed-size row per tool.
//!
//! One buffer instead of up to four heap strings per tool: at 100,000 tools that is
//! ~12 MB less, and texts dropped after indexing (compatible mode keeps no indexed
//! description) leave no holes scattered through the allocator's pages.
//!
//! A row's fields lie in the text as `key \0 id \0 description \0 params`, the layout of
//! the catalog the JS layer joins into one buffer, so that buffer can be used as it is.

use std::borrow::Cow;

/// One tool as the catalog sees it, borrowed from wherever its strings live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolRef<'a> {
    pub key: &'a str,
    /// `tool.id` when it is a non-empty string.
    pub id: Option<&'a str>,
    pub description: &'a str,
    /// Parameter names and descriptions (enhanced mode; empty otherwise).
    pub params: &'a str,
    pub handle: u32,
}

/// An entry: its tool's strings plus the slot of its document when it is the one indexed
/// under its name.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry<'a> {
    pub key: &'a str,
    pub id: Option<&'a str>,
    pub description: &'a str,
    pub params: &'a str,
    pub handle: u32,
    pub slot: Option<u32>,
}

impl<'a> Entry<'a> {
    /// The indexed name: `tool.id || key`.
    pub fn name(&self) -> &'a str {
        self.id.unwrap_or(self.key)
    }

    pub fn tool(&self) -> ToolRef<'a> {
        ToolRef { key: self.key, id: self.id, description: self.description, params: self.params, handle: self.handle }
    }
}

/// `id_len` values that are not lengths.
const NO_ID: u32 = u32::MAX;
/// The id equals the key and is not stored twice.
const SAME_AS_KEY: u32 = u32::MAX - 1;
const NO_SLOT: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Row {
    /// Where the key starts in the text.
    at: usize,
    key_len: u32,
    id_len: u32,
    description_len: u32,
    params_len: u32,
    handle: u32,
    slot: u32,
}

impl Row {
    fn id_bytes(&self) -> usize {
        if self.id_len >= SAME_AS_KEY {
            0
        } else {
            self.id_len as usize
        }
    }
}

/// Why a joined catalog cannot be split into its tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinedError {
    /// Fewer fields than `count` tools need.
    TooFewFields,
    /// Fields left over after `count` tools (a value contained NUL).
    TooManyFields,
}

impl std::fmt::Display for JoinedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::TooFewFields => "joined catalog has fewer fields than expected",
            Self::TooManyFields => "joined catalog has more fields than expected",
        })
    }
}

impl std::error::Error for JoinedError {}

/// A string field's length as stored in a row. JavaScript strings are far below 4 GiB;
/// a Rust caller passing a longer one breaks an invariant of this API.
fn len32(len: usize) -> u32 {
    u32::try_from(len).ok().filter(|&n| n < SAME_AS_KEY).expect("a tool's key, id, description or params text is 4 GiB or longer")
}

#[derive(Debug, Clone, Default)]
pub(super) struct Entries<'t> {
    text: Cow<'t, str>,
    rows: Vec<Row>,
}

impl<'t> Entries<'t> {
    /// Splits `joined` (`key \0 id \0 description [\0 params] \0 key …`, `params` present
    /// when `with_params`; an empty id means none) into `count` entries with handles
    /// 0..count, borrowing the text.
    pub fn from_joined(joined: &'t str, count: usize, with_params: bool) -> Result<Self, JoinedError> {
        // `count` tools need `count * fields` fields, and a text has at most one more field than
        // bytes: checked before `count` sizes anything, so a forged count is an error, not an
        // allocation the process cannot survive.
        let fields = if with_params { 4 } else { 3 };
        if count.checked_mul(fields).is_none_or(|needed| needed > joined.len() + 1) {
            return Err(JoinedError::TooFewFields);
        }
        let mut rows = Vec::with_capacity(count);
        // Field ends: every NUL, then the end of the text.
        let mut ends = memchr::memchr_iter(0, joined.as_bytes()).chain(std::iter::once(joined.len()));
        let mut from = 0usize;
        let mut at = 0usize;
        let mut next = || -> Result<u32, JoinedError> {
            let end = ends.next().ok_or(JoinedError::TooFewFields)?;
            let len = end - from;
            from = end + 1;
            Ok(len32(len))
        };
        for handle in 0..count {
            let key_len = next()?;
            let id_len = next()?;
            let description_len = next()?;
            let params_len = if with_params { next()? } else { 0 };
            rows.push(Row {
                at,
                key_len,
                id_len: if id_len == 0 { NO_ID } else { id_len },
                description_len,
                params_len,
                handle: handle as u32,
                slot: NO_SLOT,
            });
            at += (key_len + id_len + description_len + params_len) as usize + fields;
        }
        // An empty text is one empty field, which an empty catalog leaves behind.
        let left = ends.count();
        if !(left == 0 || (count == 0 && left == 1 && joined.is_empty())) {
            return Err(JoinedError::TooManyFields);
        }
        Ok(Self { text: Cow::Borrowed(joined), rows })
    }

    /// Entries copying `tools`' strings.
    pub fn from_tools<'a>(tools: impl IntoIterator<Item = ToolRef<'a>>) -> Entries<'static> {
        let mut entries = Entries::<'static>::default();
        for tool in tools {
            entries.push(tool, true);
        }
        entries
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn get(&self, pos: usize) -> Entry<'_> {
        self.entry(&self.rows[pos])
    }

    /// Entry `pos`'s key (cheaper than [`Self::get`], which slices every field).
    pub fn key(&self, pos: usize) -> &str {
        let row = &self.rows[pos];
        &self.text[row.at..row.at + row.key_len as usize]
    }

    /// Entry `pos`'s id.
    pub fn id(&self, pos: usize) -> Option<&str> {
        let row = &self.rows[pos];
        let id_at = row.at + row.key_len as usize + 1;
        match row.id_len {
            NO_ID => None,
            SAME_AS_KEY => Some(self.key(pos)),
            n => Some(&self.text[id_at..id_at + n as usize]),
        }
    }

    /// Entry `pos`'s indexed name, `id || key`.
    pub fn name(&self, pos: usize) -> &str {
        self.id(pos).unwrap_or_else(|| self.key(pos))
    }

    pub fn handle(&self, pos: usize) -> u32 {
        self.rows[pos].handle
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = Entry<'_>> + '_ {
        self.rows.iter().map(|row| self.entry(row))
    }

    fn entry(&self, row: &Row) -> Entry<'_> {
        entry_in(&self.text, row)
    }
    pub fn set_slot(&mut self, pos: usize, slot: Option<u32>) {
        self.rows[pos].slot = slot.unwrap_or(NO_SLOT);
    }

    /// Appends `tool` (its description only when `keep_description`).
    pub fn push(&mut self, tool: ToolRef<'_>, keep_description: bool) {
        let row = self.append_text(tool, keep_description);
        self.rows.push(row);
    }

    /// Replaces the entry at `pos` (its old text stays in the buffer until [`Self::compacted`]).
    pub fn replace(&mut self, pos: usize, tool: ToolRef<'_>) {
        self.rows[pos] = self.append_text(tool, true);
    }

    fn append_text(&mut self, tool: ToolRef<'_>, keep_description: bool) -> Row {
        let description = if keep_description { tool.description } else { "" };
        let text = self.text.to_mut();
        let at = text.len();
        let id_len = match tool.id {
            None => NO_ID,
            Some(id) if id == tool.key => SAME_AS_KEY,
            Some(id) => len32(id.len()),
        };
        text.reserve(tool.key.len() + description.len() + tool.params.len() + 3 + if id_len < SAME_AS_KEY { id_len as usize } else { 0 });
        text.push_str(tool.key);
        text.push('\0');
        if id_len < SAME_AS_KEY {
            text.push_str(tool.id.unwrap_or(""));
        }
        text.push('\0');
        text.push_str(description);
        text.push('\0');
        text.push_str(tool.params);
        Row {
            at,
            key_len: len32(tool.key.len()),
            id_len,
            description_len: len32(description.len()),
            params_len: len32(tool.params.len()),
            handle: tool.handle,
            slot: NO_SLOT,
        }
    }

    /// Stable sort of the entries by `key`.
    pub fn sort_by_key<K: Ord>(&mut self, mut key: impl FnMut(Entry<'_>) -> K) {
        let Self { text, rows } = self;
        rows.sort_by_key(|row| key(entry_in(text, row)));
    }

    /// The same entries in a buffer of their own, exactly sized, holding each description
    /// only where `keep_description` says so (and no replaced text).
    pub fn compacted(&self, keep_description: impl Fn(&Entry<'_>) -> bool) -> Entries<'static> {
        let bytes: usize = self
            .iter()
            .map(|e| {
                let id = e.id.filter(|&id| id != e.key).map_or(0, str::len);
                let description = if keep_description(&e) { e.description.len() } else { 0 };
                e.key.len() + id + description + e.params.len() + 3
            })
            .sum();
        let mut out = Entries { text: Cow::Owned(String::with_capacity(bytes)), rows: Vec::with_capacity(self.len()) };
        for e in self.iter() {
            let keep = keep_description(&e);
            out.push(e.tool(), keep);
            out.rows.last_mut().expect("just pushed").slot = e.slot.unwrap_or(NO_SLOT);
        }
        out
    }

    /// The same entries owning their text (a borrowed text is copied whole).
    pub fn into_owned(self) -> Entries<'static> {
        Entries { text: Cow::Owned(self.text.into_owned()), rows: self.rows }
    }

    /// Heap bytes (text and rows).
    pub fn heap_bytes(&self) -> usize {
        let text = match &self.text {
            Cow::Owned(s) => s.capacity(),
            Cow::Borrowed(_) => 0,
        };
        text + self.rows.capacity() * std::mem::size_of::<Row>()
    }
}


/// The entry `row` describes in `text`.
fn entry_in<'a>(text: &'a str, row: &Row) -> Entry<'a> {
    let key_end = row.at + row.key_len as usize;
    let key = &text[row.at..key_end];
    let id_at = key_end + 1;
    let id = match row.id_len {
        NO_ID => None,
        SAME_AS_KEY => Some(key),
        n => Some(&text[id_at..id_at + n as usize]),
    };
    let description_at = id_at + row.id_bytes() + 1;
    let description_end = description_at + row.description_len as usize;
    let params = if row.params_len == 0 {
        ""
    } else {
        &text[description_end + 1..description_end + 1 + row.params_len as usize]
    };
    Entry {
        key,
        id,
        description: &text[description_at..description_end],
        params,
        handle: row.handle,
        slot: (row.slot != NO_SLOT).then_some(row.slot),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool<'a>(key: &'a str, id: Option<&'a str>, description: &'a str, params: &'a str, handle: u32) -> ToolRef<'a> {
        ToolRef { key, id, description, params, handle }
    }

    /// key, id, description, params, handle, slot
    type Fields = (String, Option<String>, String, String, u32, Option<u32>);

    fn all(entries: &Entries<'_>) -> Vec<Fields> {
        entries
            .iter()
            .map(|e| (e.key.into(), e.id.map(Into::into), e.description.into(), e.params.into(), e.handle, e.slot))
            .collect()
    }

    #[test]
    fn joined_and_copied_entries_read_back_the_same() {
        let joined = "a\0\0first tool\0p1\0b\0b\0second\0\0c\0cid\0\0p3";
        let from_joined = Entries::from_joined(joined, 3, true).unwrap();
        let tools = [
            tool("a", None, "first tool", "p1", 0),
            tool("b", Some("b"), "second", "", 1),
            tool("c", Some("cid"), "", "p3", 2),
        ];
        let copied = Entries::from_tools(tools);
        assert_eq!(all(&from_joined), all(&copied));
        assert_eq!(from_joined.iter().map(|e| e.tool()).collect::<Vec<_>>(), tools);
        assert_eq!(copied.get(1).name(), "b");
        assert_eq!(copied.get(0).name(), "a");
        assert_eq!(copied.get(2).name(), "cid");
    }

    #[test]
    fn joined_without_params_and_empty() {
        let e = Entries::from_joined("k\0\0d\0k2\0i2\0d2", 2, false).unwrap();
        assert_eq!(all(&e)[1], ("k2".into(), Some("i2".into()), "d2".into(), String::new(), 1, None));
        assert_eq!(Entries::from_joined("", 0, false).unwrap().len(), 0);
        assert_eq!(Entries::from_joined("", 1, false).unwrap_err(), JoinedError::TooFewFields);
        assert_eq!(Entries::from_joined("k\0\0d\0x", 1, false).unwrap_err(), JoinedError::TooManyFields);
        assert_eq!(Entries::from_joined("k\0\0d", 0, false).unwrap_err(), JoinedError::TooManyFields);
        assert_eq!(Entries::from_joined("k\0\0d\0k", 2, false).unwrap_err(), JoinedError::TooFewFields);
    }

    #[test]
    fn a_count_the_text_cannot_hold_is_an_error_before_anything_is_sized() {
        // 1e9 and usize::MAX once reached `Vec::with_capacity(count)` (an abort, not an error).
        for count in [1_000_000_000, u32::MAX as usize, usize::MAX / 3 + 1, usize::MAX] {
            assert_eq!(Entries::from_joined("k\0\0d", count, false).unwrap_err(), JoinedError::TooFewFields, "{count}");
            assert_eq!(Entries::from_joined("k\0\0d\0p", count, true).unwrap_err(), JoinedError::TooFewFields, "{count}");
        }
        assert_eq!(Entries::from_joined("k\0\0d\0p", 1, true).unwrap().len(), 1);
    }

    #[test]
    fn replace_sort_and_compact_keep_every_field() {
        let mut e = Entries::from_tools([tool("x", Some("xi"), "dx", "", 0), tool("y", None, "dy", "py", 1), tool("z", Some("z"), "dz", "", 2)]);
        e.replace(1, tool("y", Some("yy"), "new", "pp", 7));
        e.set_slot(2, Some(4));
        e.sort_by_key(|entry| std::cmp::Reverse(entry.key.to_owned()));
        assert_eq!(e.iter().map(|x| x.key).collect::<Vec<_>>(), ["z", "y", "x"]);
        let before = all(&e);
        let compact = e.compacted(|entry| entry.key != "x");
        let mut expected = before.clone();
        expected[2].2 = String::new();
        assert_eq!(all(&compact), expected);
        assert_eq!(compact.get(0).slot, Some(4));
        // exactly sized, replaced text gone, the id equal to its key stored once
        assert_eq!(compact.heap_bytes() - 3 * std::mem::size_of::<Row>(), "z\0\0dz\0".len() + "y\0yy\0new\0pp".len() + "x\0xi\0\0".len());
    }

    #[test]
    fn non_ascii_text_round_trips() {
        let e = Entries::from_tools([tool("검색", Some("搜索"), "ツール 説明", "π", 0)]);
        let joined = "검색\0搜索\0ツール 説明\0π";
        assert_eq!(all(&e), all(&Entries::from_joined(joined, 1, true).unwrap()));
    }
}
