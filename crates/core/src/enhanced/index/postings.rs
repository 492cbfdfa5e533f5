//! The posting lists of all terms, packed into one u32 a posting when the catalog fits.

use rustc_hash::FxHashMap;

/// The postings of all terms (CSR by [`EnhancedIndex::offsets`]): per posting its document,
/// its value and its coverage bits (bit f set when the term is a word (stem) or CJK unit of
/// field f, for fields with a coverage weight).
#[derive(Debug)]
pub(super) enum Postings {
    /// `doc << 8 | id` of the posting's (value, coverage bits) pair in `pairs`, when a
    /// catalog has at most 256 distinct pairs (100,000 realistic tools have ~110: values
    /// depend on a few field lengths and tfs) and fewer than 2^24 documents: 4 bytes a
    /// posting instead of 9 and one array read instead of three (100k search p50 −8%).
    /// (`pairs` is padded to 256, so an id indexes it without a bounds check)
    Packed { entries: Vec<u32>, pairs: Box<[(f32, u8); 256]> },
    Split { doc: Vec<u32>, val: Vec<f32>, cov: Vec<u8> },
}

impl Default for Postings {
    fn default() -> Self {
        Postings::Split { doc: Vec::new(), val: Vec::new(), cov: Vec::new() }
    }
}

impl Postings {
    /// Packed when the catalog fits it.
    pub(super) fn new(doc: Vec<u32>, val: Vec<f32>, cov: Vec<u8>, docs: usize) -> Self {
        if docs < 1 << 24 {
            let mut pairs = Box::new([(0.0f32, 0u8); 256]);
            let mut ids: FxHashMap<(u32, u8), u32> = FxHashMap::default();
            let mut entries: Vec<u32> = Vec::with_capacity(doc.len());
            for ((&d, &v), &c) in doc.iter().zip(&val).zip(&cov) {
                let next = ids.len() as u32;
                let id = *ids.entry((v.to_bits(), c)).or_insert(next);
                if id == 256 {
                    return Postings::Split { doc, val, cov };
                }
                pairs[id as usize] = (v, c);
                entries.push((d << 8) | id);
            }
            return Postings::Packed { entries, pairs };
        }
        Postings::Split { doc, val, cov }
    }

    /// The value of document `doc`'s posting among `range`, if it has one.
    pub(super) fn value_of(&self, range: std::ops::Range<usize>, doc: u32) -> Option<f32> {
        match self {
            Postings::Packed { entries, pairs } => {
                let list = &entries[range];
                list.binary_search_by_key(&doc, |&e| e >> 8).ok().map(|i| pairs[(list[i] & 255) as usize].0)
            }
            Postings::Split { doc: docs, val, .. } => docs[range.clone()].binary_search(&doc).ok().map(|i| val[range.start + i]),
        }
    }

    /// The same postings as three arrays (tests).
    #[cfg(test)]
    pub(super) fn to_split(&self) -> Postings {
        match self {
            Postings::Packed { entries, pairs } => Postings::Split {
                doc: entries.iter().map(|&e| e >> 8).collect(),
                val: entries.iter().map(|&e| pairs[(e & 255) as usize].0).collect(),
                cov: entries.iter().map(|&e| pairs[(e & 255) as usize].1).collect(),
            },
            Postings::Split { doc, val, cov } => Postings::Split { doc: doc.clone(), val: val.clone(), cov: cov.clone() },
        }
    }

    /// Every posting's value (tests).
    #[cfg(test)]
    pub(super) fn values(&self) -> Vec<f32> {
        match self {
            Postings::Packed { entries, pairs } => entries.iter().map(|&e| pairs[(e & 255) as usize].0).collect(),
            Postings::Split { val, .. } => val.clone(),
        }
    }
}
