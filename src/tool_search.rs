//! Native half of ToolSearchProcessor: the tool catalog (BM25 search, name resolution,
//! suggestions) and the loaded-name stores. Tools cross as `(key, id, description)`
//! strings once; searches return handles (indices into the JS layer's tool arrays).

use std::sync::Arc;

use mastra_native_core::catalog::{
    BuildError, BuildOptions, CatalogSource, CheckedCatalog, KeyConflicts, Override, SearchMode, SearchParams, ToolCatalog, ToolEntry,
};
use mastra_native_core::memory;
use mastra_native_core::semantic::EmbedderFusion;
use mastra_native_core::store::{self, ActivationRecord, InMemoryStore, MetaTool, SupplementalStore};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::semantic::NativeSemanticModel;

fn entries(keys: Vec<String>, ids: Vec<Option<String>>, descriptions: Vec<String>, first_handle: u32) -> Result<Vec<ToolEntry>> {
    if keys.len() != ids.len() || keys.len() != descriptions.len() {
        return Err(Error::new(Status::InvalidArg, "keys, ids and descriptions must have the same length"));
    }
    // (handles are u32: the last one must fit, or a debug build panics and a release one wraps)
    let last_offset = keys.len().saturating_sub(1);
    if u32::try_from(last_offset).ok().and_then(|offset| first_handle.checked_add(offset)).is_none() {
        return Err(Error::new(Status::InvalidArg, "the tools' handles exceed 2^32 - 1"));
    }
    Ok(keys
        .into_iter()
        .zip(ids)
        .zip(descriptions)
        .enumerate()
        .map(|(i, ((key, id), description))| ToolEntry {
            key,
            id: id.filter(|s| !s.is_empty()),
            description,
            handle: first_handle + i as u32,
        })
        .collect())
}

/// Meta-tool names no tool key or callable name may take.
const RESERVED_NAMES: &[&str] = &["search_tools", "load_tool"];

fn key_conflicts_of(accept: bool) -> KeyConflicts {
    if accept {
        KeyConflicts::Accept
    } else {
        KeyConflicts::Reject
    }
}

/// The first `length` bytes of a joined catalog encoded by the JS layer (UTF-8, written
/// with `Buffer#write`): no string flattening or conversion when it crosses.
fn joined_bytes<'a>(bytes: &'a Uint8ArraySlice<'_>, length: u32) -> Result<&'a [u8]> {
    bytes
        .get(..length as usize)
        .ok_or_else(|| Error::new(Status::InvalidArg, "joined catalog length exceeds its buffer"))
}

/// The joined catalog as text (the encoder only writes UTF-8; anything else is a bug).
fn joined_text(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|_| Error::new(Status::InvalidArg, "joined catalog is not UTF-8"))
}

/// A core build error as a JS error: a malformed joined catalog is the caller's argument
/// (the JS layer then falls back to arrays); an ambiguous catalog fails as the host does.
fn build_error(error: BuildError) -> Error {
    match error {
        BuildError::Joined(e) => Error::new(Status::InvalidArg, e.to_string()),
        BuildError::Catalog(e) => Error::new(Status::GenericFailure, e.to_string()),
    }
}

/// Tools as parallel arrays (`ids[i]` null or empty: none). `params[i]` is tool i's parameter
/// text, read in enhanced and hybrid mode (missing texts are empty).
#[napi(object)]
pub struct NativeTools {
    pub keys: Vec<String>,
    pub ids: Vec<Option<String>>,
    pub descriptions: Vec<String>,
    pub params: Option<Vec<String>>,
}

impl NativeTools {
    /// The tools as catalog entries, with handles from `first_handle`, and their params.
    fn into_entries(self, first_handle: u32) -> Result<(Vec<ToolEntry>, Vec<String>)> {
        let tools = entries(self.keys, self.ids, self.descriptions, first_handle)?;
        Ok((tools, self.params.unwrap_or_default()))
    }
}

