//! Documents as term counts: one ([`TermCounts`]) or many in flat arrays ([`DocSet`]).

/// Term counts of one document: `(term, tf)` in first-occurrence order.
#[derive(Debug, Clone, Default)]
pub struct TermCounts {
    pub counts: Vec<(u32, u32)>,
    pub len: u32,
}

impl TermCounts {
    pub fn from_terms(terms: impl IntoIterator<Item = u32>) -> Self {
        let terms = terms.into_iter();
        let mut counts: Vec<(u32, u32)> = Vec::with_capacity(terms.size_hint().0);
        let mut len = 0u32;
        for t in terms {
            len += 1;
            // Tool documents are short; a linear probe beats hashing here.
            match counts.iter_mut().find(|(term, _)| *term == t) {
                Some((_, tf)) => *tf += 1,
                None => counts.push((t, 1)),
            }
        }
        Self { counts, len }
    }
}

/// Term counts of many documents in three flat arrays (one allocation each instead of
/// one per document): document i's (term, tf) pairs, in first-occurrence order, are
/// `counts[ends[i - 1]..ends[i]]`, and `lens[i]` is its token count.
#[derive(Debug, Clone, Default)]
pub struct DocSet {
    pub counts: Vec<(u32, u32)>,
    pub ends: Vec<u32>,
    pub lens: Vec<u32>,
}

impl DocSet {
    /// Appends a document given as term counts.
    pub fn push(&mut self, doc: &TermCounts) {
        self.counts.extend_from_slice(&doc.counts);
        self.ends.push(self.counts.len() as u32);
        self.lens.push(doc.len);
    }

    /// Appends a document given as its terms in order (duplicates count).
    pub fn push_terms(&mut self, terms: &[u32]) {
        let from = self.counts.len();
        for &t in terms {
            // Tool documents are short; a linear probe beats hashing here.
            match self.counts[from..].iter_mut().find(|(term, _)| *term == t) {
                Some((_, tf)) => *tf += 1,
                None => self.counts.push((t, 1)),
            }
        }
        self.ends.push(self.counts.len() as u32);
        self.lens.push(terms.len() as u32);
    }

    /// Appends every document of `other`, renumbering its terms through `remap`.
    pub fn append_remapped(&mut self, other: DocSet, remap: &[u32]) {
        let base = self.counts.len() as u32;
        self.counts.extend(other.counts.into_iter().map(|(t, tf)| (remap[t as usize], tf)));
        self.ends.extend(other.ends.into_iter().map(|e| e + base));
        self.lens.extend(other.lens);
    }

    pub fn len(&self) -> usize {
        self.lens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }
}
