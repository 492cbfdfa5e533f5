//! Document vectors and exact top-k by cosine.
//!
//! Rows are unit vectors stored as i8 with one scale per row; a query is quantized the
//! same way and scored with exact integer dot products: 4× less memory to stream per query
//! than f32, and 32 products per VNNI instruction (AVX2: per instruction pair). 10,000 ×
//! 256 takes ~70–90 µs on the 2-core dev VMs and 10,000 × 384 ~135 µs, bound by streaming
//! the matrix (1,000 rows in cache: ~5 µs); the auto-vectorized loop took ~240 µs. Sets of a
//! megabyte or more are scanned in chunks shared with a helper thread (`helper`).
//! Quantization moves cosines by about 1e-3.

use std::sync::Arc;

use super::helper;
use super::model::{normalize, Encoder, Script, StaticModel};
use super::Fusion;

/// Sets at least this large embed on two threads (a thread costs tens of µs to start).
const PARALLEL_MIN_TEXTS: usize = 2048;

/// `f` of each half of `items`, the second half on a scoped thread (on the caller when no
/// thread can be started).
fn in_two_halves<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T]) -> R + Sync) -> [R; 2] {
    let (first, second) = items.split_at(items.len() / 2);
    let (head, tail) = std::thread::scope(|scope| {
        let tail = std::thread::Builder::new().spawn_scoped(scope, || f(second));
        (f(first), tail.map(|h| h.join()))
    });
    match tail {
        Ok(Ok(tail)) => [head, tail],
        // No thread could be started: finish here.
        _ => [head, f(second)],
    }
}

/// Document sets at least this large (rows × dim bytes) are scanned with the helper thread
/// (see `helper`); smaller ones sit in cache and take a few µs alone.
const SHARED_SCAN_MIN_BYTES: usize = 1 << 20;
/// Rows per chunk of a shared scan: ~100 KB, a few µs, so that the caller waits at most
/// that long for a chunk the helper has begun.
const SCAN_CHUNK_ROWS: usize = 256;

/// Unit vectors of a document set, quantized per row.
#[derive(Debug, Clone)]
pub struct DocVectors {
    dim: usize,
    rows: Vec<i8>,
    /// Per row: the factor from the i8 dot product with a quantized query to a cosine
    /// (0 for a document with no vector).
    scales: Vec<f32>,
    /// Per row: the sum of its i8 values (the VNNI path scores `q + 128` as unsigned bytes
    /// and subtracts `128 * sum`).
    sums: Vec<i32>,
}

/// A query vector quantized to i8 with its scale.
pub struct QuantizedQuery {
    values: Vec<i8>,
    scale: f32,
}

/// i8 values and the scale that maps them back (`x ≈ scale * q`).
fn quantize(v: &[f32], out: &mut Vec<i8>) -> f32 {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        out.extend(std::iter::repeat_n(0, v.len()));
        return 0.0;
    }
    let scale = max / 127.0;
    let inverse = 127.0 / max;
    // Round half away from zero by adding ±0.5 and truncating: `f32::round` is a libm
    // call per value, this vectorizes. |x * inverse| <= 127, so the cast cannot overflow.
    out.extend(v.iter().map(|&x| {
        let y = x * inverse;
        (y + 0.5f32.copysign(y)).clamp(-127.0, 127.0) as i8
    }));
    scale
}

impl DocVectors {
    pub fn new(dim: usize) -> Self {
        Self { dim, rows: Vec::new(), scales: Vec::new(), sums: Vec::new() }
    }