/// A catalog joined by the JS layer into one UTF-8 buffer: `bytes[..length]` holds `count`
/// tools as `key \0 id \0 description [\0 params] \0 key …` (an empty id meaning none; the
/// params field present in enhanced and hybrid mode). One buffer crosses instead of 3·n
/// strings; it is an error when the fields do not split into `count` tools (a value
/// contained NUL: the caller then passes `tools`).
#[napi(object)]
pub struct NativeJoinedTools<'a> {
    pub bytes: Uint8ArraySlice<'a>,
    pub length: u32,
    pub count: u32,
}

/// What a catalog is built from: exactly one of `joined` and `tools`.
#[napi(object)]
pub struct NativeCatalogSource<'a> {
    pub joined: Option<NativeJoinedTools<'a>>,
    pub tools: Option<NativeTools>,
}

/// How a catalog is built.
#[napi(object)]
pub struct NativeCatalogOptions {
    /// `search.mode` (default 'compatible'); 'hybrid' needs the model argument.
    #[napi(ts_type = "'compatible' | 'enhanced' | 'hybrid'")]
    pub mode: Option<String>,
    /// Reject ambiguous catalogs (duplicate or reserved names, and key conflicts unless
    /// accepted) with the upstream message.
    pub validate: Option<bool>,
    /// With `validate`: let a key equal another tool's id (resolved key-first, as every
    /// host does).
    pub accept_key_conflicts: Option<bool>,
}

impl NativeCatalogOptions {
    /// The core build options, with the model of a hybrid build.
    fn build_options(&self, model: Option<&NativeSemanticModel>) -> Result<BuildOptions<'static>> {
        let mode = match (self.mode.as_deref().unwrap_or("compatible"), model) {
            ("compatible", None) => SearchMode::Compatible,
            ("enhanced", None) => SearchMode::Enhanced,
            ("hybrid", Some(model)) => SearchMode::Hybrid(model.inner.clone()),
            ("hybrid", None) => return Err(Error::new(Status::InvalidArg, "a hybrid catalog needs a model")),
            ("compatible" | "enhanced", Some(_)) => return Err(Error::new(Status::InvalidArg, "only a hybrid catalog takes a model")),
            (other, _) => return Err(Error::new(Status::InvalidArg, format!("unknown catalog mode \"{other}\""))),
        };
        let options = BuildOptions::new(mode);
        Ok(if self.validate.unwrap_or(false) {
            options.validated(RESERVED_NAMES, key_conflicts_of(self.accept_key_conflicts.unwrap_or(false)))
        } else {
            options
        })
    }
}

/// A joined catalog's bytes as a core source.
fn joined_source(bytes: &[u8], count: u32) -> Result<CatalogSource<'_>> {
    Ok(CatalogSource::Joined { text: joined_text(bytes)?, count: count as usize })
}

/// Reads `source` and checks it (see [`CatalogSource::check`]) or builds it with `options`:
/// the source's buffers are only valid during this call.
fn with_source<T>(source: NativeCatalogSource<'_>, run: impl FnOnce(CatalogSource<'_>) -> std::result::Result<T, BuildError>) -> Result<T> {
    match (source.joined, source.tools) {
        (Some(joined), None) => run(joined_source(joined_bytes(&joined.bytes, joined.length)?, joined.count)?).map_err(build_error),
        (None, Some(tools)) => {
            let (tools, params) = tools.into_entries(0)?;
            run(CatalogSource::Entries { tools, params }).map_err(build_error)
        }
        _ => Err(Error::new(Status::InvalidArg, "a catalog source has either joined or tools")),
    }
}

/// Runs a build on a pool thread; a panic becomes an error (an unwinding panic must not
/// cross napi's `execute` callback, which would abort Node).
fn guarded_build(what: &str, build: impl FnOnce() -> Result<ToolCatalog>) -> Result<ToolCatalog> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(build)).unwrap_or_else(|payload| {
        let reason = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        Err(Error::new(Status::GenericFailure, format!("{what} failed: {reason}")))
    })
}

