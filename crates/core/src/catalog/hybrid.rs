//! Hybrid search (opt-in): enhanced ranking fused with a static embedding model's, or with a
//! user's embedder's vectors ([`Override`]).

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::entries::Entries;
use super::{Evidence, Hit, Ranker, SearchParams, ToolCatalog};
use crate::enhanced::EnhancedIndex;
use crate::semantic::{self, DocVectors, Fusion, SemanticDocs, StaticModel};

/// Hybrid ranking state: the enhanced index, the documents' vectors (row = slot) and the
/// fusion knobs.
#[derive(Debug)]
pub struct HybridRanker {
    lexical: EnhancedIndex,
    semantic: SemanticDocs,
    fusion: Fusion,
}

impl HybridRanker {
    /// Its lexical side (the enhanced index).
    pub(super) fn lexical(&self) -> &EnhancedIndex {
        &self.lexical
    }
}

impl ToolCatalog {
    /// Overrides the fusion knobs (quality tuning).
    #[doc(hidden)]
    pub fn set_fusion(&mut self, fusion: Fusion) {
        if let Ranker::Hybrid(h) = &mut self.ranker {
            h.fusion = fusion;
        }
    }

    /// An enhanced catalog turned hybrid. Documents whose name and description equal one
    /// of `base`'s keep its vector instead of being embedded again.
    pub(super) fn into_hybrid(mut self, model: Arc<StaticModel>, base: Option<(&ToolCatalog, &HybridRanker)>) -> Self {
        let Ranker::Enhanced(lexical) = std::mem::replace(&mut self.ranker, Ranker::Enhanced(Box::default())) else {
            return self;
        };
        let mut base_rows: HashMap<(&str, &str), usize> = HashMap::default();
        if let Some((base, hybrid)) = base.filter(|(_, h)| h.semantic.model.as_ref().is_some_and(|m| Arc::ptr_eq(m, &model))) {
            for (slot, &pos) in base.slot_entry.iter().enumerate() {
                let e = base.entries.get(pos as usize);
                if slot < hybrid.semantic.vectors.len() {
                    base_rows.insert((e.name(), e.description), slot);
                }
            }
        }
        // Per slot: the base row to reuse, or the text to embed (all embedded in one batch).
        let reuse: Vec<Option<usize>> = self
            .slot_entry
            .iter()
            .map(|&pos| {
                let e = self.entries.get(pos as usize);
                base_rows.get(&(e.name(), e.description)).copied()
            })
            .collect();
        let texts: Vec<String> = self
            .slot_entry
            .iter()
            .zip(&reuse)
            .filter(|(_, r)| r.is_none())
            .map(|(&pos, _)| {
                let e = self.entries.get(pos as usize);
                semantic::tool_text(e.name(), e.description)
            })
            .collect();
        let embedded = DocVectors::build_many(&model, &texts);
        let vectors = match base {
            Some((_, hybrid)) if texts.len() < reuse.len() => {
                let mut vectors = DocVectors::new(model.dim());
                let mut next = 0;
                for r in &reuse {
                    match r {
                        Some(slot) => vectors.push_row_of(&hybrid.semantic.vectors, *slot),
                        None => {
                            vectors.push_row_of(&embedded, next);
                            next += 1;
                        }
                    }
                }
                vectors
            }
            _ => embedded,
        };
        let semantic = SemanticDocs::new(model, vectors, self.slot_scripts());
        self.ranker = Ranker::Hybrid(Box::new(HybridRanker { lexical: *lexical, semantic, fusion: Fusion::default() }));
        self
    }

    /// [`Self::overlay`] of a hybrid base: the entries' documents whose text a base document
    /// has keep its vector.
    pub(super) fn hybrid_overlay(base: &ToolCatalog, hybrid: &HybridRanker, entries: Entries<'_>, live: Vec<bool>) -> Self {
        // (a hybrid ranker's documents always come from a model: see `into_hybrid`)
        let Some(model) = hybrid.semantic.model.clone() else { return Self::enhanced(entries, live) };
        let mut catalog = Self::enhanced(entries, live).into_hybrid(model, Some((base, hybrid)));
        catalog.set_fusion(hybrid.fusion);
        catalog
    }

    /// Fused ranking (see [`crate::semantic::fusion`]): `score` is the fused score in
    /// (0, 1]; `minScore` applies to it; only tools whose id is their name are returned.
    pub(super) fn search_hybrid(&self, hybrid: &HybridRanker, query: &str, params: SearchParams) -> Vec<Hit> {
        self.fused_hits(&hybrid.lexical, Some(&hybrid.semantic), hybrid.fusion, query, params, None).hits.into_iter().map(|(hit, _)| hit).collect()
    }