    /// Embeds each text as [`StaticModel::embed`] does, one row each, in order.
    pub fn build<'t>(model: &StaticModel, texts: impl IntoIterator<Item = &'t str>) -> Self {
        let mut docs = Self::new(model.dim());
        let mut encoder = Encoder::new(model);
        let mut sum = vec![0.0; model.dim()];
        for text in texts {
            sum.fill(0.0);
            encoder.add_text(text, &mut sum);
            model.finish(text, &mut sum);
            docs.push_unit(&sum);
        }
        docs
    }

    /// [`Self::build`] over a slice; large sets are embedded on two threads (each with its
    /// own word cache), as embedding is most of a hybrid build.
    pub fn build_many<T: AsRef<str> + Sync>(model: &StaticModel, texts: &[T]) -> Self {
        let build = |texts: &[T]| Self::build(model, texts.iter().map(AsRef::as_ref));
        if texts.len() < PARALLEL_MIN_TEXTS {
            return build(texts);
        }
        let [mut docs, rest] = in_two_halves(texts, build);
        docs.append(rest);
        docs
    }

    /// Appends `other`'s rows (same dimension).
    pub fn append(&mut self, other: DocVectors) {
        self.rows.extend_from_slice(&other.rows);
        self.scales.extend_from_slice(&other.scales);
        self.sums.extend_from_slice(&other.sums);
    }

    /// Appends a row from a sum of token vectors (normalized here).
    pub fn push_unnormalized(&mut self, sum: &mut [f32]) {
        normalize(sum);
        self.push_unit(sum);
    }

    /// Appends a unit (or zero) vector.
    pub fn push_unit(&mut self, v: &[f32]) {
        debug_assert_eq!(v.len(), self.dim);
        let start = self.rows.len();
        let scale = quantize(v, &mut self.rows);
        self.scales.push(scale);
        self.sums.push(self.rows[start..].iter().map(|&x| i32::from(x)).sum());
    }

    /// Appends row `i` of `other` (same dimension) without re-embedding.
    pub fn push_row_of(&mut self, other: &DocVectors, i: usize) {
        self.rows.extend_from_slice(&other.rows[i * self.dim..(i + 1) * self.dim]);
        self.scales.push(other.scales[i]);
        self.sums.push(other.sums[i]);
    }

    pub fn len(&self) -> usize {
        self.scales.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn heap_bytes(&self) -> usize {
        self.rows.len() + self.scales.len() * 4
    }

    /// Per row: 1 / the norm of its first `head` values (0 for a row with none).
    pub fn inverse_head_norms(&self, head: usize) -> Vec<f32> {
        (0..self.len())
            .map(|i| {
                let row = &self.rows[i * self.dim..i * self.dim + head];
                let norm = self.scales[i] * row.iter().map(|&x| f32::from(x) * f32::from(x)).sum::<f32>().sqrt();
                if norm > 0.0 { 1.0 / norm } else { 0.0 }
            })
            .collect()
    }

    /// Quantizes a unit query vector for [`Self::cosines`].
    pub fn query(&self, v: &[f32]) -> QuantizedQuery {
        let mut values = Vec::with_capacity(self.dim);
        let scale = quantize(v, &mut values);
        QuantizedQuery { values, scale }
    }

    /// Cosine of the query with every row, in row order.
    pub fn cosines(&self, q: &QuantizedQuery) -> Vec<f32> {
        let mut out = vec![0.0; self.len()];
        if q.scale == 0.0 || q.values.len() != self.dim {
            return out;
        }
        let n = self.len();
        if n * self.dim < SHARED_SCAN_MIN_BYTES {
            dots(&self.rows, &self.sums, &q.values, self.dim, &mut out);
        } else {
            // Chunks of rows for this thread and the helper (see `helper`), each writing its
            // own part of `out` (each part's lock is taken once, by whoever claims it).
            let parts: Vec<std::sync::Mutex<&mut [f32]>> = out.chunks_mut(SCAN_CHUNK_ROWS).map(std::sync::Mutex::new).collect();
            helper::for_each_chunk(parts.len(), &|c| {
                let rows = c * SCAN_CHUNK_ROWS..((c + 1) * SCAN_CHUNK_ROWS).min(n);
                let mut part = parts[c].lock().unwrap_or_else(|e| e.into_inner());
                dots(&self.rows[rows.start * self.dim..rows.end * self.dim], &self.sums[rows], &q.values, self.dim, &mut part);
            });
        }
        for (c, s) in out.iter_mut().zip(&self.scales) {
            *c *= s * q.scale;
        }
        out
    }

    /// Cosine of the query with row `row` alone (0 past the end).
    pub fn cosine_at(&self, q: &QuantizedQuery, row: usize) -> f32 {
        if q.scale == 0.0 || q.values.len() != self.dim || row >= self.len() {
            return 0.0;
        }
        let mut out = [0.0f32];
        dots_portable(&self.rows[row * self.dim..(row + 1) * self.dim], &q.values, self.dim, &mut out);
        out[0] * self.scales[row] * q.scale
    }

    /// Per row: its mean cosine to its `k` most similar other rows of its own `class`
    /// (CJK text or not), among at most `pool` of them spread evenly over the set. A static
    /// model's vectors crowd: some documents sit close to many others and so to many
    /// queries (hubs), and outrank the right document on requests they share little with;
    /// CSLS (Conneau et al., 2018) lowers each candidate by this. Within its class, because
    /// requests meet documents in their own language: in a catalog of mostly English tools
    /// a pool over all of them would measure a Chinese description against English ones.
    pub fn crowding(&self, k: usize, pool: usize, class: &[bool]) -> Vec<f32> {
        let n = self.len();
        let mut out = vec![0.0; n];
        if n < 2 || k == 0 || pool == 0 {
            return out;
        }
        for c in [false, true] {
            let rows: Vec<usize> = (0..n).filter(|&i| class.get(i).copied().unwrap_or(false) == c).collect();
            let members: Vec<usize> =
                if rows.len() <= pool { rows.clone() } else { (0..pool).map(|i| rows[i * rows.len() / pool]).collect() };
            for (&i, value) in rows.iter().zip(self.crowding_among(&rows, &members, k)) {
                out[i] = value;
            }
        }
        out
    }

    /// [`Self::crowding`] of `rows` against `members` (two threads for many rows).
    fn crowding_among(&self, rows: &[usize], members: &[usize], k: usize) -> Vec<f32> {
        let dim = self.dim;
        let mut pooled = DocVectors::new(dim);
        for &m in members {
            pooled.push_row_of(self, m);
        }
        let crowding_of = |rows: &[usize]| -> Vec<f32> {
            let mut dot = vec![0.0; members.len()];
            let mut cosines = Vec::with_capacity(members.len());
            rows.iter()
                .map(|&i| {
                    if self.scales[i] == 0.0 {
                        return 0.0;
                    }
                    dots(&pooled.rows, &pooled.sums, &self.rows[i * dim..(i + 1) * dim], dim, &mut dot);
                    cosines.clear();
                    let others = members.iter().zip(&dot).zip(&pooled.scales).filter(|((&m, _), _)| m != i);
                    cosines.extend(others.map(|((_, &d), &s)| d * s * self.scales[i]));
                    let k = k.min(cosines.len());
                    if k == 0 {
                        return 0.0;
                    }
                    cosines.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
                    cosines[..k].iter().sum::<f32>() / k as f32
                })
                .collect()
        };
        if rows.len() < PARALLEL_MIN_TEXTS {
            return crowding_of(rows);
        }
        let [mut out, rest] = in_two_halves(rows, crowding_of);
        out.extend(rest);
        out
    }

    /// The `k` rows most similar to the query, best first (ties by row order).
    pub fn top(&self, q: &QuantizedQuery, k: usize) -> Vec<(u32, f32)> {
        top_k(&self.cosines(q), k)
    }
}

