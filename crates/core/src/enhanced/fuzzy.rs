//! Typo tolerance: bounded edit distance over a length-bucketed vocabulary.
//!
//! Distance is optimal string alignment (Levenshtein plus adjacent transposition, each
//! costing 1), so `emial` → `email` is one edit. A 64-bit character-set signature rejects
//! most candidates before any distance is computed: one edit changes at most two bits.

/// Maximum distance allowed for a query term of `len` characters (0 = no fuzzy match).
pub fn max_distance(len: usize) -> usize {
    if len >= 8 {
        2
    } else if len >= 4 {
        1
    } else {
        0
    }
}

#[inline]
pub fn signature(chars: &[char]) -> u64 {
    chars.iter().fold(0u64, |acc, &c| acc | 1u64 << (c as u32 % 64))
}

/// Optimal-string-alignment distance, or `None` when it exceeds `max`.
pub fn osa_distance(a: &[char], b: &[char], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    if a.is_empty() || b.is_empty() {
        let d = a.len().max(b.len());
        return (d <= max).then_some(d);
    }
    let w = b.len() + 1;
    // Three rolling rows: two back (for transpositions), previous, current.
    let mut rows = vec![0usize; 3 * w];
    for (j, cell) in rows[w..2 * w].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        let (pp, rest) = rows.split_at_mut(w);
        let (prev, cur) = rest.split_at_mut(w);
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(pp[j - 2] + 1);
            }
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if row_min > max {
            return None;
        }
        // rotate: pp <- prev, prev <- cur
        rows.copy_within(w..3 * w, 0);
    }
    let d = rows[2 * w - 1];
    (d <= max).then_some(d)
}

struct Entry {
    chars: Box<[char]>,
    payload: u32,
}

/// Terms eligible for fuzzy matching, bucketed by character length.
#[derive(Default)]
pub struct FuzzyIndex {
    /// entries sorted by length; `by_len[l]..by_len[l+1]` are the entries of length `l`
    entries: Vec<Entry>,
    /// `signature` of each entry, contiguous: the scan filters on these alone, 8 bytes a term.
    sigs: Vec<u64>,
    by_len: Vec<u32>,
}

impl std::fmt::Debug for FuzzyIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FuzzyIndex").field("terms", &self.entries.len()).finish()
    }
}

impl FuzzyIndex {
    /// `terms`: (text, payload). Duplicate texts are kept once (first payload wins).
    pub fn build(mut terms: Vec<(String, u32)>) -> Self {
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        terms.dedup_by(|a, b| a.0 == b.0);
        let mut entries: Vec<Entry> = terms
            .into_iter()
            .map(|(t, payload)| {
                let chars: Box<[char]> = t.chars().collect();
                Entry { chars, payload }
            })
            .collect();
        // stable: equal lengths stay in text order, so results are deterministic
        entries.sort_by_key(|e| e.chars.len());
        let max_len = entries.last().map_or(0, |e| e.chars.len());
        let mut by_len = vec![0u32; max_len + 2];
        for e in &entries {
            by_len[e.chars.len() + 1] += 1;
        }
        for l in 1..by_len.len() {
            by_len[l] += by_len[l - 1];
        }
        let sigs = entries.iter().map(|e| signature(&e.chars)).collect();
        Self { entries, sigs, by_len }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Terms within `max_distance(len)` of `query` (excluding an exact match), as
    /// (payload, distance), nearest first; at most `limit`.
    pub fn lookup(&self, query: &str, limit: usize) -> Vec<(u32, usize)> {
        let q: Vec<char> = query.chars().collect();
        let max = max_distance(q.len());
        if max == 0 || self.entries.is_empty() || limit == 0 {
            return Vec::new();
        }
        let qsig = signature(&q);
        let lo = q.len().saturating_sub(max);
        let hi = (q.len() + max).min(self.by_len.len() - 2);
        let mut found: Vec<(u32, usize)> = Vec::new();
        if lo > hi {
            return found;
        }
        let (start, end) = (self.by_len[lo] as usize, self.by_len[hi + 1] as usize);
        for (i, &sig) in self.sigs[start..end].iter().enumerate() {
            if ((qsig ^ sig).count_ones() as usize) > 2 * max {
                continue;
            }
            let e = &self.entries[start + i];
            if let Some(d) = osa_distance(&q, &e.chars, max) {
                if d > 0 {
                    found.push((e.payload, d));
                }
            }
        }
        // nearest first; scan order (length, text) breaks ties deterministically
        found.sort_by_key(|&(_, d)| d);
        found.truncate(limit);
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(a: &str, b: &str, max: usize) -> Option<usize> {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        osa_distance(&a, &b, max)
    }

    #[test]
    fn distances() {
        assert_eq!(d("email", "email", 2), Some(0));
        assert_eq!(d("emial", "email", 2), Some(1));
        assert_eq!(d("emal", "email", 2), Some(1));
        assert_eq!(d("emaill", "email", 2), Some(1));
        assert_eq!(d("kitten", "sitting", 3), Some(3));
        assert_eq!(d("kitten", "sitting", 2), None);
        assert_eq!(d("", "ab", 2), Some(2));
        assert_eq!(d("ab", "", 1), None);
        assert_eq!(d("天气", "天汽", 1), Some(1));
        assert_eq!(d("ca", "abc", 3), Some(3)); // OSA, not full Damerau
    }

    #[test]
    fn signature_prefilter_never_rejects_a_match() {
        let words = ["email", "emails", "mail", "emial", "calendar", "calender", "weather", "wether", "abc", "cab"];
        for a in words {
            for b in words {
                let (ac, bc): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                if let Some(dist) = osa_distance(&ac, &bc, 2) {
                    assert!((signature(&ac) ^ signature(&bc)).count_ones() as usize <= 2 * dist, "{a} {b}");
                }
            }
        }
    }

    #[test]
    fn lookup_respects_length_thresholds() {
        let idx = FuzzyIndex::build(
            ["email", "emails", "mail", "calendar", "cat", "weather"].iter().enumerate().map(|(i, t)| (t.to_string(), i as u32)).collect(),
        );
        assert_eq!(idx.lookup("emial", 5), [(0, 1)]);
        // exact match excluded; shorter candidates first among equal distances
        assert_eq!(idx.lookup("email", 5), [(2, 1), (1, 1)]);
        assert_eq!(idx.lookup("email", 1), [(2, 1)]);
        assert_eq!(idx.lookup("cot", 5), []); // too short for any typo
        assert_eq!(idx.lookup("calnedar", 5), [(3, 1)]);
        assert_eq!(idx.lookup("calndar", 5), [(3, 1)]);
        assert_eq!(idx.lookup("clandar", 5), []); // 2 edits on a 7-char word
        assert_eq!(idx.lookup("caelndra", 5), [(3, 2)]); // 2 edits allowed at 8+
        assert_eq!(idx.lookup("", 5), []);
        assert_eq!(FuzzyIndex::default().lookup("anything", 5), []);
    }
}