/// [`NativeToolCatalog::build_async`]'s work: index a checked catalog off the JS thread.
pub struct CatalogBuild {
    /// the catalog, checked on the JS thread (with its own copy of the text: the JS buffer
    /// stays on its thread)
    checked: Option<CheckedCatalog>,
    /// The ranking (a hybrid one holds the model the documents are embedded with).
    mode: SearchMode,
}

impl Task for CatalogBuild {
    type Output = ToolCatalog;
    type JsValue = NativeToolCatalog;

    fn compute(&mut self) -> Result<ToolCatalog> {
        let checked = self.checked.take().ok_or_else(|| Error::new(Status::GenericFailure, "the catalog was already built"))?;
        let options = BuildOptions::new(self.mode.clone());
        guarded_build("building the tool catalog", move || {
            let count = checked.len();
            let built = ToolCatalog::build(checked.into(), &options).map_err(build_error)?;
            if count >= memory::LARGE_BUILD_TOOLS {
                memory::release_free_memory();
            }
            Ok(built)
        })
    }

    fn resolve(&mut self, _env: Env, catalog: ToolCatalog) -> Result<NativeToolCatalog> {
        Ok(NativeToolCatalog { inner: Arc::new(catalog) })
    }
}

/// [`NativeToolCatalog::overlay_async`]'s work.
pub struct OverlayBuild {
    base: Arc<ToolCatalog>,
    resolved: Vec<ToolEntry>,
    params: Vec<String>,
}

impl Task for OverlayBuild {
    type Output = ToolCatalog;
    type JsValue = NativeToolCatalog;

    fn compute(&mut self) -> Result<ToolCatalog> {
        let resolved = std::mem::take(&mut self.resolved);
        let params = std::mem::take(&mut self.params);
        let base = &self.base;
        guarded_build("building the request's tool catalog", || Ok(ToolCatalog::overlay(base, resolved, params)))
    }

    fn resolve(&mut self, _env: Env, catalog: ToolCatalog) -> Result<NativeToolCatalog> {
        Ok(NativeToolCatalog { inner: Arc::new(catalog) })
    }
}

/// Search hits as parallel typed arrays (cheap to cross).
#[napi(object)]
pub struct NativeSearchHits {
    /// Handle of the tool to return (first tool whose id is the indexed name).
    pub handles: Uint32Array,
    /// Handle of the tool whose description the indexed document carries.
    pub doc_handles: Uint32Array,
    /// Boosted, unrounded scores.
    pub scores: Float64Array,
}

/// Search hits with what each rests on, for preload's confidence: a hybrid catalog's lexical
/// scores (0: not a lexical candidate) and plain cosines; both empty for the other rankers.
#[napi(object)]
pub struct NativeEvidenceHits {
    pub handles: Uint32Array,
    pub doc_handles: Uint32Array,
    pub scores: Float64Array,
    pub lexical: Float64Array,
    pub cosines: Float64Array,
}

/// A catalog's (or skill index's) documents with a user's embedder's vectors, for that
/// catalog's `searchOver` / `searchWithEvidenceOver` (that index's `searchOver`) only.
#[napi]
pub struct NativeSemanticOverride {
    docs: Arc<mastra_native_core::semantic::SemanticDocs>,
    /// What it was built for (the address of its index: compared, never followed).
    owner: usize,
    dim: u32,
    weights: EmbedderFusion,
}

impl NativeSemanticOverride {
    pub(crate) fn new(docs: mastra_native_core::semantic::SemanticDocs, owner: usize, dim: u32, weights: EmbedderFusion) -> Self {
        Self { docs: Arc::new(docs), owner, dim, weights }
    }

    fn for_catalog<'a>(&'a self, catalog: &Arc<ToolCatalog>, vector: &'a [f32]) -> Result<Override<'a>> {
        self.for_owner(Arc::as_ptr(catalog) as usize, vector)
    }