/// The `k` largest values with their positions, best first, ties by position.
pub fn top_k(values: &[f32], k: usize) -> Vec<(u32, f32)> {
    let better = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if k == 0 {
        return Vec::new();
    }
    // (a k past the values, e.g. a skill search's unbounded topK, is all of them; 2k must not overflow)
    let k = k.min(values.len().max(1));
    // Candidates above a running threshold; compacted to the best k whenever 2k gather.
    // Most values fail the one comparison, so this beats a full select on 10k+ values.
    let mut kept: Vec<(u32, f32)> = Vec::with_capacity(2 * k + 1);
    let mut threshold = f32::NEG_INFINITY;
    for (i, &v) in values.iter().enumerate() {
        if v >= threshold && !v.is_nan() {
            kept.push((i as u32, v));
            if kept.len() >= 2 * k {
                kept.select_nth_unstable_by(k - 1, better);
                kept.truncate(k);
                threshold = kept.iter().map(|x| x.1).fold(f32::INFINITY, f32::min);
            }
        }
    }
    kept.sort_unstable_by(better);
    kept.truncate(k);
    kept
}

/// The best of `values` less the `depth`-th best (NaN never counts); 0 when there are fewer.
fn span(values: &[f32], depth: usize) -> f32 {
    let mut finite: Vec<f32> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    if finite.len() < 2 || depth < 2 {
        return 0.0;
    }
    let nth = (depth - 1).min(finite.len() - 1);
    let (_, kth, _) = finite.select_nth_unstable_by(nth, |a, b| b.total_cmp(a));
    let kth = *kth;
    finite[..nth].iter().copied().fold(kth, f32::max) - kth
}

