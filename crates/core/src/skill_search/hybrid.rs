//! Hybrid skill search: the enhanced ranking fused with a static embedding model's
//! (see [`crate::semantic`]). A skill is embedded once per build as its name and
//! description plus, at half weight, its SKILL.md body: the body is long and generic, so
//! at full weight it would drown the summary that says what the skill is for.

use std::sync::Arc;

use super::{SearchMode, SkillIndex, SkillInput};
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

    /// Fused `(skill, score)` best first; `want` skills are needed after de-duplication.
    pub(super) fn rank(&self, lexical: &EnhancedIndex, query: &str, want: usize, names_unique: bool) -> Vec<(u32, f64)> {
        let depth = self.fusion.lexical_depth.max(want);
        let lexical = if names_unique { lexical.search_top(query, depth) } else { lexical.search(query) };
        let semantic = self.docs.top(query, self.fusion.semantic_depth.max(want), &self.fusion);
        self.fusion.fuse(query, &lexical, &semantic, &self.docs.cjk)
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

    /// Whether searches fuse in the semantic ranking.
    pub fn is_hybrid(&self) -> bool {
        self.semantic.is_some()
    }
}