    /// The override for a search of `owner` with the query's `vector`.
    pub(crate) fn for_owner<'a>(&'a self, owner: usize, vector: &'a [f32]) -> Result<Override<'a>> {
        if owner != self.owner {
            return Err(Error::new(Status::InvalidArg, "the semantic override belongs to another index".to_string()));
        }
        if vector.len() != self.dim as usize {
            return Err(Error::new(Status::InvalidArg, format!("the query vector has {} values; the override's vectors have {}", vector.len(), self.dim)));
        }
        Ok(Override { docs: &self.docs, query_vector: vector, weights: Some(self.weights) })
    }
}

/// `semanticOverride`'s knobs, checked: weights finite from 0 to 100, corrections from 0 to 1
/// (left out: the shipped model's).
pub(crate) fn embedder_fusion(
    semantic_latin: f64,
    semantic_cjk: f64,
    same_script: Option<f64>,
    crowding_cjk: Option<f64>,
    same_script_span: Option<f64>,
) -> Result<EmbedderFusion> {
    for (name, w) in [("semanticLatin", semantic_latin), ("semanticCjk", semantic_cjk)] {
        if !(w.is_finite() && (0.0..=100.0).contains(&w)) {
            return Err(Error::new(Status::InvalidArg, format!("semanticOverride: {name} must be a finite weight from 0 to 100; received {w}")));
        }
    }
    let mut knobs = EmbedderFusion::weights(semantic_latin, semantic_cjk);
    for (name, value, slot) in [
        ("sameScript", same_script, &mut knobs.same_script),
        ("crowdingCjk", crowding_cjk, &mut knobs.crowding_cjk),
        ("sameScriptSpan", same_script_span, &mut knobs.same_script_span),
    ] {
        if let Some(v) = value {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return Err(Error::new(Status::InvalidArg, format!("semanticOverride: {name} must be a finite share from 0 to 1; received {v}")));
            }
            *slot = v;
        }
    }
    Ok(knobs)
}

fn search_hits(hits: &[mastra_native_core::catalog::Hit]) -> NativeSearchHits {
    NativeSearchHits {
        handles: Uint32Array::new(hits.iter().map(|h| h.handle).collect()),
        doc_handles: Uint32Array::new(hits.iter().map(|h| h.doc_handle).collect()),
        scores: Float64Array::new(hits.iter().map(|h| h.score).collect()),
    }
}

fn evidence_hits(hits: Vec<(mastra_native_core::catalog::Hit, Option<mastra_native_core::catalog::Evidence>)>) -> NativeEvidenceHits {
    let evidence: Vec<_> = hits.iter().filter_map(|(_, e)| *e).collect();
    NativeEvidenceHits {
        handles: Uint32Array::new(hits.iter().map(|(h, _)| h.handle).collect()),
        doc_handles: Uint32Array::new(hits.iter().map(|(h, _)| h.doc_handle).collect()),
        scores: Float64Array::new(hits.iter().map(|(h, _)| h.score).collect()),
        lexical: Float64Array::new(evidence.iter().map(|e| e.lexical).collect()),
        cosines: Float64Array::new(evidence.iter().map(|e| e.cosine).collect()),
    }
}

/// `injectCatalog` rows as parallel typed arrays.
#[napi(object)]
pub struct NativeListing {
    pub key_handles: Uint32Array,
    pub tool_handles: Uint32Array,
    pub doc_handles: Int32Array,
}

/// A searchable tool catalog (static, or static + request-resolved overlay).
#[napi]
pub struct NativeToolCatalog {
    inner: Arc<ToolCatalog>,
}

#[napi]
impl NativeToolCatalog {
    /// Builds a catalog from `source` (handles 0..n, in `Object.entries` order) as `options`
    /// say; `model` is the hybrid mode's (and only its). Throws on a joined source that does
    /// not split into its tools (the caller then passes `tools`) and, with `validate`, on
    /// ambiguous names.
    #[napi(factory, catch_unwind)]
    pub fn build(source: NativeCatalogSource, options: NativeCatalogOptions, model: Option<&NativeSemanticModel>) -> Result<Self> {
        let options = options.build_options(model)?;
        let catalog = with_source(source, |source| ToolCatalog::build(source, &options))?;
        Ok(Self { inner: Arc::new(catalog) })
    }

