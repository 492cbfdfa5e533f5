//! The posting lists: every term's (slot, shape) postings in one array, stored in the
//! narrowest layout the catalog fits ([`Layout`]: [`Packed`] or [`Wide`]).

/// One posting: a document slot and its shape — the (tf, document length) pair, an index
/// into [`Bm25Index::shapes`]. Catalogs have few distinct shapes, so a term's saturation
/// in a document is one lookup in a small table instead of two divisions.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Posting {
    slot: u32,
    shape: u32,
}

/// How the posting lists store a (slot, shape) pair: [`Packed`] or [`Wide`].
pub(super) trait Layout: Copy {
    type Entry: Copy + Default;
    fn entry(self, slot: u32, shape: u32) -> Self::Entry;
    fn slot(self, e: Self::Entry) -> u32;
    fn shape(self, e: Self::Entry) -> u32;
}

/// `slot << B | shape` in one u32, when every slot and shape id fit: half the memory of a
/// pair (~7 MB at 100,000 realistic tools) and half the bytes a search reads. B is a
/// constant (a few are compiled): shifting by a variable costs more µops per posting
/// than the halved reads save.
#[derive(Debug, Clone, Copy)]
pub(super) struct Packed<const B: u32>;

impl<const B: u32> Layout for Packed<B> {
    type Entry = u32;
    #[inline(always)]
    fn entry(self, slot: u32, shape: u32) -> u32 {
        (slot << B) | shape
    }
    #[inline(always)]
    fn slot(self, e: u32) -> u32 {
        e >> B
    }
    #[inline(always)]
    fn shape(self, e: u32) -> u32 {
        e & ((1 << B) - 1)
    }
}

/// A [`Posting`] pair, for catalogs whose slots and shapes do not fit one u32.
#[derive(Debug, Clone, Copy)]
pub(super) struct Wide;

impl Layout for Wide {
    type Entry = Posting;
    #[inline(always)]
    fn entry(self, slot: u32, shape: u32) -> Posting {
        Posting { slot, shape }
    }
    #[inline(always)]
    fn slot(self, e: Posting) -> u32 {
        e.slot
    }
    #[inline(always)]
    fn shape(self, e: Posting) -> u32 {
        e.shape
    }
}

/// Bits that hold every value below `n` (at least 1).
pub(super) fn bits_for(n: usize) -> u32 {
    (usize::BITS - n.saturating_sub(1).leading_zeros()).max(1)
}

/// All posting lists, one after another, in one layout: packed with 10, 13 or 16 bits of
/// shape id (the fewest that hold the catalog's shapes) when the slots fit the rest.
#[derive(Debug)]
pub(super) enum Postings {
    Packed10(Vec<u32>),
    Packed13(Vec<u32>),
    Packed16(Vec<u32>),
    Wide(Vec<Posting>),
}

/// The posting lists in layout `L`: term t's is `entries[starts[t]..starts[t + 1]]`.
#[derive(Clone, Copy)]
pub(super) struct Lists<'a, L: Layout> {
    pub(super) entries: &'a [L::Entry],
    pub(super) starts: &'a [u32],
    pub(super) layout: L,
}

impl<'a, L: Layout> Lists<'a, L> {
    /// Term `term`'s posting list (empty for an unknown term).
    #[inline]
    pub(super) fn get(&self, term: u32) -> &'a [L::Entry] {
        match (self.starts.get(term as usize), self.starts.get(term as usize + 1)) {
            (Some(&from), Some(&to)) => &self.entries[from as usize..to as usize],
            _ => &[],
        }
    }
}

/// Runs `$body` with `$lists` bound to `$index`'s posting lists in their layout (the
/// loops are compiled once per layout).
macro_rules! with_lists {
    ($index:expr, |$lists:ident| $body:expr) => {
        match &$index.postings {
            Postings::Packed10(entries) => {
                let $lists = Lists { entries, starts: &$index.starts, layout: Packed::<10> };
                $body
            }
            Postings::Packed13(entries) => {
                let $lists = Lists { entries, starts: &$index.starts, layout: Packed::<13> };
                $body
            }
            Postings::Packed16(entries) => {
                let $lists = Lists { entries, starts: &$index.starts, layout: Packed::<16> };
                $body
            }
            Postings::Wide(entries) => {
                let $lists = Lists { entries, starts: &$index.starts, layout: Wide };
                $body
            }
        }
    };
}
pub(super) use with_lists;