/// `out[r] = rows[r] · q` in i32 (exact), as f32. `sums` (each row's byte sum) serves the
/// AVX-VNNI path only.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
fn dots(rows: &[i8], sums: &[i32], q: &[i8], dim: usize, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if dim.is_multiple_of(32) && std::arch::is_x86_feature_detected!("avxvnni") && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX-VNNI and AVX2 (checked just above).
            unsafe { dots_vnni(rows, sums, q, dim, out) };
            return;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { dots_avx2(rows, q, dim, out) };
            return;
        }
    }
    dots_portable(rows, q, dim, out);
}

/// AVX2: 32 products per step with the sign trick (`|q| * (r * sign q)` as unsigned ×
/// signed bytes, so `maddubs` applies; values are within ±127, so its pair sums of at most
/// 2·127² never saturate), widened to i32 by `madd` with ones. Exact, like the portable loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dots_avx2(rows: &[i8], q: &[i8], dim: usize, out: &mut [f32]) {
    use std::arch::x86_64::*;
    if !dim.is_multiple_of(32) {
        return dots_portable(rows, q, dim, out);
    }
    let steps = dim / 32;
    let mut q_abs = Vec::with_capacity(steps);
    let mut q_sign = Vec::with_capacity(steps);
    for i in 0..steps {
        let v = _mm256_loadu_si256(q.as_ptr().add(i * 32) as *const __m256i);
        q_abs.push(_mm256_abs_epi8(v));
        q_sign.push(v);
    }
    let ones = _mm256_set1_epi16(1);
    for (row, o) in rows.chunks_exact(dim).zip(out.iter_mut()) {
        let mut acc = _mm256_setzero_si256();
        for i in 0..steps {
            let r = _mm256_loadu_si256(row.as_ptr().add(i * 32) as *const __m256i);
            let pairs = _mm256_maddubs_epi16(q_abs[i], _mm256_sign_epi8(r, q_sign[i]));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
        }
        *o = hsum_epi32(acc) as f32;
    }
}

/// AVX-VNNI: `dpbusd` sums four unsigned × signed byte products into each i32 lane, 32
/// products per instruction without saturation. The query is offset to unsigned
/// (`q + 128`), so each row's dot gains `128 * sum(row)`, subtracted at the end. Exact.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avxvnni")]
unsafe fn dots_vnni(rows: &[i8], sums: &[i32], q: &[i8], dim: usize, out: &mut [f32]) {
    use std::arch::x86_64::*;
    let steps = dim / 32;
    let offset = _mm256_set1_epi8(-128);
    let q_unsigned: Vec<__m256i> =
        (0..steps).map(|i| _mm256_xor_si256(_mm256_loadu_si256(q.as_ptr().add(i * 32) as *const __m256i), offset)).collect();
    for ((row, o), &sum) in rows.chunks_exact(dim).zip(out.iter_mut()).zip(sums) {
        let mut acc = _mm256_setzero_si256();
        for (i, qu) in q_unsigned.iter().enumerate() {
            let r = _mm256_loadu_si256(row.as_ptr().add(i * 32) as *const __m256i);
            acc = _mm256_dpbusd_avx_epi32(acc, *qu, r);
        }
        *o = (hsum_epi32(acc) - 128 * sum) as f32;
    }
}

fn dots_portable(rows: &[i8], q: &[i8], dim: usize, out: &mut [f32]) {
    for (row, o) in rows.chunks_exact(dim).zip(out.iter_mut()) {
        *o = dot_i8_portable(row, q) as f32;
    }
}

