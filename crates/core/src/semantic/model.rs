//! The static embedding model: loading `model.bin`, tokenizing, sentence vectors.
//!
//! Format (little-endian; see the model package's README): magic `MNPSEMB1`, `dim`,
//! `vocab`, `unk_id`, `flags` (u32 each), then `vocab` piece records (u16 byte length,
//! UTF-8 bytes, f32 unigram score), `vocab` f32 row scales, and `vocab × dim` i8 values.
//! Token `i`'s vector is `scales[i] * vectors[i]`. With flag bit3, per-script mean sentence
//! vectors follow: u32 count, then per mean a u8 name length, the name (`latin`, `zh-Hans`,
//! `zh-Hant`, `ja`, `ko`; others are skipped) and `dim` f32 values. With flag bit4, a u32
//! `latin_tail` follows: the last `latin_tail` dimensions carry an English-only signal, and a
//! text in any other script has them zeroed (see [`StaticModel::finish`]).

use std::borrow::Cow;

use rustc_hash::FxHashMap as HashMap;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

const MAGIC: &[u8; 8] = b"MNPSEMB1";
/// bit0: lowercase input; bit1: NFKC input; bit2: words start with U+2581.
const FLAG_LOWERCASE: u32 = 1;
const FLAG_NFKC: u32 = 2;
const FLAG_WORD_MARKER: u32 = 4;
/// bit3: per-script mean sentence vectors follow the rows (see [`Script`]).
const FLAG_SCRIPT_MEANS: u32 = 8;
/// bit4: the last `latin_tail` dimensions are for Latin-script text only.
const FLAG_LATIN_TAIL: u32 = 16;
const WORD_MARKER: char = '\u{2581}';
/// Largest accepted dimension: far above any useful static model, and it bounds the
/// per-query work a hostile file can cause.
const MAX_DIM: u32 = 4096;

/// Why bytes are not a usable model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    BadMagic,
    /// The file ends inside `what`.
    Truncated { what: &'static str },
    ZeroDim,
    DimTooLarge { dim: u32 },
    EmptyVocab,
    UnknownIdOutOfRange { unk_id: u32, vocab: u32 },
    PieceNotUtf8 { index: u32 },
    NonFiniteScore { index: u32 },
    NonFiniteScale { index: u32 },
    NonFiniteMean { script: String },
    LatinTailTooLarge { tail: u32, dim: u32 },
    TrailingBytes { extra: usize },
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BadMagic => write!(f, "not a static embedding model: the file does not start with \"MNPSEMB1\""),
            Self::Truncated { what } => write!(f, "model file is truncated: it ends inside the {what}"),
            Self::ZeroDim => write!(f, "model dimension is 0"),
            Self::DimTooLarge { dim } => write!(f, "model dimension {dim} is larger than {MAX_DIM}"),
            Self::EmptyVocab => write!(f, "model vocabulary is empty"),
            Self::UnknownIdOutOfRange { unk_id, vocab } => {
                write!(f, "model unknown-token id {unk_id} is outside the vocabulary of {vocab} pieces")
            }
            Self::PieceNotUtf8 { index } => write!(f, "model piece {index} is not valid UTF-8"),
            Self::NonFiniteScore { index } => write!(f, "model piece {index} has a non-finite score"),
            Self::NonFiniteScale { index } => write!(f, "model row {index} has a non-finite scale"),
            Self::NonFiniteMean { script } => write!(f, "model mean vector of script {script:?} has a non-finite value"),
            Self::LatinTailTooLarge { tail, dim } => {
                write!(f, "model Latin-only tail of {tail} dimensions is not smaller than its dimension {dim}")
            }
            Self::TrailingBytes { extra } => write!(f, "model file has {extra} unexpected bytes after the vectors"),
        }
    }
}

impl std::error::Error for ModelError {}

/// A reader over the file bytes that reports where it ran out.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ModelError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(ModelError::Truncated { what })?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, ModelError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn f32(&mut self, what: &'static str) -> Result<f32, ModelError> {
        Ok(f32::from_bits(self.u32(what)?))
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }
}