    /// [`Self::build`] on the libuv thread pool: the source is read and checked here, on the
    /// JS thread (a malformed or ambiguous catalog throws now, with the same message), then a
    /// copy of it moves to the task, which indexes it (and, in hybrid mode, embeds it).
    #[napi(ts_return_type = "Promise<NativeToolCatalog>", catch_unwind)]
    pub fn build_async(source: NativeCatalogSource, options: NativeCatalogOptions, model: Option<&NativeSemanticModel>) -> Result<AsyncTask<CatalogBuild>> {
        let options = options.build_options(model)?;
        let checked = with_source(source, |source| source.check(&options))?;
        Ok(AsyncTask::new(CatalogBuild { checked: Some(checked), mode: options.mode }))
    }

    /// `{ ...base, ...resolved }`, ranking as `base` does, without re-tokenizing (or
    /// re-embedding) the base; the resolved tools' handles start at `firstHandle`.
    #[napi(factory, catch_unwind)]
    pub fn overlay(base: &NativeToolCatalog, resolved: NativeTools, first_handle: u32) -> Result<Self> {
        let (resolved, params) = resolved.into_entries(first_handle)?;
        Ok(Self { inner: Arc::new(ToolCatalog::overlay(&base.inner, resolved, params)) })
    }

    /// [`Self::overlay`] built on the libuv thread pool (an overlay costs about as much as
    /// the base catalog is large).
    #[napi(ts_return_type = "Promise<NativeToolCatalog>", catch_unwind)]
    pub fn overlay_async(base: &NativeToolCatalog, resolved: NativeTools, first_handle: u32) -> Result<AsyncTask<OverlayBuild>> {
        let (resolved, params) = resolved.into_entries(first_handle)?;
        Ok(AsyncTask::new(OverlayBuild { base: Arc::clone(&base.inner), resolved, params }))
    }

    /// Number of tools.
    #[napi(getter, catch_unwind)]
    pub fn size(&self) -> u32 {
        self.inner.len() as u32
    }

    /// Ranked hits. Without `inspectAll` at most `topK`; with it every candidate (the JS
    /// layer runs the filter and stops at `topK` allowed).
    #[napi(catch_unwind)]
    pub fn search(&self, query: String, top_k: u32, min_score: f64, inspect_all: bool) -> NativeSearchHits {
        search_hits(&self.inner.search(&query, SearchParams { top_k: top_k as usize, min_score, inspect_all }))
    }

    /// [`Self::search`], each hit with its evidence (see [`NativeEvidenceHits`]).
    #[napi(catch_unwind)]
    pub fn search_with_evidence(&self, query: String, top_k: u32, min_score: f64, inspect_all: bool) -> NativeEvidenceHits {
        evidence_hits(self.inner.search_with_evidence(&query, SearchParams { top_k: top_k as usize, min_score, inspect_all }, None))
    }

    /// [`Self::search_with_evidence`] with a user's embedder on the semantic side: `over` from
    /// this catalog's `semanticOverride`, `vector` the query's embedding.
    #[napi(catch_unwind)]
    pub fn search_with_evidence_over(
        &self,
        query: String,
        vector: Float32Array,
        over: &NativeSemanticOverride,
        top_k: u32,
        min_score: f64,
        inspect_all: bool,
    ) -> Result<NativeEvidenceHits> {
        let over = over.for_catalog(&self.inner, &vector)?;
        Ok(evidence_hits(self.inner.search_with_evidence(&query, SearchParams { top_k: top_k as usize, min_score, inspect_all }, Some(over))))
    }

    /// [`Self::search`] with a user's embedder on the semantic side (see
    /// [`Self::search_with_evidence_over`]).
    #[napi(catch_unwind)]
    pub fn search_over(&self, query: String, vector: Float32Array, over: &NativeSemanticOverride, top_k: u32, min_score: f64, inspect_all: bool) -> Result<NativeSearchHits> {
        let over = over.for_catalog(&self.inner, &vector)?;
        Ok(search_hits(&self.inner.search_with(&query, SearchParams { top_k: top_k as usize, min_score, inspect_all }, Some(over))))
    }