    /// Fused hits with their slots, and the lexical candidates fused: `lexical` fused with
    /// `over`'s semantic side (a user's embedder) when given, else with `semantic`'s.
    fn fused_hits(
        &self,
        lexical: &EnhancedIndex,
        semantic: Option<&SemanticDocs>,
        fusion: Fusion,
        query: &str,
        params: SearchParams,
        over: Option<Override<'_>>,
    ) -> Fused {
        if params.top_k == 0 && !params.inspect_all {
            return Fused { hits: Vec::new(), lexical: Vec::new(), embedded: None };
        }
        // A user's embedder takes its own semantic weights (its cosines are not the shipped model's).
        let fusion = &match over {
            Some(Override { weights: Some(knobs), .. }) => knobs.apply(fusion),
            _ => fusion,
        };
        let lexical_depth = if params.inspect_all { usize::MAX } else { fusion.lexical_depth.max(params.top_k) };
        let index = lexical;
        let lexical = index.search_top(query, lexical_depth);
        let depth = fusion.semantic_depth.max(params.top_k);
        let mut embedded = None;
        let (ranked, cjk) = match (over, semantic) {
            (Some(Override { docs, query_vector, .. }), _) => (docs.top_for_vector(query, query_vector, depth, fusion), &docs.cjk),
            (None, Some(docs)) => {
                embedded = docs.embed(query);
                (docs.top_embedded(embedded.as_ref(), query, depth, fusion), &docs.cjk)
            }
            (None, None) => (Vec::new(), &Vec::new()),
        };
        let mut fused = fusion.fuse(query, &lexical, &ranked, cjk);
        // Siblings' vectors are near-identical: the action the request asks for (already in
        // the lexical scores) decides between them on the semantic side too.
        let wanted = index.query_actions(query);
        if !wanted.is_empty() {
            weigh_separated_siblings(index, wanted, &mut fused);
        }
        let hits = self.slotted_hits_from(fused, params);
        Fused { hits, lexical, embedded }
    }

    /// The text each document's vector embeds, in slot order (what a user's embedder embeds
    /// for [`Self::semantic_override`]): hybrid and enhanced catalogs; empty for compatible.
    pub fn semantic_texts(&self) -> Vec<String> {
        if matches!(self.ranker, Ranker::Compatible { .. }) {
            return Vec::new();
        }
        self.slot_entry
            .iter()
            .map(|&pos| {
                let e = self.entries.get(pos as usize);
                semantic::tool_text(e.name(), e.description)
            })
            .collect()
    }

    /// Each slot's script (see [`semantic::tool_script`]), in slot order.
    fn slot_scripts(&self) -> Vec<semantic::Script> {
        self.slot_entry
            .iter()
            .map(|&pos| {
                let e = self.entries.get(pos as usize);
                semantic::tool_script(e.name(), e.description)
            })
            .collect()
    }

    /// This catalog's documents with a user's vectors (`rows`: one per
    /// [`Self::semantic_texts`] text, `dim` each): hybrid catalogs keep their model beside them,
    /// enhanced ones get the vectors alone. None for compatible catalogs or rows that do not fit.
    pub fn semantic_override(&self, rows: &[f32], dim: usize) -> Option<SemanticDocs> {
        match &self.ranker {
            Ranker::Hybrid(hybrid) => hybrid.semantic.with_rows(rows, dim),
            Ranker::Enhanced(_) => SemanticDocs::from_rows(rows, dim, self.slot_scripts()),
            Ranker::Compatible { .. } => None,
        }
    }

    /// [`Self::search`] with the semantic side from `over` when given: a hybrid catalog's
    /// fusion with the user's vectors in place of the model's, an enhanced catalog's ranking
    /// fused with them (the default fusion); compatible catalogs ignore it.
    pub fn search_with(&self, query: &str, params: SearchParams, over: Option<Override<'_>>) -> Vec<Hit> {
        let fused = match (&self.ranker, over) {
            (Ranker::Hybrid(hybrid), Some(_)) => self.fused_hits(&hybrid.lexical, Some(&hybrid.semantic), hybrid.fusion, query, params, over),
            (Ranker::Enhanced(index), Some(_)) => self.fused_hits(index, None, Fusion::default(), query, params, over),
            _ => return self.search(query, params),
        };
        fused.hits.into_iter().map(|(hit, _)| hit).collect()
    }