fn dot_i8_portable(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).map(|(&x, &y)| i32::from(x) * i32::from(y)).sum()
}

/// The sum of an AVX2 register's eight i32 lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn hsum_epi32(acc: std::arch::x86_64::__m256i) -> i32 {
    use std::arch::x86_64::*;
    let s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
    _mm_cvtsi128_si32(s)
}

/// One int8 dot product of two vectors (the shorter one's length counts), exact in i32 for
/// values within ±127 (learned requests' vectors: `learn::quantize` clamps there).
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let len = a.len().min(b.len());
    #[cfg(target_arch = "x86_64")]
    {
        if len >= 32 && std::arch::is_x86_feature_detected!("avx2") {
            let whole = len - len % 32;
            // SAFETY: the CPU supports AVX2 (checked just above); both slices hold `whole` bytes.
            let head = unsafe { dot_i8_avx2(&a[..whole], &b[..whole]) };
            return head + dot_i8_portable(&a[whole..len], &b[whole..len]);
        }
    }
    dot_i8_portable(&a[..len], &b[..len])
}

/// [`dots_avx2`]'s sign trick for one pair (-128, whose negation wraps, is outside ±127).
/// `a.len()` is a multiple of 32 and `b` as long.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_i8_avx2(a: &[i8], b: &[i8]) -> i32 {
    use std::arch::x86_64::*;
    let ones = _mm256_set1_epi16(1);
    let mut acc = _mm256_setzero_si256();
    for i in (0..a.len()).step_by(32) {
        let x = _mm256_loadu_si256(a.as_ptr().add(i) as *const __m256i);
        let y = _mm256_loadu_si256(b.as_ptr().add(i) as *const __m256i);
        let pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(x), _mm256_sign_epi8(y, x));
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
    }
    hsum_epi32(acc)
}

/// A model and the vectors of one document set.
#[derive(Debug, Clone)]
pub struct SemanticDocs {
    /// The shipped model that embedded the documents and embeds queries; None for documents
    /// built from a user's vectors alone ([`Self::from_rows`]), which rank given query vectors only.
    pub model: Option<Arc<StaticModel>>,
    pub vectors: DocVectors,
    /// Per document: whether its text has CJK characters (its script is not Latin), which
    /// the fusion needs to know what the model can compare with a query.
    pub cjk: Vec<bool>,
    /// Per document: the script of its text (see [`Script`]), for the fusion's same-script
    /// share.
    scripts: Vec<Script>,
    /// Per document: its crowding (see [`DocVectors::crowding`]); a query's fusion says
    /// how much of it to take off the document's cosine.
    crowding: Vec<f32>,
    /// With a model whose last dimensions are Latin-only ([`StaticModel::latin_tail`]): that
    /// tail's length, and per document 1 / the norm of its vector without the tail. A text
    /// and a document of which one is not Latin are compared on the shared dimensions alone
    /// (the cosine of the heads): otherwise an English document's tail would lower its
    /// cosine with every request in another language.
    tail: usize,
    inverse_head_norms: Vec<f32>,
    /// Whether any document is not Latin (else a Latin query needs no head factors).
    any_cjk: bool,
}

impl SemanticDocs {
    /// `scripts`: each document's script (see [`Script::of_parts`]).
    pub fn new(model: Arc<StaticModel>, vectors: DocVectors, scripts: Vec<Script>) -> Self {
        Self::with_model(Some(model), vectors, scripts)
    }

    fn with_model(model: Option<Arc<StaticModel>>, vectors: DocVectors, scripts: Vec<Script>) -> Self {
        let tail = model.as_ref().map_or(0, |m| m.latin_tail()).min(vectors.dim());
        Self::with_tail(model, vectors, scripts, tail)
    }