    /// The texts a user's embedder embeds for this catalog's documents, in order (empty
    /// unless hybrid).
    #[napi(catch_unwind)]
    pub fn semantic_texts(&self) -> Vec<String> {
        self.inner.semantic_texts()
    }

    /// This hybrid catalog's documents with a user's vectors: `rows` holds one vector of
    /// `dim` values per `semanticTexts()` text; searches through it weigh its semantic side
    /// `semanticLatin` / `semanticCjk` (requests without / with CJK characters) and add
    /// `sameScript` plus `sameScriptSpan` times the request's cosine span to documents in the
    /// request's script, take `crowdingCjk` times a document's crowding off for CJK requests
    /// (left out: the shipped model's 0.15, 0 and 0.5).
    #[napi(catch_unwind)]
    pub fn semantic_override(
        &self,
        rows: Float32Array,
        dim: u32,
        semantic_latin: f64,
        semantic_cjk: f64,
        same_script: Option<f64>,
        crowding_cjk: Option<f64>,
        same_script_span: Option<f64>,
    ) -> Result<NativeSemanticOverride> {
        let knobs = embedder_fusion(semantic_latin, semantic_cjk, same_script, crowding_cjk, same_script_span)?;
        let docs = self.inner.semantic_override(&rows, dim as usize).ok_or_else(|| {
            Error::new(
                Status::InvalidArg,
                format!("semanticOverride: expected {} finite vectors of {dim} values for a hybrid or enhanced catalog", self.inner.semantic_texts().len()),
            )
        })?;
        Ok(NativeSemanticOverride::new(docs, Arc::as_ptr(&self.inner) as usize, dim, knobs))
    }

    /// [`Self::search`] without `inspectAll`, writing `(handle, docHandle, score)` triplets
    /// into the caller's reusable `out` (creating typed arrays costs more than a search of
    /// a small catalog). Returns the hit count; only the triplets that fit are written.
    #[napi(catch_unwind)]
    pub fn search_into(&self, query: String, top_k: u32, min_score: f64, mut out: Float64ArraySlice) -> u32 {
        let hits = self.inner.search(&query, SearchParams { top_k: top_k as usize, min_score, inspect_all: false });
        // SAFETY: the slice is only written during this synchronous call, on the JS thread
        // that owns the array; nothing else runs JavaScript meanwhile.
        let out = unsafe { out.as_mut() };
        for (hit, slot) in hits.iter().zip(out.chunks_exact_mut(3)) {
            slot.copy_from_slice(&[f64::from(hit.handle), f64::from(hit.doc_handle), hit.score]);
        }
        hits.len() as u32
    }

    /// Resolves names to handles (-1 = not found): key first, or id first when `preferId`.
    #[napi(catch_unwind)]
    pub fn resolve(&self, names: Vec<String>, prefer_id: bool) -> Int32Array {
        Int32Array::new(names.iter().map(|n| self.inner.resolve(n, prefer_id).map_or(-1, |h| h as i32)).collect())
    }

    /// The `injectCatalog` rows in key order (see `ToolCatalog::listing`): per key, the
    /// key's own handle, the handle of the tool it resolves to, and the handle of the tool
    /// whose description is shown (-1 = none).
    #[napi(catch_unwind)]
    pub fn listing(&self, prefer_id: bool) -> NativeListing {
        let rows = self.inner.listing(prefer_id);
        NativeListing {
            key_handles: Uint32Array::new(rows.iter().map(|r| r.key_handle).collect()),
            tool_handles: Uint32Array::new(rows.iter().map(|r| r.tool_handle).collect()),
            doc_handles: Int32Array::new(rows.iter().map(|r| r.doc_handle.map_or(-1, |h| h as i32)).collect()),
        }
    }

    /// Keys that contain, or are contained in, `requested` (case-insensitive), in key order.
    #[napi(catch_unwind)]
    pub fn suggestion_keys(&self, requested: String) -> Vec<String> {
        self.inner.suggestion_keys(&requested).into_iter().map(str::to_owned).collect()
    }

