//! Native half of SkillSearchProcessor: the skill index. Skill texts cross once per
//! (re)build as parallel arrays; searches return skill indices, document sources and scores.
//! Enhanced mode (opt-in) indexes one document per skill and ranks "Did you mean" names.

use mastra_native_core::skill_search::{SearchMode, SkillIndex, SkillInput};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::tool_search::{embedder_fusion, NativeSemanticOverride};

use crate::semantic::NativeSemanticModel;

/// Ranked documents as parallel typed arrays.
#[napi(object)]
pub struct NativeSkillHits {
    /// Index of the skill in the build order.
    pub skills: Uint32Array,
    /// 0 = SKILL.md, `i + 1` = the skill's `i`-th indexed reference.
    pub sources: Uint32Array,
    /// Unrounded scores.
    pub scores: Float64Array,
}

/// Skills from the parallel arrays the constructors take.
fn skill_inputs(
    names: Vec<String>,
    descriptions: Vec<String>,
    instructions: Vec<String>,
    reference_counts: Vec<u32>,
    reference_texts: Vec<String>,
) -> Result<Vec<SkillInput>> {
    let n = names.len();
    if descriptions.len() != n || instructions.len() != n || reference_counts.len() != n {
        return Err(Error::new(
            Status::InvalidArg,
            "names, descriptions, instructions and referenceCounts must have the same length",
        ));
    }
    let total: u64 = reference_counts.iter().map(|&c| u64::from(c)).sum();
    if total != reference_texts.len() as u64 {
        return Err(Error::new(Status::InvalidArg, "referenceTexts must hold sum(referenceCounts) items"));
    }
    let mut refs = reference_texts.into_iter();
    Ok(names
        .into_iter()
        .zip(descriptions)
        .zip(instructions)
        .zip(reference_counts)
        .map(|(((name, description), instructions), count)| SkillInput {
            name,
            description,
            instructions,
            references: refs.by_ref().take(count as usize).collect(),
        })
        .collect())
}

/// A searchable skill set (BM25, substring mode for workspaces without BM25, or enhanced).
#[napi]
pub struct NativeSkillIndex {
    inner: SkillIndex,
}

#[napi]
impl NativeSkillIndex {
    /// Skills in `list()` order. `referenceCounts[i]` references of skill `i` come next in
    /// `referenceTexts`. `declaredDocuments` = Σ (1 + references.length), as the reference
    /// counts them for its engine `topK`. `enhanced` selects the multilingual BM25F index
    /// (one document per skill; `substring` is then ignored).
    // Parallel arrays are the cheap way across the boundary; a struct would copy every text.
    #[allow(clippy::too_many_arguments)]
    #[napi(constructor, catch_unwind)]
    pub fn new(
        names: Vec<String>,
        descriptions: Vec<String>,
        instructions: Vec<String>,
        reference_counts: Vec<u32>,
        reference_texts: Vec<String>,
        declared_documents: f64,
        substring: bool,
        enhanced: Option<bool>,
    ) -> Result<Self> {
        let skills = skill_inputs(names, descriptions, instructions, reference_counts, reference_texts)?;
        let mode = if enhanced == Some(true) {
            SearchMode::Enhanced
        } else if substring {
            SearchMode::Substring
        } else {
            SearchMode::Bm25
        };
        Ok(Self { inner: SkillIndex::build(&skills, mode, declared_documents) })
    }

    /// Hybrid index (enhanced, fused with `model`'s ranking); arguments as the constructor's.
    #[allow(clippy::too_many_arguments)]
    #[napi(factory, catch_unwind)]
    pub fn hybrid(
        names: Vec<String>,
        descriptions: Vec<String>,
        instructions: Vec<String>,
        reference_counts: Vec<u32>,
        reference_texts: Vec<String>,
        declared_documents: f64,
        model: &NativeSemanticModel,
    ) -> Result<Self> {
        let skills = skill_inputs(names, descriptions, instructions, reference_counts, reference_texts)?;
        Ok(Self { inner: SkillIndex::build_hybrid(&skills, declared_documents, model.inner.clone()) })
    }

    /// Ranked documents with the reference's `topK` (documents, not skills; skills in enhanced
    /// mode) and `minScore`.
    #[napi(catch_unwind)]
    pub fn search(&self, query: String, top_k: f64, min_score: f64) -> NativeSkillHits {
        skill_hits(&self.inner.search(&query, top_k, min_score))
    }

    /// What each of `skills` (hit indices) rests on for `query` in a hybrid index, for
    /// preload's confidence: `[lexical score, plain cosine]` per skill, flat; empty otherwise.
    #[napi(catch_unwind)]
    pub fn evidence(&self, query: String, skills: Uint32Array) -> Float64Array {
        let evidence = self.inner.evidence(&query, &skills).unwrap_or_default();
        Float64Array::new(evidence.iter().flat_map(|e| [e.lexical, e.cosine]).collect())
    }

    /// A hybrid index's skills with a user's vectors: `rows` one vector of `dim` values per
    /// skill, in index order; searches through it weigh its semantic side `semanticLatin` /
    /// `semanticCjk`, with `sameScript` / `crowdingCjk` as for a tool catalog's override.
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
            Error::new(Status::InvalidArg, format!("semanticOverride: expected {} finite vectors of {dim} values for a hybrid skill index", self.inner.skill_count()))
        })?;
        Ok(NativeSemanticOverride::new(docs, &self.inner as *const SkillIndex as usize, dim, knobs))
    }

    /// [`Self::search`] with a user's embedder on the semantic side (`over` from this index's
    /// `semanticOverride`, `vector` the query's embedding).
    #[napi(catch_unwind)]
    pub fn search_over(&self, query: String, vector: Float32Array, over: &NativeSemanticOverride, top_k: f64, min_score: f64) -> Result<NativeSkillHits> {
        let over = over.for_owner(&self.inner as *const SkillIndex as usize, &vector)?;
        Ok(skill_hits(&self.inner.search_with(&query, top_k, min_score, Some(over))))
    }

    /// Number of skills.
    #[napi(getter, catch_unwind)]
    pub fn skill_count(&self) -> u32 {
        self.inner.skill_count() as u32
    }

    /// Indexed documents (SKILL.md bodies + readable references).
    #[napi(getter, catch_unwind)]
    pub fn document_count(&self) -> u32 {
        self.inner.document_count() as u32
    }

    /// Distinct terms (0 in enhanced mode).
    #[napi(getter, catch_unwind)]
    pub fn term_count(&self) -> u32 {
        self.inner.term_count() as u32
    }
}

/// The workspace search engine's default tokenizer (exposed for tests and diagnostics).
#[napi(catch_unwind)]
pub fn native_workspace_tokens(text: String) -> Vec<String> {
    mastra_native_core::skill_search::workspace_tokens(&text)
}

/// "Did you mean" for `load_skill` in enhanced mode: indices into `candidates`, best first
/// (edit distance, shared words, substrings), at most `limit`.
#[napi(catch_unwind)]
pub fn native_skill_suggestions(requested: String, candidates: Vec<String>, limit: u32) -> Vec<u32> {
    let names: Vec<&str> = candidates.iter().map(String::as_str).collect();
    mastra_native_core::enhanced::suggest(&requested, &names, limit as usize)
}

fn skill_hits(hits: &[mastra_native_core::skill_search::SkillHit]) -> NativeSkillHits {
    NativeSkillHits {
        skills: Uint32Array::new(hits.iter().map(|h| h.skill).collect()),
        sources: Uint32Array::new(hits.iter().map(|h| h.source).collect()),
        scores: Float64Array::new(hits.iter().map(|h| h.score).collect()),
    }
}