/// A loaded model: piece lookup for the tokenizer and the quantized vector table.
pub struct StaticModel {
    dim: usize,
    unk_id: u32,
    flags: u32,
    pieces: PieceTrie,
    scores: Vec<f32>,
    scales: Vec<f32>,
    vectors: Vec<i8>,
    /// Score of an unknown-character step (below every piece, as SentencePiece does).
    unk_score: f32,
    /// Per [`Script`]: the mean unit sentence vector of text in that script, when the file
    /// has one (see [`StaticModel::finish`]).
    means: [Option<Box<[f32]>>; Script::COUNT],
    /// How much of its script's mean is taken off a sentence vector.
    centering: f32,
    /// Trailing dimensions only Latin-script text keeps (an English teacher's signal, which
    /// would otherwise only add noise to the other scripts' vectors).
    latin_tail: usize,
    /// Which model this is (its file's bytes and the centering, hashed): sentence vectors of
    /// two models are not comparable, so vectors another process kept (a shared learning
    /// store) are used only when they carry the same fingerprint.
    fingerprint: u64,
    /// Queries' words already segmented (emptied when full): requests share most of their
    /// words, and one lookup here costs less than the trie walk, whose lookups miss the
    /// cache after a search has streamed the document vectors through it.
    query_words: std::sync::Mutex<HashMap<Box<str>, Box<[u32]>>>,
    /// The last sentence vector made, by text and script: a step embeds its request for the
    /// hybrid search and again for learned evidence (js/learn), the same text twice in a row.
    last_sentence: std::sync::Mutex<Option<(Box<str>, Script, Vec<f32>)>>,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a over `bytes` taken eight at a time (a model file of tens of MB in a few ms), then
/// its length: stable across platforms and builds, unlike the standard library's hasher.
fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        h = (h ^ u64::from_le_bytes(w.try_into().unwrap_or([0; 8]))).wrapping_mul(PRIME);
    }
    for &b in words.remainder() {
        h = (h ^ b as u64).wrapping_mul(PRIME);
    }
    (h ^ bytes.len() as u64).wrapping_mul(PRIME)
}

/// At most this many words in [`StaticModel::tokenize`]'s cache (~1 MB).
const QUERY_WORDS_CACHED: usize = 16_384;

/// The script class of a text, which stands for its language: a static model's sentence
/// vectors carry a large component shared by all text of one language (mean cosine of two
/// unrelated same-language texts far above that of translations), so text in different
/// languages never looks alike. Taking each script's mean off (language-mean removal) makes
/// translations comparable. Kana means Japanese, Hangul Korean, other Han text Chinese
/// (Traditional when at least a tenth of its Han characters fold to Simplified), the rest Latin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    Latin = 0,
    Simplified = 1,
    Traditional = 2,
    Japanese = 3,
    Korean = 4,
}

impl Script {
    pub const COUNT: usize = 5;
    /// Names in the model file, by discriminant.
    pub const NAMES: [&'static str; Script::COUNT] = ["latin", "zh-Hans", "zh-Hant", "ja", "ko"];

    pub fn of(text: &str) -> Script {
        Self::of_parts(&[text])
    }

    /// The script of the texts read as one (a tool's name and description).
    pub fn of_parts(parts: &[&str]) -> Script {
        use crate::enhanced::analyzer::{class_of, Class};
        let (mut han, mut kana, mut hangul) = (0usize, false, false);
        for c in parts.iter().flat_map(|p| p.chars()) {
            match class_of(c) {
                Class::Hiragana | Class::Katakana => kana = true,
                Class::Hangul => hangul = true,
                Class::Han => han += 1,
                Class::Other => {}
            }
        }
        if kana {
            Script::Japanese
        } else if hangul {
            Script::Korean
        } else if han == 0 {
            Script::Latin
        } else {
            let folded: usize =
                parts.iter().map(|p| p.chars().zip(fast2s::convert(p).chars()).filter(|(a, b)| a != b).count()).sum();
            if folded > 0 && folded * 10 >= han {
                Script::Traditional
            } else {
                Script::Simplified
            }
        }
    }
}

/// Default share of the script mean taken off (chosen on the dev halves, `examples/hybrid.rs`).
pub const DEFAULT_CENTERING: f32 = 1.0;

impl std::fmt::Debug for StaticModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticModel").field("dim", &self.dim).field("vocab", &self.scores.len()).finish_non_exhaustive()
    }
}