    /// `tail`: the model's Latin-only tail when `vectors` are the model's, else 0.
    fn with_tail(model: Option<Arc<StaticModel>>, vectors: DocVectors, scripts: Vec<Script>, tail: usize) -> Self {
        let cjk: Vec<bool> = scripts.iter().map(|&s| s != Script::Latin).collect();
        let crowding = vectors.crowding(CROWDING_NEIGHBOURS, CROWDING_POOL, &cjk);
        let inverse_head_norms = if tail == 0 { Vec::new() } else { vectors.inverse_head_norms(vectors.dim() - tail) };
        let any_cjk = cjk.iter().any(|&c| c);
        Self { model, vectors, cjk, scripts, crowding, tail, inverse_head_norms, any_cjk }
    }

    /// The factor turning the full cosine of a query (of `script`, with vector `v`) with
    /// each document into the one [`Self::top`] ranks by: 1 when both are Latin or the model
    /// has no tail, else the cosine of the heads (see `tail`). None when no factor applies.
    fn head_factors(&self, v: &[f32], script: Script) -> Option<Vec<f32>> {
        // (a Latin query over Latin documents only: every factor is 1, the common case)
        if self.tail == 0 || (script == Script::Latin && !self.any_cjk) {
            return None;
        }
        let head = v.len() - self.tail;
        let query_head = v[..head].iter().map(|x| x * x).sum::<f32>().sqrt();
        let inverse_query = if query_head > 0.0 { 1.0 / query_head } else { 0.0 };
        let latin = script == Script::Latin;
        Some(
            self.scripts
                .iter()
                .zip(&self.inverse_head_norms)
                .map(|(&doc, &inverse_doc)| match (latin, doc == Script::Latin) {
                    (true, true) => 1.0,
                    (true, false) => inverse_query,
                    (false, _) => inverse_doc,
                })
                .collect(),
        )
    }

    /// Documents from a user's vectors alone (no shipped model): `rows` one per document of
    /// `scripts`, `dim` values each (normalized here). None when they do not fit.
    pub fn from_rows(rows: &[f32], dim: usize, scripts: Vec<Script>) -> Option<Self> {
        let vectors = rows_to_vectors(rows, dim, scripts.len())?;
        Some(Self::with_model(None, vectors, scripts))
    }

    /// The model's plain cosine of `query` with each of `rows` (no crowding, no script share).
    pub fn plain_cosines(&self, query: &str, rows: &[u32]) -> Vec<f32> {
        self.plain_cosines_of(self.embed(query).as_ref(), rows)
    }

    /// The model's vector of `query` and its script, for [`Self::top_embedded`] and
    /// [`Self::plain_cosines_of`] (one embedding for both); None without a model or documents.
    pub fn embed(&self, query: &str) -> Option<(Vec<f32>, Script)> {
        let model = self.model.as_ref().filter(|_| !self.vectors.is_empty())?;
        let script = Script::of(query);
        // What the request names by its shape ("src/app.ts": a file) joins the text the model
        // reads, as it joins the lexical query (enhanced::shapes): the model has no vector for
        // "acme/web" either. (MCP recall@5, hybrid: dev 0.887 -> 0.903, test 0.887 -> 0.903;
        // MetaTool, multilingual and BFCL recall@5 no lower.)
        let shapes = crate::enhanced::shapes::shape_words(query);
        if !shapes.is_empty() {
            let text = format!("{query} {}", shapes.join(" "));
            return Some((model.embed_as(&text, script), script));
        }
        Some((model.embed_as(query, script), script))
    }

    /// [`Self::plain_cosines`] of a query embedded by [`Self::embed`] (None: all 0).
    pub fn plain_cosines_of(&self, embedded: Option<&(Vec<f32>, Script)>, rows: &[u32]) -> Vec<f32> {
        let Some((v, script)) = embedded else {
            return vec![0.0; rows.len()];
        };
        let (v, script) = (v.as_slice(), *script);
        let factors = self.head_factors(v, script);
        let q = self.vectors.query(v);
        rows.iter()
            .map(|&r| self.vectors.cosine_at(&q, r as usize) * factors.as_ref().map_or(1.0, |f| f.get(r as usize).copied().unwrap_or(1.0)))
            .collect()
    }