    /// [`Self::search_with`], each hit with its [`Evidence`] when this catalog is hybrid (the
    /// other rankers have only their score to show). The evidence is the shipped model's
    /// (lexical score, its plain cosine) whatever ranks the semantic side, so that preload's
    /// confidence reads what it was fitted on.
    pub fn search_with_evidence(&self, query: &str, params: SearchParams, over: Option<Override<'_>>) -> Vec<(Hit, Option<Evidence>)> {
        let Ranker::Hybrid(hybrid) = &self.ranker else {
            return self.search_with(query, params, over).into_iter().map(|hit| (hit, None)).collect();
        };
        let Fused { hits, lexical, embedded } = self.fused_hits(&hybrid.lexical, Some(&hybrid.semantic), hybrid.fusion, query, params, over);
        let slots: Vec<u32> = hits.iter().map(|(_, slot)| *slot).collect();
        // (the query's vector from the fusion when the shipped model ranked; a user's embedder
        // ranked otherwise, and the evidence is still the shipped model's)
        let embedded = embedded.or_else(|| hybrid.semantic.embed(query));
        let cosines = hybrid.semantic.plain_cosines_of(embedded.as_ref(), &slots);
        let lexical_scores: rustc_hash::FxHashMap<u32, f64> = lexical.iter().copied().collect();
        let lexical_of = |slot: u32| lexical_scores.get(&slot).copied().unwrap_or(0.0);
        hits.into_iter()
            .zip(cosines)
            .map(|((hit, slot), cosine)| (hit, Some(Evidence { lexical: lexical_of(slot), cosine: f64::from(cosine) })))
            .collect()
    }
}

/// Scales the fused score of each tool in `fused` by its action factor when the action
/// `wanted` separates it from its siblings there: two or more of its family are among the
/// candidates and their factors differ. Where they all get the same factor (none performs
/// the asked action, or all do) the action says nothing about which sibling is meant, and a
/// factor would only move them against unrelated tools (what cost multilingual requests
/// whose words read as an action none of their candidates performs).
fn weigh_separated_siblings(index: &EnhancedIndex, wanted: crate::enhanced::action::Actions, fused: &mut [(u32, f64)]) {
    // per family among the candidates: how many, and the least and largest factor
    let mut families: HashMap<u32, (u32, f32, f32)> = HashMap::default();
    for (doc, _) in fused.iter() {
        if let Some(family) = index.sibling_family(*doc) {
            let factor = index.action_factor(wanted, *doc);
            let entry = families.entry(family).or_insert((0, factor, factor));
            entry.0 += 1;
            entry.1 = entry.1.min(factor);
            entry.2 = entry.2.max(factor);
        }
    }
    let separated = |doc: u32| {
        index.sibling_family(doc).and_then(|f| families.get(&f)).is_some_and(|&(n, least, largest)| n >= 2 && least < largest)
    };
    let mut changed = false;
    for (doc, score) in fused.iter_mut() {
        if separated(*doc) {
            *score = (*score * f64::from(index.action_factor(wanted, *doc))).min(1.0);
            changed = true;
        }
    }
    if changed {
        fused.sort_by(|a, b| b.1.total_cmp(&a.1));
    }
}

/// What [`ToolCatalog::fused_hits`] found: the hits with their slots, the lexical ranking, and
/// the query's vector when the shipped model embedded it (preload's evidence reuses it).
struct Fused {
    hits: Vec<(Hit, u32)>,
    lexical: Vec<(u32, f64)>,
    embedded: Option<(Vec<f32>, crate::semantic::Script)>,
}

/// A user's embedder on the semantic side of a hybrid search: the catalog's documents with
/// its vectors ([`ToolCatalog::semantic_override`]) and the query's vector.
#[derive(Clone, Copy)]
pub struct Override<'a> {
    pub docs: &'a SemanticDocs,
    pub query_vector: &'a [f32],
    /// The fusion's knobs for it (weights and corrections, see [`crate::semantic::EmbedderFusion`]); None keeps the catalog's.
    pub weights: Option<crate::semantic::EmbedderFusion>,
}

#[cfg(test)]
mod tests {
    use super::weigh_separated_siblings;
    use crate::enhanced::{EnhancedIndex, Field, FieldDoc};

    fn index(names: &[&str]) -> EnhancedIndex {
        let docs: Vec<FieldDoc> = names.iter().map(|n| FieldDoc::new(vec![(Field::Name, (*n).to_owned())])).collect();
        EnhancedIndex::build(&docs)
    }

    #[test]
    fn the_action_moves_only_siblings_it_separates() {
        let index = index(&["github_list_issues", "github_get_issue", "calendar_create_event", "calendar_delete_event", "weather_forecast"]);
        let wanted = index.query_actions("pull up issue 412");
        // the calendar siblings are both penalised alike: the action does not tell them apart
        let mut fused = vec![(2, 0.9), (4, 0.8), (3, 0.7), (0, 0.6), (1, 0.5)];
        weigh_separated_siblings(&index, wanted, &mut fused);
        assert_eq!(fused[..3], [(2, 0.9), (4, 0.8), (3, 0.7)]);
        // the asked sibling (get) passes its list sibling
        assert_eq!(fused[3].0, 1);
        assert!((fused[3].1 - 0.6).abs() < 1e-6, "{fused:?}");
        assert_eq!(fused[4], (0, 0.6));
        // one member of a family among the candidates: nothing to separate
        let mut lone = vec![(2, 0.9), (4, 0.8), (1, 0.5)];
        weigh_separated_siblings(&index, wanted, &mut lone);
        assert_eq!(lone, [(2, 0.9), (4, 0.8), (1, 0.5)]);
    }
}