impl StaticModel {
    /// Parses and validates `model.bin` bytes. Never panics; every malformed input is an error.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ModelError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(8, "header").map_err(|_| ModelError::BadMagic)? != MAGIC {
            return Err(ModelError::BadMagic);
        }
        let dim = r.u32("header")?;
        let vocab = r.u32("header")?;
        let unk_id = r.u32("header")?;
        let flags = r.u32("header")?;
        if dim == 0 {
            return Err(ModelError::ZeroDim);
        }
        if dim > MAX_DIM {
            return Err(ModelError::DimTooLarge { dim });
        }
        if vocab == 0 {
            return Err(ModelError::EmptyVocab);
        }
        if unk_id >= vocab {
            return Err(ModelError::UnknownIdOutOfRange { unk_id, vocab });
        }
        let n = vocab as usize;
        // Each piece record is at least 6 bytes: a count the file cannot hold is truncated
        // (checked before allocating, so a forged count cannot exhaust memory).
        if r.remaining() / 6 < n {
            return Err(ModelError::Truncated { what: "pieces" });
        }
        let mut pieces = PieceTrie::with_capacity(n);
        let mut scores = Vec::with_capacity(n);
        for index in 0..vocab {
            let len = r.take(2, "pieces")?;
            let len = u16::from_le_bytes([len[0], len[1]]) as usize;
            let piece = std::str::from_utf8(r.take(len, "pieces")?).map_err(|_| ModelError::PieceNotUtf8 { index })?;
            let score = r.f32("pieces")?;
            if !score.is_finite() {
                return Err(ModelError::NonFiniteScore { index });
            }
            scores.push(score);
            // The unknown piece is never matched by text (it stands for unmatched characters).
            if !piece.is_empty() && index != unk_id {
                // A repeated piece keeps its first id (SentencePiece vocabularies have none).
                pieces.insert(piece, index);
            }
        }
        let mut scales = Vec::with_capacity(n);
        for index in 0..vocab {
            let scale = r.f32("scales")?;
            if !scale.is_finite() {
                return Err(ModelError::NonFiniteScale { index });
            }
            scales.push(scale);
        }
        let table = n.checked_mul(dim as usize).ok_or(ModelError::Truncated { what: "vectors" })?;
        let vectors: Vec<i8> = r.take(table, "vectors")?.iter().map(|&b| b as i8).collect();
        let mut means: [Option<Box<[f32]>>; Script::COUNT] = Default::default();
        if flags & FLAG_SCRIPT_MEANS != 0 {
            let count = r.u32("script means")?;
            for _ in 0..count {
                let len = r.take(1, "script means")?[0] as usize;
                let name = String::from_utf8_lossy(r.take(len, "script means")?).into_owned();
                let mut mean = Vec::with_capacity(dim as usize);
                for _ in 0..dim {
                    let x = r.f32("script means")?;
                    if !x.is_finite() {
                        return Err(ModelError::NonFiniteMean { script: name });
                    }
                    mean.push(x);
                }
                if let Some(k) = Script::NAMES.iter().position(|n| *n == name) {
                    means[k] = Some(mean.into_boxed_slice());
                }
            }
        }
        let mut latin_tail = 0;
        if flags & FLAG_LATIN_TAIL != 0 {
            let tail = r.u32("Latin tail")?;
            if tail >= dim {
                return Err(ModelError::LatinTailTooLarge { tail, dim });
            }
            latin_tail = tail as usize;
        }
        if r.remaining() != 0 {
            return Err(ModelError::TrailingBytes { extra: r.remaining() });
        }
        let min_score = scores.iter().copied().fold(f32::INFINITY, f32::min);
        Ok(Self {
            dim: dim as usize,
            unk_id,
            flags,
            pieces,
            scores,
            scales,
            vectors,
            unk_score: min_score - 10.0,
            means,
            centering: DEFAULT_CENTERING,
            latin_tail,
            fingerprint: fnv1a(FNV_OFFSET ^ DEFAULT_CENTERING.to_bits() as u64, bytes),
            query_words: Default::default(),
            last_sentence: Default::default(),
        })
    }

    /// The same model taking `share` of each script's mean off sentence vectors (tuning).
    pub fn with_centering(mut self, share: f32) -> Self {
        self.centering = share;
        self.fingerprint = fnv1a(self.fingerprint ^ share.to_bits() as u64, &[]);
        self
    }

    /// Whether the file has a mean vector for every script.
    pub fn has_script_means(&self) -> bool {
        self.means.iter().all(Option::is_some)
    }

    /// Turns a sum of `text`'s token vectors into its sentence vector: L2-normalized, its
    /// script's mean (times the centering share) taken off, normalized again. A text whose
    /// script has no mean in the file is only normalized. A text not in Latin script first
    /// loses the model's Latin-only tail.
    pub fn finish(&self, text: &str, sum: &mut [f32]) {
        self.finish_as(Script::of(text), sum);
    }

    /// [`Self::finish`] for a text whose script the caller already knows.
    pub fn finish_as(&self, script: Script, sum: &mut [f32]) {
        if script != Script::Latin && self.latin_tail > 0 {
            let keep = sum.len() - self.latin_tail;
            sum[keep..].fill(0.0);
        }
        normalize(sum);
        if self.centering == 0.0 || sum.iter().all(|&x| x == 0.0) {
            return;
        }
        if let Some(mean) = &self.means[script as usize] {
            for (x, m) in sum.iter_mut().zip(mean.iter()) {
                *x -= self.centering * m;
            }
            normalize(sum);
        }
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The model's identity (see the field): equal for the same file and centering.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// How many trailing dimensions only Latin-script text keeps (0: none).
    pub fn latin_tail(&self) -> usize {
        self.latin_tail
    }

    pub fn vocab_size(&self) -> usize {
        self.scores.len()
    }

    /// Approximate heap bytes held by the model.
    pub fn heap_bytes(&self) -> usize {
        self.pieces.heap_bytes()
            + self.scores.len() * 8
            + self.vectors.len()
            + self.means.iter().flatten().map(|m| m.len() * 4).sum::<usize>()
    }

    /// The text as the tokenizer sees it (NFKC, lowercase, per the flags).
    fn normalized<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut out: Cow<str> = Cow::Borrowed(text);
        if self.flags & FLAG_NFKC != 0 && !text.is_ascii() && is_nfkc_quick(text.chars()) != IsNormalized::Yes {
            out = Cow::Owned(text.nfkc().collect());
        }
        if self.flags & FLAG_LOWERCASE != 0 && out.chars().any(char::is_uppercase) {
            out = Cow::Owned(out.to_lowercase());
        }
        out
    }

    /// Token ids of `text`: normalized, split on whitespace, each word segmented by
    /// unigram Viterbi (highest total piece score).
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        let mut scratch = Viterbi::default();
        // (another thread tokenizing at the same moment: segment without the cache)
        let mut cache = self.query_words.try_lock().ok();
        self.for_each_word(text, |word| {
            let Some(cache) = cache.as_mut() else { return self.segment(word, &mut scratch, &mut ids) };
            if let Some(known) = cache.get(word) {
                ids.extend_from_slice(known);
                return;
            }
            let start = ids.len();
            self.segment(word, &mut scratch, &mut ids);
            if cache.len() >= QUERY_WORDS_CACHED {
                cache.clear();
            }
            cache.insert(word.into(), ids[start..].into());
        });
        ids
    }

    /// Calls `f` with each word of the normalized text, marker included.
    fn for_each_word(&self, text: &str, mut f: impl FnMut(&str)) {
        let mut word = String::new();
        for w in self.normalized(text).split(char::is_whitespace).filter(|w| !w.is_empty()) {
            word.clear();
            if self.flags & FLAG_WORD_MARKER != 0 {
                word.push(WORD_MARKER);
            }
            word.push_str(w);
            f(&word);
        }
    }

    /// Appends the best segmentation of one word to `out`: unigram Viterbi, walking the
    /// piece trie forward from each reachable position (so a lookup costs one step per
    /// character, and stops where no piece continues).
    fn segment(&self, word: &str, v: &mut Viterbi, out: &mut Vec<u32>) {
        v.chars.clear();
        v.chars.extend(word.chars());
        let n = v.chars.len();
        v.best.clear();
        v.best.resize(n + 1, (f32::NEG_INFINITY, 0, u32::MAX));
        v.best[0] = (0.0, 0, u32::MAX);
        for start in 0..n {
            let base = v.best[start].0;
            if base == f32::NEG_INFINITY {
                continue;
            }
            let mut node = 0;
            let mut single_char_piece = false;
            for end in start + 1..=n {
                let Some(child) = self.pieces.child(node, v.chars[end - 1]) else { break };
                node = child;
                let Some(id) = self.pieces.piece(node) else { continue };
                single_char_piece |= end == start + 1;
                let total = base + self.scores[id as usize];
                // Strict: among equal totals the earliest start (longest last piece) stays.
                if total > v.best[end].0 {
                    v.best[end] = (total, start as u32, id);
                }
            }
            // A character no piece covers on its own becomes the unknown token.
            if !single_char_piece {
                let total = base + self.unk_score;
                if total > v.best[start + 1].0 {
                    v.best[start + 1] = (total, start as u32, self.unk_id);
                }
            }
        }
        let first = out.len();
        let mut at = n;
        while at > 0 {
            let (_, start, id) = v.best[at];
            out.push(id);
            at = start as usize;
        }
        out[first..].reverse();
    }

    /// Adds the dequantized rows of `ids` to `sum` (`dim` long).
    pub fn add_rows(&self, ids: &[u32], sum: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
                // SAFETY: the CPU supports AVX2 and FMA (checked just above).
                unsafe { self.add_rows_avx2(ids, sum) };
                return;
            }
        }
        self.add_rows_portable(ids, sum);
    }

    /// The portable loop compiled with AVX2 + FMA (8 widened products per instruction).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn add_rows_avx2(&self, ids: &[u32], sum: &mut [f32]) {
        self.add_rows_portable(ids, sum);
    }

    #[inline(always)]
    fn add_rows_portable(&self, ids: &[u32], sum: &mut [f32]) {
        for &id in ids {
            let id = id as usize;
            let scale = self.scales[id];
            if scale == 0.0 {
                continue;
            }
            let row = &self.vectors[id * self.dim..(id + 1) * self.dim];
            for (s, &q) in sum.iter_mut().zip(row) {
                *s += scale * f32::from(q);
            }
        }
    }

    /// The sentence vector of `text`: mean of its token vectors, L2-normalized and
    /// centred by [`Self::finish`] (all zeros when no token carries a vector).
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.embed_as(text, Script::of(text))
    }

    /// [`Self::embed`] for a text whose script the caller already knows.
    pub fn embed_as(&self, text: &str, script: Script) -> Vec<f32> {
        // (try_lock: a thread that would wait embeds instead; the cache never changes a vector)
        if let Ok(last) = self.last_sentence.try_lock() {
            if let Some((t, s, v)) = last.as_ref() {
                if **t == *text && *s == script {
                    return v.clone();
                }
            }
        }
        let mut sum = vec![0.0; self.dim];
        self.add_rows(&self.tokenize(text), &mut sum);
        self.finish_as(script, &mut sum);
        if let Ok(mut last) = self.last_sentence.try_lock() {
            *last = Some((text.into(), script, sum.clone()));
        }
        sum
    }
}