    /// The `k` documents closest to `query`, best first, with their similarity: the
    /// cosine less the fusion's crowding share times the document's crowding, plus its
    /// same-script share when the document's script is the query's. Only documents with a
    /// positive cosine are candidates (a query without any known token has cosine 0 with
    /// everything).
    pub fn top(&self, query: &str, k: usize, fusion: &Fusion) -> Vec<(u32, f32)> {
        self.top_embedded(self.embed(query).as_ref(), query, k, fusion)
    }

    /// [`Self::top`] of `query` embedded by [`Self::embed`] (None: nothing).
    pub fn top_embedded(&self, embedded: Option<&(Vec<f32>, Script)>, query: &str, k: usize, fusion: &Fusion) -> Vec<(u32, f32)> {
        match embedded {
            Some((v, script)) if k > 0 => self.top_of(v, *script, k, fusion, query),
            _ => Vec::new(),
        }
    }

    /// [`Self::top`] with the query's vector given (a user's embedder; normalized here) for
    /// documents built by [`Self::with_rows`]. A vector of another dimension finds nothing.
    pub fn top_for_vector(&self, query: &str, vector: &[f32], k: usize, fusion: &Fusion) -> Vec<(u32, f32)> {
        if self.vectors.is_empty() || k == 0 || vector.len() != self.vectors.dim() || vector.iter().any(|x| !x.is_finite()) {
            return Vec::new();
        }
        let mut v = vector.to_vec();
        normalize(&mut v);
        self.top_of(&v, Script::of(query), k, fusion, query)
    }

    fn top_of(&self, v: &[f32], script: Script, k: usize, fusion: &Fusion, query: &str) -> Vec<(u32, f32)> {
        let crowding = fusion.crowding(query);
        let same_script = fusion.same_script as f32;
        let mut values = self.vectors.cosines(&self.vectors.query(v));
        if let Some(factors) = self.head_factors(v, script) {
            for (c, f) in values.iter_mut().zip(factors) {
                *c *= f;
            }
        }
        let relative = fusion.same_script_span as f32;
        if relative > 0.0 {
            // (a user's embedder: the share of the cosine span needs every cosine first)
            for (c, &crowded) in values.iter_mut().zip(&self.crowding) {
                *c = if *c > 0.0 { *c - crowding * crowded } else { f32::NAN };
            }
            let bonus = same_script + relative * span(&values, fusion.semantic_depth.max(k));
            for (c, &doc_script) in values.iter_mut().zip(&self.scripts) {
                if doc_script == script {
                    *c += bonus;
                }
            }
        } else {
            for ((c, &crowded), &doc_script) in values.iter_mut().zip(&self.crowding).zip(&self.scripts) {
                let bonus = if doc_script == script { same_script } else { 0.0 };
                // (NaN is never selected)
                *c = if *c > 0.0 { *c - crowding * crowded + bonus } else { f32::NAN };
            }
        }
        top_k(&values, k)
    }

    /// These documents with `rows` (one per document, in order, `dim` values each; normalized
    /// here) in place of the model's vectors: a user's embedder. None when the rows do not
    /// fit or hold a non-finite value.
    pub fn with_rows(&self, rows: &[f32], dim: usize) -> Option<SemanticDocs> {
        let vectors = rows_to_vectors(rows, dim, self.vectors.len())?;
        Some(SemanticDocs::with_tail(self.model.clone(), vectors, self.scripts.clone(), 0))
    }
}

/// `count` rows of `dim` values as unit vectors; None when they do not fit or hold a non-finite value.
fn rows_to_vectors(rows: &[f32], dim: usize, count: usize) -> Option<DocVectors> {
    if dim == 0 || rows.len() != dim * count || rows.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut vectors = DocVectors::new(dim);
    let mut row = vec![0.0; dim];
    for chunk in rows.chunks_exact(dim) {
        row.copy_from_slice(chunk);
        vectors.push_unnormalized(&mut row);
    }
    Some(vectors)
}

