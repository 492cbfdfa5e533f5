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

/// The set of a text's adjacent character pairs, hashed to 64 bits. One edit (insertion,
/// deletion, substitution or adjacent transposition) removes at most three pairs of a text
/// and adds at most three, so texts within OSA distance `d` each have at most `3d` pair
/// bits the other lacks: a second filter before the distance, since the character set
/// alone lets many unrelated words of the same letters through.
pub fn pair_signature(chars: &[char]) -> u64 {
    chars.windows(2).fold(0u64, |acc, w| {
        let h = (u64::from(w[0] as u32) << 21 | u64::from(w[1] as u32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        acc | 1u64 << (h >> 58)
    })
}

/// Whether more than `k` bits of `x` are set: clears the lowest set bit `k` times (for
/// the small `k` here cheaper than a population count, which baseline x86-64 lacks).
#[inline]
fn more_bits_than(mut x: u64, k: usize) -> bool {
    for _ in 0..k {
        x &= x.wrapping_sub(1);
    }
    x != 0
}

/// Appends to `out` the indices of the `sigs` within `max_bits` differing bits of `query`
/// (the candidates worth an edit distance). With a population-count instruction (checked
/// at run time on x86-64) one instruction a signature; without it, [`more_bits_than`].
fn near_signatures(sigs: &[u64], query: u64, max_bits: u32, out: &mut Vec<u32>) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has the instruction the function is compiled to use.
        unsafe { near_signatures_popcnt(sigs, query, max_bits, out) };
        return;
    }
    for (i, &sig) in sigs.iter().enumerate() {
        if !more_bits_than(query ^ sig, max_bits as usize) {
            out.push(i as u32);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn near_signatures_popcnt(sigs: &[u64], query: u64, max_bits: u32, out: &mut Vec<u32>) {
    for (i, &sig) in sigs.iter().enumerate() {
        if (query ^ sig).count_ones() <= max_bits {
            out.push(i as u32);
        }
    }
}

/// [`osa_distance`] for `max` ≤ 1 (most query words), without the table: the common
/// prefix and suffix leave room for one substitution, insertion or deletion, or the two
/// characters in between are swapped. The lengths differ by at most `max`, neither is empty.
fn within_one(a: &[char], b: &[char], max: usize) -> Option<usize> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    if prefix == a.len() && prefix == b.len() {
        return Some(0);
    }
    if max == 0 {
        return None;
    }
    // (after the prefix, so the two never overlap)
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let shorter = a.len().min(b.len());
    let one = if a.len() == b.len() {
        prefix + suffix + 1 == shorter || (prefix + suffix + 2 == shorter && a[prefix] == b[prefix + 1] && a[prefix + 1] == b[prefix])
    } else {
        prefix + suffix >= shorter
    };
    one.then_some(1)
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
    if max <= 1 {
        return within_one(a, b, max);
    }
    // Cells hold min(distance, max + 1): every value above `max` is the same "too far",
    // and capping commutes with the recurrence's min and +1.
    let cap = max.min(u32::MAX as usize - 2) as u32 + 1;
    let w = b.len() + 1;
    // Three rows (two back for transpositions, previous, current), on the stack for words.
    let mut stack = [0u32; 3 * 48];
    let mut heap = Vec::new();
    let rows: &mut [u32] = if 3 * w <= stack.len() {
        &mut stack[..3 * w]
    } else {
        heap.resize(3 * w, 0);
        &mut heap
    };
    let (mut pp, mut prev, mut cur) = (0, w, 2 * w);
    for j in 0..w {
        rows[prev + j] = j.min(cap as usize) as u32;
    }
    // Only cells within `max` of the diagonal can stay within `max`: each row computes
    // that band, with "too far" written just outside it where the next row reads.
    for i in 1..=a.len() {
        let lo = i.saturating_sub(max).max(1);
        let hi = i.saturating_add(max).min(b.len());
        rows[cur] = i.min(cap as usize) as u32;
        let mut row_min = if lo == 1 { rows[cur] } else { cap };
        rows[cur + lo - 1] = if lo == 1 { rows[cur] } else { cap };
        if hi < b.len() {
            rows[cur + hi + 1] = cap;
        }
        for j in lo..=hi {
            let cost = u32::from(a[i - 1] != b[j - 1]);
            let mut v = (rows[prev + j] + 1).min(rows[cur + j - 1] + 1).min(rows[prev + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(rows[pp + j - 2] + 1);
            }
            let v = v.min(cap);
            rows[cur + j] = v;
            row_min = row_min.min(v);
        }
        if row_min >= cap {
            return None;
        }
        (pp, prev, cur) = (prev, cur, pp);
    }
    let d = rows[prev + w - 1] as usize;
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
    /// `pair_signature` of each entry: the second filter, for the scan's survivors.
    pair_sigs: Vec<u64>,
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
        let pair_sigs = entries.iter().map(|e| pair_signature(&e.chars)).collect();
        Self { entries, sigs, pair_sigs, by_len }
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
        let mut near = Vec::new();
        near_signatures(&self.sigs[start..end], qsig, 2 * max as u32, &mut near);
        let qpairs = pair_signature(&q);
        let pair_bits = 3 * max as u32;
        for i in near {
            let pairs = self.pair_sigs[start + i as usize];
            if (qpairs & !pairs).count_ones() > pair_bits || (pairs & !qpairs).count_ones() > pair_bits {
                continue;
            }
            let e = &self.entries[start + i as usize];
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

    /// Plain OSA distance (full table, no cap), the reference for the fast one.
    fn reference(a: &[char], b: &[char]) -> usize {
        let (n, m) = (a.len(), b.len());
        let mut t = vec![vec![0usize; m + 1]; n + 1];
        for (i, row) in t.iter_mut().enumerate() {
            row[0] = i;
        }
        for (j, cell) in t[0].iter_mut().enumerate() {
            *cell = j;
        }
        for i in 1..=n {
            for j in 1..=m {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                t[i][j] = (t[i - 1][j] + 1).min(t[i][j - 1] + 1).min(t[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    t[i][j] = t[i][j].min(t[i - 2][j - 2] + 1);
                }
            }
        }
        t[n][m]
    }

    #[test]
    fn matches_the_plain_table_on_random_words() {
        let mut next = crate::test_support::xorshift(7u64);
        for _ in 0..20_000 {
            // small alphabets make close pairs common; long words take the heap path
            let alphabet = 2 + next(4);
            let word = |next: &mut dyn FnMut(u64) -> u64| -> Vec<char> {
                let len = if next(50) == 0 { 40 + next(30) } else { next(12) };
                (0..len).map(|_| char::from(b'a' + next(alphabet) as u8)).collect()
            };
            let a = word(&mut next);
            let b = word(&mut next);
            let max = if next(100) == 0 { usize::MAX } else { next(4) as usize };
            let expected = reference(&a, &b);
            assert_eq!(osa_distance(&a, &b, max), (expected <= max).then_some(expected), "{a:?} {b:?} {max}");
        }
    }

    #[test]
    fn signature_scan_agrees_with_the_count() {
        let sigs: Vec<u64> = (0..500u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 50)).collect();
        for query in [0u64, 0xFF, 0x9E37_79B9_7F4A_7C15, u64::MAX] {
            for max_bits in 0..6 {
                let mut out = Vec::new();
                near_signatures(&sigs, query, max_bits, &mut out);
                let expected: Vec<u32> = (0..sigs.len() as u32).filter(|&i| (query ^ sigs[i as usize]).count_ones() <= max_bits).collect();
                assert_eq!(out, expected);
            }
        }
    }

    #[test]
    fn bit_threshold_agrees_with_the_count() {
        for x in [0u64, 1, 3, 0b1011, u64::MAX, 1 << 63, (1 << 63) | 1, 0xF0F0] {
            for k in 0..6 {
                assert_eq!(more_bits_than(x, k), x.count_ones() as usize > k, "{x:#x} {k}");
            }
        }
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

    /// Random vocabularies of near words over small alphabets (many typo pairs, including
    /// swapped letters, CJK and long words): the filtered lookup finds exactly what
    /// computing every distance finds, in the same order.
    #[test]
    fn lookup_equals_every_distance_on_random_vocabularies() {
        let mut next = crate::test_support::xorshift(11u64);
        for round in 0..300 {
            let letters: Vec<char> = if round % 5 == 0 { "天气预报".chars().collect() } else { "abcdefg".chars().take(2 + round % 5).collect() };
            let word = |next: &mut dyn FnMut(u64) -> u64| -> String { (0..3 + next(10)).map(|_| letters[next(letters.len() as u64) as usize]).collect() };
            let terms: Vec<(String, u32)> = (0..1 + next(60) as u32).map(|i| (word(&mut next), i)).collect();
            let idx = FuzzyIndex::build(terms.clone());
            // every distinct text once (the first payload), shortest first, as the index keeps them
            let mut seen = std::collections::HashSet::new();
            let mut texts: Vec<(Vec<char>, u32)> = Vec::new();
            let mut sorted = terms.clone();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            for (t, p) in sorted {
                if seen.insert(t.clone()) {
                    texts.push((t.chars().collect(), p));
                }
            }
            texts.sort_by_key(|t| t.0.len());
            for _ in 0..20 {
                // a term with a random edit, or a random word
                let query: String = if next(2) == 0 {
                    let mut c: Vec<char> = terms[next(terms.len() as u64) as usize].0.chars().collect();
                    let at = next(c.len() as u64) as usize;
                    match next(4) {
                        0 => c[at] = letters[next(letters.len() as u64) as usize],
                        1 => c.insert(at, letters[next(letters.len() as u64) as usize]),
                        2 if c.len() > 1 => {
                            c.remove(at);
                        }
                        _ if at + 1 < c.len() => c.swap(at, at + 1),
                        _ => {}
                    }
                    c.into_iter().collect()
                } else {
                    word(&mut next)
                };
                let q: Vec<char> = query.chars().collect();
                let max = max_distance(q.len());
                let mut want: Vec<(u32, usize)> = if max == 0 {
                    Vec::new()
                } else {
                    texts.iter().filter_map(|(t, p)| osa_distance(&q, t, max).filter(|&d| d > 0).map(|d| (*p, d))).collect()
                };
                want.sort_by_key(|&(_, d)| d);
                assert_eq!(idx.lookup(&query, usize::MAX), want, "{query}");
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