/// Embeds many texts, segmenting each distinct word once (catalog texts repeat words).
pub struct Encoder<'m> {
    model: &'m StaticModel,
    /// word -> its token ids, as a range of `ids`
    words: HashMap<Box<str>, (u32, u32)>,
    ids: Vec<u32>,
    viterbi: Viterbi,
    tokens: Vec<u32>,
}

impl<'m> Encoder<'m> {
    pub fn new(model: &'m StaticModel) -> Self {
        Self { model, words: HashMap::default(), ids: Vec::new(), viterbi: Viterbi::default(), tokens: Vec::new() }
    }

    /// Adds the token vectors of `text` to `sum`; returns how many tokens it had.
    pub fn add_text(&mut self, text: &str, sum: &mut [f32]) -> usize {
        let Self { model, words, ids, viterbi, tokens } = self;
        tokens.clear();
        model.for_each_word(text, |word| {
            if let Some(&(start, len)) = words.get(word) {
                tokens.extend_from_slice(&ids[start as usize..(start + len) as usize]);
                return;
            }
            let start = ids.len();
            model.segment(word, viterbi, ids);
            tokens.extend_from_slice(&ids[start..]);
            words.insert(word.into(), (start as u32, (ids.len() - start) as u32));
        });
        model.add_rows(tokens, sum);
        tokens.len()
    }
}