/// A document's crowding is its mean cosine to this many closest documents ...
const CROWDING_NEIGHBOURS: usize = 10;
/// ... among at most this many of its class (spread evenly over it): the cost is linear in
/// the set (10,000 documents: ~6 ms on two threads; 256 took twice that and ranked the
/// same in `examples/hybrid.rs quality` and `scale`).
const CROWDING_POOL: usize = 128;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every SIMD path this CPU has gives the portable loop's exact sums.
    #[test]
    fn simd_dot_products_equal_the_portable_loop() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) % 255) as i32 - 127
        };
        for dim in [32usize, 64, 256, 40] {
            let rows: Vec<i8> = (0..dim * 37).map(|_| next() as i8).collect();
            let q: Vec<i8> = (0..dim).map(|_| next() as i8).collect();
            // extremes: ±127 everywhere
            let mut rows_ext = rows.clone();
            rows_ext[..dim].fill(127);
            rows_ext[dim..2 * dim].fill(-127);
            let sums: Vec<i32> = rows_ext.chunks(dim).map(|r| r.iter().map(|&x| i32::from(x)).sum()).collect();
            let mut want = vec![0.0; 37];
            dots_portable(&rows_ext, &q, dim, &mut want);
            let mut got = vec![0.0; 37];
            dots(&rows_ext, &sums, &q, dim, &mut got);
            assert_eq!(got, want, "dim {dim}");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") && dim % 32 == 0 {
                let mut avx2 = vec![0.0; 37];
                unsafe { dots_avx2(&rows_ext, &q, dim, &mut avx2) };
                assert_eq!(avx2, want, "avx2 dim {dim}");
            }
        }
    }

    /// The learned requests' dot product (learn/terms.rs uses it) is exact at every length.
    #[test]
    fn dot_i8_equals_the_plain_sum_at_every_length_and_at_the_extremes() {
        let mut seed = 12345u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            ((seed >> 16) as u8 as i8).max(-127)
        };
        for len in [0, 1, 31, 32, 33, 64, 100, 256, 511, 512] {
            let a: Vec<i8> = (0..len).map(|_| next()).collect();
            let b: Vec<i8> = (0..len).map(|_| next()).collect();
            let plain: i32 = a.iter().zip(&b).map(|(&x, &y)| x as i32 * y as i32).sum();
            assert_eq!(dot_i8(&a, &b), plain, "len {len}");
            let low = vec![-127i8; len];
            let high = vec![127i8; len];
            assert_eq!(dot_i8(&low, &high), -127 * 127 * len as i32, "len {len}");
            assert_eq!(dot_i8(&low, &low), 127 * 127 * len as i32, "len {len}");
        }
        // (unequal lengths: the shorter one counts)
        assert_eq!(dot_i8(&[1; 40], &[2; 33]), 66);
    }

    /// A set large enough for the shared scan (two threads, in chunks) scores every row as
    /// one thread does, the last partial chunk included.
    #[test]
    fn a_shared_scan_scores_every_row_as_one_thread_does() {
        let mut next = crate::test_support::xorshift(11);
        let (n, dim) = (SHARED_SCAN_MIN_BYTES / 384 + SCAN_CHUNK_ROWS + 37, 384);
        let mut docs = DocVectors::new(dim);
        for _ in 0..n {
            let mut v: Vec<f32> = (0..dim).map(|_| next(2001) as f32 - 1000.0).collect();
            normalize(&mut v);
            docs.push_unit(&v);
        }
        let mut v: Vec<f32> = (0..dim).map(|_| next(2001) as f32 - 1000.0).collect();
        normalize(&mut v);
        let q = docs.query(&v);
        let got = docs.cosines(&q);
        assert_eq!(got.len(), n);
        for (i, &c) in got.iter().enumerate() {
            let mut dot = [0.0f32];
            dots_portable(&docs.rows[i * dim..(i + 1) * dim], &q.values, dim, &mut dot);
            assert_eq!(c.to_bits(), (dot[0] * (docs.scales[i] * q.scale)).to_bits(), "row {i}");
        }
    }

    #[test]
    fn top_k_matches_a_full_sort() {
        let values: Vec<f32> = (0..1000).map(|i| ((i * 7919) % 1000) as f32 / 10.0).collect();
        for k in [1, 5, 50, 999, 2000] {
            let mut all: Vec<(u32, f32)> = values.iter().enumerate().map(|(i, &v)| (i as u32, v)).collect();
            all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            all.truncate(k);
            assert_eq!(top_k(&values, k), all, "k {k}");
        }
    }
}
