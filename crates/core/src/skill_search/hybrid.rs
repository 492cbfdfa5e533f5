//! Hybrid skill search: the enhanced ranking fused with a static embedding model's
//! (see [`crate::semantic`]). A skill is embedded once per build as its name and
//! description plus, at half weight, its SKILL.md body: the body is long and generic, so
//! at full weight it would drown the summary that says what the skill is for.

use std::sync::Arc;

use super::{SearchMode, SkillIndex, SkillInput};
use crate::catalog::{Evidence, Override};
use crate::enhanced::EnhancedIndex;
use crate::semantic::model::Encoder;
use crate::semantic::{self, tool_text, DocVectors, Fusion, SemanticDocs, StaticModel};

/// Weight of the body's unit vector next to the name + description's.
const BODY_WEIGHT: f32 = 0.5;

#[derive(Debug)]
pub(super) struct SkillSemantic {
    docs: SemanticDocs,
    fusion: Fusion,
}

impl SkillSemantic {
    fn build(skills: &[SkillInput], model: Arc<StaticModel>) -> Self {
        let dim = model.dim();
        let mut vectors = DocVectors::new(dim);
        let mut encoder = Encoder::new(&model);
        let (mut meta, mut body) = (vec![0.0; dim], vec![0.0; dim]);
        // (a skill's language is its summary's; the body only adds to the vector)
        let mut scripts = Vec::with_capacity(skills.len());
        for s in skills {
            meta.fill(0.0);
            body.fill(0.0);
            let script = semantic::tool_script(&s.name, &s.description);
            scripts.push(script);
            encoder.add_text(&tool_text(&s.name, &s.description), &mut meta);
            encoder.add_text(&s.instructions, &mut body);
            model.finish_as(script, &mut meta);
            model.finish(&s.instructions, &mut body);
            for (m, b) in meta.iter_mut().zip(&body) {
                *m += BODY_WEIGHT * b;
            }
            vectors.push_unnormalized(&mut meta);
        }
        drop(encoder);
        Self { docs: SemanticDocs::new(model, vectors, scripts), fusion: Fusion::default() }
    }

    /// Per skill of `skills`: its lexical score for `query` (0 when not among the lexical
    /// candidates fused) and the model's plain cosine, for preload's confidence.
    pub(super) fn evidence(&self, lexical: &EnhancedIndex, query: &str, skills: &[u32]) -> Vec<Evidence> {
        let depth = self.fusion.lexical_depth.max(skills.len());
        let scores: rustc_hash::FxHashMap<u32, f64> = lexical.search_top(query, depth).into_iter().collect();
        let cosines = self.docs.plain_cosines(query, skills);
        skills
            .iter()
            .zip(cosines)
            .map(|(skill, cosine)| Evidence { lexical: scores.get(skill).copied().unwrap_or(0.0), cosine: f64::from(cosine) })
            .collect()
    }

    /// Fused `(skill, score)` best first; `want` skills are needed after de-duplication.
    /// With `over` (a user's embedder), its vectors and weights on the semantic side.
    pub(super) fn rank(&self, lexical: &EnhancedIndex, query: &str, want: usize, names_unique: bool, over: Option<Override<'_>>) -> Vec<(u32, f64)> {
        let fusion = &match over {
            Some(Override { weights: Some(knobs), .. }) => knobs.apply(self.fusion),
            _ => self.fusion,
        };
        let depth = fusion.lexical_depth.max(want);
        let lexical = if names_unique { lexical.search_top(query, depth) } else { lexical.search(query) };
        let semantic_depth = fusion.semantic_depth.max(want);
        let semantic = match over {
            Some(Override { docs, query_vector, .. }) => docs.top_for_vector(query, query_vector, semantic_depth, fusion),
            None => self.docs.top(query, semantic_depth, fusion),
        };
        fusion.fuse(query, &lexical, &semantic, &self.docs.cjk)
    }
}

impl SkillIndex {
    /// An enhanced index whose ranking is fused with `model`'s; scores are the fused
    /// scores in (0, 1] (see [`crate::semantic::fusion`]), `minScore` compares with them.
    pub fn build_hybrid(skills: &[SkillInput], declared_documents: f64, model: Arc<StaticModel>) -> Self {
        let mut index = Self::build(skills, SearchMode::Enhanced, declared_documents);
        index.semantic = Some(SkillSemantic::build(skills, model));
        index
    }

    /// What each of `skills` (hit indices) rests on for `query` in a hybrid index (see
    /// [`crate::catalog::Evidence`]); None for the other modes.
    pub fn evidence(&self, query: &str, skills: &[u32]) -> Option<Vec<Evidence>> {
        match (&self.semantic, &self.enhanced) {
            (Some(semantic), Some(index)) => Some(semantic.evidence(index, query, skills)),
            _ => None,
        }
    }

    /// A hybrid index's skills with a user's vectors (`rows`: one per skill, in order, `dim`
    /// each), for [`Self::search_with`]; None for the other modes or rows that do not fit.
    pub fn semantic_override(&self, rows: &[f32], dim: usize) -> Option<SemanticDocs> {
        self.semantic.as_ref()?.docs.with_rows(rows, dim)
    }

    /// Whether searches fuse in the semantic ranking.
    pub fn is_hybrid(&self) -> bool {
        self.semantic.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantic::tests::tiny_model;

    fn skill(name: &str, description: &str) -> SkillInput {
        SkillInput { name: name.into(), description: description.into(), instructions: format!("How to {description}."), references: vec![] }
    }

    #[test]
    fn evidence_is_each_hits_lexical_score_and_plain_cosine() {
        let skills = [skill("weather", "Get the forecast for a location"), skill("mail", "Send a message to a recipient")];
        let hybrid = SkillIndex::build_hybrid(&skills, 2.0, tiny_model());
        let enhanced = SkillIndex::build(&skills, SearchMode::Enhanced, 2.0);
        let hits = hybrid.search("send a message", 5.0, 0.0);
        let ids: Vec<u32> = hits.iter().map(|h| h.skill).collect();
        let evidence = hybrid.evidence("send a message", &ids).expect("hybrid");
        assert_eq!(evidence.len(), ids.len());
        let lexical = enhanced.search("send a message", 5.0, 0.0);
        for (id, e) in ids.iter().zip(&evidence) {
            let expected = lexical.iter().find(|h| h.skill == *id).map_or(0.0, |h| h.score);
            assert!((e.lexical - expected).abs() < 1e-9, "{id}: {e:?} vs {expected}");
            assert!(e.cosine > -1.0 && e.cosine <= 1.0 + 1e-6);
        }
        // (an index past the end has nothing to show, and no panic)
        assert_eq!(hybrid.evidence("send", &[99]).unwrap()[0], Evidence { lexical: 0.0, cosine: 0.0 });
        assert!(enhanced.evidence("send", &ids).is_none());
    }
}