/// L2-normalizes in place (a zero vector stays zero). The mean's divisor cancels here, so
/// callers may pass sums.
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        for x in v {
            *x /= norm;
        }
    } else {
        v.fill(0.0);
    }
}

/// Reusable Viterbi buffers: the word's characters and per-position (score, start, piece).
#[derive(Default)]
struct Viterbi {
    chars: Vec<char>,
    best: Vec<(f32, u32, u32)>,
}

/// The vocabulary as a character trie: edges in one hash map keyed by (node, char).
struct PieceTrie {
    edges: HashMap<u64, u32>,
    /// Per node: the piece ending there, or `u32::MAX`.
    piece_at: Vec<u32>,
}

impl PieceTrie {
    fn with_capacity(pieces: usize) -> Self {
        let mut piece_at = Vec::with_capacity(pieces * 2);
        piece_at.push(u32::MAX);
        Self { edges: HashMap::with_capacity_and_hasher(pieces * 2, Default::default()), piece_at }
    }

    fn key(node: u32, c: char) -> u64 {
        (u64::from(node) << 21) | u64::from(c)
    }

    /// Adds `piece` as `id`; a repeated piece keeps its first id.
    fn insert(&mut self, piece: &str, id: u32) {
        let mut node = 0u32;
        for c in piece.chars() {
            let next = self.piece_at.len() as u32;
            node = *self.edges.entry(Self::key(node, c)).or_insert(next);
            if node == next {
                self.piece_at.push(u32::MAX);
            }
        }
        if self.piece_at[node as usize] == u32::MAX {
            self.piece_at[node as usize] = id;
        }
    }