    /// For each of `names`, whether `query` asks for another action than the tool performs
    /// among its siblings (see the core's `ToolCatalog::action_mismatches`).
    #[napi(catch_unwind)]
    pub fn action_mismatches(&self, query: String, names: Vec<String>) -> Vec<bool> {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        self.inner.action_mismatches(&query, &names)
    }

    /// Handles of the tools that come up for requests about other tools (stuffed
    /// descriptions), from the tools' `handles` and `descriptions` (at most 64 are searched):
    /// never loaded on a guess. Call once per catalog.
    #[napi(catch_unwind)]
    pub fn hub_handles(&self, handles: Uint32Array, descriptions: Vec<String>) -> Result<Uint32Array> {
        if handles.len() != descriptions.len() {
            return Err(Error::new(Status::InvalidArg, "handles and descriptions must have the same length"));
        }
        let probes = handles.iter().copied().zip(descriptions.iter().map(String::as_str));
        Ok(Uint32Array::new(self.inner.hub_handles(probes)))
    }
}

/// `{ threadCount, oldestAccessTime }`
#[napi(object)]
pub struct NativeStateStats {
    pub thread_count: u32,
    pub oldest_access_time: Option<f64>,
}

/// Per-thread loaded names with TTL (`storage: 'in-memory'`).
#[napi]
pub struct NativeLoadedNameStore {
    inner: InMemoryStore,
}

#[napi]
impl NativeLoadedNameStore {
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self { inner: InMemoryStore::new() }
    }

    /// The thread's names (creates or touches the entry).
    #[napi(catch_unwind)]
    pub fn loaded_names(&self, thread: String) -> Vec<String> {
        self.inner.loaded_names(&thread)
    }

    #[napi(catch_unwind)]
    pub fn add_loaded(&self, thread: String, names: Vec<String>) {
        self.inner.add_loaded(&thread, &names);
    }

    #[napi(catch_unwind)]
    pub fn clear(&self, thread: String) {
        self.inner.clear(&thread);
    }

    #[napi(catch_unwind)]
    pub fn clear_all(&self) {
        self.inner.clear_all();
    }

    /// Evicts threads idle for longer than `ttlMs`; returns how many.
    #[napi(catch_unwind)]
    pub fn cleanup(&self, ttl_ms: f64) -> u32 {
        self.inner.cleanup(ttl_ms) as u32
    }

    #[napi(catch_unwind)]
    pub fn stats(&self) -> NativeStateStats {
        let s = self.inner.stats();
        NativeStateStats { thread_count: s.thread_count as u32, oldest_access_time: s.oldest_access_time }
    }
}

/// A completed `search_tools`/`load_tool` result from the messages, reduced to what can
/// activate names.
#[napi(object)]
pub struct NativeActivationRecord {
    /// true for `load_tool`, false for `search_tools`
    pub load_tool: bool,
    pub success: bool,
    pub tool_name: Option<String>,
    pub loaded: Vec<String>,
    pub receipt: Option<Vec<String>>,
}

/// `storage: 'context'`: message-derived names plus the same-process supplemental set.
#[napi]
pub struct NativeContextNameStore {
    inner: SupplementalStore,
}

