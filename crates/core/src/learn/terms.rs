//! What learning keeps of a request instead of its text: the project analyzer's terms
//! (normalization, stopwords, English stems, CJK bigrams, Korean endings), hashed to 32 bits
//! with their counts, and optionally the model's sentence vector quantized to int8. The text
//! itself is never kept. Also the compact payload a shared store carries for an example.

use crate::enhanced::analyzer::{stem, tokenize, Token};

/// Characters of a request read: a pasted document says nothing more about the tool it needs.
pub const MAX_CHARS: usize = 2000;

/// One request's features: distinct hashed terms (sorted) with their counts, and an optional
/// int8 sentence vector (cosine is scale-free, so no scale is kept).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Features {
    pub terms: Vec<u32>,
    pub counts: Vec<u16>,
    pub vector: Option<Vec<i8>>,
}

impl Features {
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty() && self.vector.is_none()
    }

    /// Bytes the example's features take in memory.
    pub fn heap_bytes(&self) -> usize {
        self.terms.len() * 6 + self.vector.as_ref().map_or(0, Vec::len)
    }
}

/// 32-bit FNV-1a of a term's bytes.
pub fn hash_term(term: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in term.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The first `MAX_CHARS` characters of `text`.
pub fn head(text: &str) -> &str {
    match text.char_indices().nth(MAX_CHARS) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The hashed term counts of `text` (no vector): words by their stem (so "booking" meets
/// "book"), identifiers whole and split, CJK by bigrams and single characters.
pub fn features_of(text: &str) -> Features {
    let mut hashes: Vec<u32> = Vec::new();
    tokenize(head(text), &mut |t| match t {
        Token::Word(w) => hashes.push(hash_term(&stem(w))),
        Token::Whole(w) | Token::Cjk(w) | Token::CjkPart(w) => hashes.push(hash_term(w)),
    });
    hashes.sort_unstable();
    let mut terms = Vec::new();
    let mut counts: Vec<u16> = Vec::new();
    for h in hashes {
        if terms.last() == Some(&h) {
            let c = counts.last_mut().expect("a count per term");
            *c = c.saturating_add(1);
        } else {
            terms.push(h);
            counts.push(1);
        }
    }
    Features { terms, counts, vector: None }
}

/// `v` quantized to int8 (largest component at ±127); None for an all-zero vector (a text
/// with no token the model knows says nothing).
pub fn quantize(v: &[f32]) -> Option<Vec<i8>> {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max <= 0.0 || !max.is_finite() {
        return None;
    }
    let scale = 127.0 / max;
    Some(v.iter().map(|x| (x * scale).round().clamp(-127.0, 127.0) as i8).collect())
}

/// The int8 dot product (exact; the AVX2 kernel beside the document scan's).
pub use crate::semantic::docs::dot_i8;

/// The dot product of two f32 vectors in eight running sums (the compiler keeps them in
/// vector registers; a single running sum would be a chain of dependent scalar adds).
pub fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(&x, &y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

const PAYLOAD_VERSION: u8 = 1;

/// The example's payload for a shared store: base64 of version, term count (u16), terms (u32
/// LE), counts (u16 LE), vector length (u16) and the int8 vector.
pub fn encode_payload(f: &Features) -> String {
    let n = f.terms.len().min(u16::MAX as usize);
    let dim = f.vector.as_ref().map_or(0, |v| v.len().min(u16::MAX as usize));
    let mut bytes = Vec::with_capacity(5 + n * 6 + dim);
    bytes.push(PAYLOAD_VERSION);
    bytes.extend_from_slice(&(n as u16).to_le_bytes());
    for t in &f.terms[..n] {
        bytes.extend_from_slice(&t.to_le_bytes());
    }
    for c in &f.counts[..n] {
        bytes.extend_from_slice(&c.to_le_bytes());
    }
    bytes.extend_from_slice(&(dim as u16).to_le_bytes());
    if let Some(v) = &f.vector {
        bytes.extend(v[..dim].iter().map(|&x| x as u8));
    }
    base64_encode(&bytes)
}

/// The features a payload carries, or None when it is not one (a foreign or corrupted record
/// is ignored, never trusted: terms must be sorted and distinct, counts positive, vector
/// values within ±127).
pub fn decode_payload(payload: &str) -> Option<Features> {
    let bytes = base64_decode(payload)?;
    let (&version, rest) = bytes.split_first()?;
    if version != PAYLOAD_VERSION || rest.len() < 2 {
        return None;
    }
    let n = u16::from_le_bytes([rest[0], rest[1]]) as usize;
    let mut at = 2;
    let need = at + n * 6 + 2;
    if rest.len() < need {
        return None;
    }
    let terms: Vec<u32> = (0..n).map(|i| u32::from_le_bytes(rest[at + 4 * i..at + 4 * i + 4].try_into().unwrap())).collect();
    at += 4 * n;
    let counts: Vec<u16> = (0..n).map(|i| u16::from_le_bytes([rest[at + 2 * i], rest[at + 2 * i + 1]])).collect();
    at += 2 * n;
    let dim = u16::from_le_bytes([rest[at], rest[at + 1]]) as usize;
    at += 2;
    // (-128 is never quantized: `dot_i8` is exact within ±127)
    if rest.len() != at + dim || terms.windows(2).any(|w| w[0] >= w[1]) || counts.contains(&0) || rest[at..].contains(&0x80) {
        return None;
    }
    let vector = (dim > 0).then(|| rest[at..].iter().map(|&b| b as i8).collect());
    Some(Features { terms, counts, vector })
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = B64.iter().position(|&x| x == c)? as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_f32_equals_the_plain_sum() {
        for len in [0usize, 1, 7, 8, 9, 64, 257] {
            let a: Vec<f32> = (0..len).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..len).map(|i| (i as f32 * 0.11).cos()).collect();
            let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot_f32(&a, &b) - plain).abs() <= 1e-4 * (1.0 + plain.abs()), "len {len}");
        }
    }
}