    #[inline]
    fn child(&self, node: u32, c: char) -> Option<u32> {
        self.edges.get(&Self::key(node, c)).copied()
    }

    #[inline]
    fn piece(&self, node: u32) -> Option<u32> {
        Some(self.piece_at[node as usize]).filter(|&id| id != u32::MAX)
    }

    fn heap_bytes(&self) -> usize {
        self.edges.capacity() * 13 + self.piece_at.capacity() * 4
    }
}

/// Writes a model file (for tests, benches and tools): pieces with scores, rows as f32
/// vectors quantized per row to i8.
#[doc(hidden)]
pub fn encode_model(dim: u32, unk_id: u32, flags: u32, pieces: &[(&str, f32, Vec<f32>)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    for v in [dim, pieces.len() as u32, unk_id, flags] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for (piece, score, _) in pieces {
        out.extend_from_slice(&(piece.len() as u16).to_le_bytes());
        out.extend_from_slice(piece.as_bytes());
        out.extend_from_slice(&score.to_le_bytes());
    }
    let scale_of = |row: &Vec<f32>| row.iter().fold(0f32, |m, x| m.max(x.abs())) / 127.0;
    for (_, _, row) in pieces {
        out.extend_from_slice(&scale_of(row).to_le_bytes());
    }
    for (_, _, row) in pieces {
        let scale = scale_of(row);
        for i in 0..dim as usize {
            let x = row.get(i).copied().unwrap_or(0.0);
            let q = if scale > 0.0 { (x / scale).round().clamp(-127.0, 127.0) as i8 } else { 0 };
            out.push(q as u8);
        }
    }
    out
}

/// Flags of a SentencePiece-style model: lowercase, NFKC, word-start marker.
pub const STANDARD_FLAGS: u32 = FLAG_LOWERCASE | FLAG_NFKC | FLAG_WORD_MARKER;