#[napi]
impl NativeContextNameStore {
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self { inner: SupplementalStore::new() }
    }

    /// Names activated by `records` (message order), unioned with the thread's
    /// supplemental names. `hasMessages` = live step messages were scanned (prunes).
    #[napi(catch_unwind)]
    pub fn loaded_names(&self, thread: Option<String>, records: Vec<NativeActivationRecord>, has_messages: bool) -> Vec<String> {
        let records: Vec<ActivationRecord> = records
            .into_iter()
            .map(|r| ActivationRecord {
                meta_tool: if r.load_tool { MetaTool::LoadTool } else { MetaTool::SearchTools },
                success: r.success,
                tool_name: r.tool_name,
                loaded: r.loaded,
                receipt: r.receipt,
            })
            .collect();
        let from_messages = store::derive_activated_names(&records);
        self.inner.loaded_names(thread.as_deref(), from_messages, has_messages)
    }

    #[napi(catch_unwind)]
    pub fn add_loaded(&self, thread: Option<String>, names: Vec<String>) {
        self.inner.add_loaded(thread.as_deref(), &names);
    }

    #[napi(catch_unwind)]
    pub fn clear_all(&self) {
        self.inner.clear_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_build_becomes_an_error() {
        let Err(error) = guarded_build("building the tool catalog", || panic!("index out of range")) else {
            panic!("the panic was not caught");
        };
        assert_eq!(error.reason, "building the tool catalog failed: index out of range");
        let Err(formatted) = guarded_build("overlay", || panic!("{} left", 3)) else {
            panic!("the panic was not caught");
        };
        assert_eq!(formatted.reason, "overlay failed: 3 left");
    }

    #[test]
    fn joined_names_are_checked_like_the_core_build() {
        let utf8 = |s: &str| s.as_bytes().to_vec();
        let options = |mode, key_conflicts| BuildOptions::new(mode).validated(RESERVED_NAMES, key_conflicts);
        let check = |joined: &[u8], count, mode, key_conflicts| {
            joined_source(joined, count).and_then(|source| source.check(&options(mode, key_conflicts)).map_err(build_error))
        };
        let cases = [
            ("a\0\0x\0b\0a\0y", 2, "duplicate name \"a\""),
            ("a\0\0x\0search_tools\0\0y", 2, "key=\"search_tools\", name=\"search_tools\""),
            ("天気\0\0x\0b\0天気\0y", 2, "duplicate name \"天気\""),
            ("a\0b\0x\0b\0z\0y", 2, "tool key \"b\" conflicts with the callable name of tool key \"a\""),
            ("a\0\0x", 2, "fewer fields"),
            ("a\0\0x\0b", 1, "more fields"),
        ];
        for (joined, count, expected) in cases {
            let error = check(&utf8(joined), count, SearchMode::Compatible, KeyConflicts::Reject).expect_err(joined);
            assert!(error.reason.contains(expected), "{joined:?}: {}", error.reason);
            // the build, from the joined text or from owned entries, fails the same way
            let reject = options(SearchMode::Compatible, KeyConflicts::Reject);
            let built = joined_source(&utf8(joined), count).and_then(|source| ToolCatalog::build(source, &reject).map_err(build_error));
            assert_eq!(built.expect_err(joined).reason, error.reason);
            if !error.reason.contains("fields") {
                let fields: Vec<&str> = joined.split('\0').collect();
                let entries: Vec<ToolEntry> = fields
                    .chunks(3)
                    .enumerate()
                    .map(|(i, f)| ToolEntry { key: f[0].into(), id: (!f[1].is_empty()).then(|| f[1].into()), description: f[2].into(), handle: i as u32 })
                    .collect();
                let core = ToolCatalog::build(entries.into(), &reject).expect_err(joined);
                assert_eq!(core.to_string(), error.reason);
            }
        }
        assert!(check(&utf8("a\0b\0x\0b\0z\0y"), 2, SearchMode::Compatible, KeyConflicts::Accept).is_ok());
        assert!(check(&utf8(""), 0, SearchMode::Enhanced, KeyConflicts::Reject).is_ok());
        assert!(check(&utf8("a\0\0x\0p"), 1, SearchMode::Enhanced, KeyConflicts::Reject).is_ok());
        assert!(check(&[b'a', 0, 0xff, 0, b'x'], 1, SearchMode::Compatible, KeyConflicts::Reject).unwrap_err().reason.contains("not UTF-8"));
    }
}

/// Positions of the `descriptions` over three times their average length (analysed words):
/// loaded on a guess only with more confidence.
#[napi(js_name = "longDescriptions", catch_unwind)]
pub fn long_descriptions(descriptions: Vec<String>) -> Uint32Array {
    Uint32Array::new(mastra_native_core::catalog::long_descriptions(descriptions.iter().map(String::as_str)))
}
