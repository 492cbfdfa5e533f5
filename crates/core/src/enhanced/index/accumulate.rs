//! Per-document accumulators of a search ([`Accumulators`]): the score and the idf mass of
//! the covering query terms matched per covered field, in two layouts ([`Split`] and
//! [`Packed`]), and the per-thread buffers that hold them.

use std::cell::RefCell;

use super::FIELDS;

/// Per-thread search buffers, reused across queries and indexes: the accumulators of both
/// layouts (see [`Accumulators`]) and the documents touched.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) packed: Packed,
    pub(super) split2: Split<2>,
    pub(super) split_all: Split<FIELDS>,
    pub(super) touched: Vec<u32>,
}

thread_local! {
    pub(super) static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Per-document accumulators of a search: the score, and the idf mass of the covering query
/// terms matched per covered field ("place" k: the k-th covered field).
pub(super) trait Accumulators<const K: usize> {
    /// Adds `x` to document `d`'s score; whether it was 0 before.
    fn add(&mut self, d: usize, x: f32) -> bool;
    /// [`Self::add`] for the `list`-th covering term, `credit` its idf, matched in the
    /// covered fields whose bits `cov` sets (`bit_of`: each place's field bit).
    fn add_covering(&mut self, d: usize, x: f32, cov: u8, list: usize, credit: f32, bit_of: &[u8; K]) -> bool;
    /// Document `d`'s score; the score is 0 afterwards.
    fn take_score(&mut self, d: usize) -> f32;
    /// Sets document `d`'s matched mass to 0.
    fn clear_matched(&mut self, d: usize);
    /// Bit k set: place k has matched mass.
    fn matched_places(&self, d: usize) -> usize;
    /// Document `d`'s matched mass per place (`credits`: per covering term, its idf), 0
    /// afterwards.
    fn take_matched(&mut self, d: usize, credits: &[f32]) -> [f32; K];
}

/// Scores and matched masses in separate arrays (any number of places and covering terms).
#[derive(Default)]
pub(super) struct Split<const K: usize> {
    scores: Vec<f32>,
    matched: Vec<[f32; K]>,
}

/// A search's view of [`Split`] accumulators (slices, so the loops keep their bases in
/// registers).
pub(super) struct SplitView<'a, const K: usize> {
    scores: &'a mut [f32],
    matched: &'a mut [[f32; K]],
}

impl<const K: usize> Split<K> {
    /// The accumulators of `docs` documents, all at 0.
    pub(super) fn view(&mut self, docs: usize) -> SplitView<'_, K> {
        if self.scores.len() < docs {
            self.scores.resize(docs, 0.0);
            self.matched.resize(docs, [0.0; K]);
        }
        SplitView { scores: &mut self.scores[..docs], matched: &mut self.matched[..docs] }
    }
}

impl<const K: usize> Accumulators<K> for SplitView<'_, K> {
    #[inline(always)]
    fn add(&mut self, d: usize, x: f32) -> bool {
        let s = &mut self.scores[d];
        let first = *s == 0.0;
        *s += x;
        first
    }

    #[inline(always)]
    fn add_covering(&mut self, d: usize, x: f32, cov: u8, _list: usize, credit: f32, bit_of: &[u8; K]) -> bool {
        let first = self.add(d, x);
        if cov != 0 {
            // Branch-free over the places: a place whose bit is clear gets + 0.0, which
            // leaves its (non-negative) mass unchanged.
            let m = &mut self.matched[d];
            for (k, &bit) in bit_of.iter().enumerate() {
                m[k] += credit * ((u32::from(cov) >> bit) & 1) as f32;
            }
        }
        first
    }

    #[inline(always)]
    fn take_score(&mut self, d: usize) -> f32 {
        std::mem::take(&mut self.scores[d])
    }

    #[inline(always)]
    fn clear_matched(&mut self, d: usize) {
        self.matched[d] = [0.0; K];
    }

    #[inline(always)]
    fn matched_places(&self, d: usize) -> usize {
        self.matched[d].iter().enumerate().fold(0, |mask, (k, &x)| mask | usize::from(x > 0.0) << k)
    }

    #[inline(always)]
    fn take_matched(&mut self, d: usize, _credits: &[f32]) -> [f32; K] {
        std::mem::replace(&mut self.matched[d], [0.0; K])
    }
}

/// Per covered field (place) of [`Packed`]: how many covering terms it can tell apart.
pub(super) const PACKED_TERMS: usize = 16;

/// The score and, per place (two at most), a bit per covering term matched there, in one
/// 8-byte entry: a covering term's posting touches one cache line instead of two, and the
/// masses are summed from the bits for the few documents that need them (in term order,
/// as [`Split`] sums them, so they are the same floats). For queries of up to
/// [`PACKED_TERMS`] covering terms.
#[derive(Default)]
pub(super) struct Packed {
    acc: Vec<(f32, u32)>,
}

/// A search's view of [`Packed`] accumulators.
pub(super) struct PackedView<'a> {
    acc: &'a mut [(f32, u32)],
}

impl Packed {
    /// The accumulators of `docs` documents, all at 0.
    pub(super) fn view(&mut self, docs: usize) -> PackedView<'_> {
        if self.acc.len() < docs {
            self.acc.resize(docs, (0.0, 0));
        }
        PackedView { acc: &mut self.acc[..docs] }
    }
}

impl Accumulators<2> for PackedView<'_> {
    #[inline(always)]
    fn add(&mut self, d: usize, x: f32) -> bool {
        let s = &mut self.acc[d].0;
        let first = *s == 0.0;
        *s += x;
        first
    }

    #[inline(always)]
    fn add_covering(&mut self, d: usize, x: f32, cov: u8, list: usize, _credit: f32, bit_of: &[u8; 2]) -> bool {
        // (the caller uses this layout only for queries of up to PACKED_TERMS covering terms)
        debug_assert!(list < PACKED_TERMS);
        let e = &mut self.acc[d];
        let first = e.0 == 0.0;
        e.0 += x;
        let cov = u32::from(cov);
        e.1 |= (((cov >> bit_of[0]) & 1) << list) | (((cov >> bit_of[1]) & 1) << (PACKED_TERMS + list));
        first
    }

    #[inline(always)]
    fn take_score(&mut self, d: usize) -> f32 {
        std::mem::take(&mut self.acc[d].0)
    }

    #[inline(always)]
    fn clear_matched(&mut self, d: usize) {
        self.acc[d].1 = 0;
    }

    #[inline(always)]
    fn matched_places(&self, d: usize) -> usize {
        let bits = self.acc[d].1;
        usize::from(bits & 0xffff != 0) | usize::from(bits >> PACKED_TERMS != 0) << 1
    }

    #[inline(always)]
    fn take_matched(&mut self, d: usize, credits: &[f32]) -> [f32; 2] {
        let bits = std::mem::take(&mut self.acc[d].1);
        std::array::from_fn(|k| {
            let mut place = (bits >> (k * PACKED_TERMS)) & 0xffff;
            let mut mass = 0.0f32;
            while place != 0 {
                mass += credits[place.trailing_zeros() as usize];
                place &= place - 1;
            }
            mass
        })
    }
}
