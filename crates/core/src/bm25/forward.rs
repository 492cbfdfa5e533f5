//! Per-document side tables: the forward index ([`Forward`]), the common terms' tf per
//! document ([`CommonTf`]) and what pruning reads about a candidate ([`DocMeta`]).

use super::postings::bits_for;

/// The forward index's (term, shape) pairs, each packed into one u32 (term above
/// `shape_bits` bits of shape) when every term and shape id fit — half the memory of a
/// pair, ~7 MB at 100,000 realistic tools; a pair each otherwise.
#[derive(Debug)]
pub(super) enum Forward {
    Packed { entries: Vec<u32>, shape_bits: u32 },
    Wide(Vec<(u32, u32)>),
}

impl Default for Forward {
    fn default() -> Self {
        Forward::Wide(Vec::new())
    }
}

impl Forward {
    /// `pairs`, packed when terms below `terms` and shapes below `shapes` fit in 32 bits.
    pub(super) fn new(pairs: Vec<(u32, u32)>, terms: usize, shapes: usize) -> Self {
        let shape_bits = bits_for(shapes);
        if shape_bits + bits_for(terms) > 32 || pairs.iter().any(|&(t, s)| t as usize >= terms || s as usize >= shapes) {
            let mut pairs = pairs;
            // (grown by doubling; giving back the spare capacity moves nothing)
            pairs.shrink_to_fit();
            return Forward::Wide(pairs);
        }
        Forward::Packed { entries: pairs.iter().map(|&(t, s)| (t << shape_bits) | s).collect(), shape_bits }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Forward::Packed { entries, .. } => entries.len(),
            Forward::Wide(pairs) => pairs.len(),
        }
    }

    pub(super) fn heap_bytes(&self) -> usize {
        match self {
            Forward::Packed { entries, .. } => entries.capacity() * 4,
            Forward::Wide(pairs) => pairs.capacity() * 8,
        }
    }

    /// Calls `f(term, shape)` for the entries in `range`, in order.
    #[inline(always)]
    pub(super) fn each(&self, range: (u32, u32), mut f: impl FnMut(u32, u32)) {
        let (from, to) = (range.0 as usize, range.1 as usize);
        match self {
            Forward::Packed { entries, shape_bits } => {
                let mask = (1u32 << shape_bits) - 1;
                for &e in &entries[from..to] {
                    f(e >> shape_bits, e & mask);
                }
            }
            Forward::Wide(pairs) => {
                for &(term, shape) in &pairs[from..to] {
                    f(term, shape);
                }
            }
        }
    }

    /// All entries as pairs.
    pub(super) fn to_pairs(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::with_capacity(self.len());
        self.each((0, self.len() as u32), |term, shape| out.push((term, shape)));
        out
    }
}

/// How many of the most frequent terms [`CommonTf`] keeps a tf for.
pub(super) const COMMON_TERMS: usize = 12;

/// The tf of the catalog's most frequent terms (the longest posting lists) in every
/// document, with the document's length: 16 bytes a document. Pruned search leaves those
/// lists unread, so without this a candidate could only be bounded by the terms' largest
/// possible scores; with it, a candidate's unread common words add their exact score (up to
/// rounding), and far fewer candidates need their exact score from the forward index.
/// The tfs are rebuilt with the posting lists, so the chosen terms follow the current
/// frequencies.
#[derive(Debug, Default)]
pub(super) struct CommonTf {
    /// The chosen terms, most frequent first.
    pub(super) terms: Vec<u32>,
    /// Per slot: its length (0 once removed) and each chosen term's tf (255: 255 or more).
    pub(super) rows: Vec<CommonRow>,
}

#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(16))]
pub(super) struct CommonRow {
    pub(super) len: u32,
    pub(super) tf: [u8; COMMON_TERMS],
}

impl CommonTf {
    /// Which place `term` has among the chosen terms.
    pub(super) fn place(&self, term: u32) -> Option<usize> {
        self.terms.iter().position(|&t| t == term)
    }
}

/// Per-slot facts [`Bm25Index::score_top`] reads for each candidate document, packed so a
/// candidate costs one cache miss instead of one per array.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
pub(super) struct DocMeta {
    /// A two-bit-per-term filter of its terms (a clear bit proves a term absent).
    pub(super) sig: u128,
    /// [`saturation`] at `sat_avgdl` and the document's length, at tf 1 and at its largest
    /// tf (equal when no term repeats in it), rounded up to f32 (they only bound scores);
    /// NaN until known.
    pub(super) one_sat: f32,
    pub(super) top_sat: f32,
    /// Its range in the forward index.
    pub(super) fwd: (u32, u32),
}

impl DocMeta {
    pub(super) fn new(sig: u128, one_sat: f64, top_sat: f64, fwd: (u32, u32)) -> Self {
        Self { sig, one_sat: f32_at_least(one_sat), top_sat: f32_at_least(top_sat), fwd }
    }
}

/// Two bits of a 128-bit per-document term filter.
#[inline(always)]
pub(super) fn term_bits(term: u32) -> u128 {
    let h = u64::from(term).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (1u128 << (h >> 57)) | (1u128 << ((h >> 50) & 127))
}

/// The largest f32 not above `x` (NaN stays NaN).
pub(super) fn f32_at_most(x: f64) -> f32 {
    -f32_at_least(-x)
}

/// The smallest f32 not below `x` (NaN stays NaN).
fn f32_at_least(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) < x {
        if f == 0.0 {
            f32::from_bits(1)
        } else if f > 0.0 {
            f32::from_bits(f.to_bits() + 1)
        } else {
            f32::from_bits(f.to_bits() - 1)
        }
    } else {
        f
    }
}
