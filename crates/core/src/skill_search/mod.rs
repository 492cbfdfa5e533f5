//! Skill index for SkillSearchProcessor.
//!
//! One index per skill set, rebuilt by the JS layer only when the workspace's skills change.
//! Two corpora share a vocabulary:
//! - `body`: the documents `@mastra/core`'s workspace search engine indexes for skills — each
//!   SKILL.md body and each reference file, in the same order — so BM25 statistics (N, avgdl,
//!   df) and tie order are the reference's.
//! - `meta`: one document per skill, `name + description` (deliberate difference 7: the
//!   reference never indexes them).
//!
//! A SKILL.md hit scores `bm25(body) + bm25(meta)`. For a query whose words occur in no name or
//! description the meta part is empty, so scores and order equal the reference's exactly.
//!
//! Without a BM25 engine the reference falls back to a case-insensitive substring scan
//! ([`SearchMode::Substring`]); that mode is mirrored too (name and description included).
//!
//! Opt-in [`SearchMode::Enhanced`] replaces both with [`crate::enhanced`]: one BM25F document
//! per skill (name, description, SKILL.md body, reference files as fields), so a hit is a skill
//! and `topK` counts skills. Hits report the SKILL.md (`source` 0) as their document.

mod hybrid;
mod letters;
pub mod tokenize;

use std::collections::HashMap;

use crate::bm25::{top_by_score, Bm25Index, Scored, TermCounts, Vocab};
use crate::enhanced::{EnhancedIndex, Field, FieldDoc};
pub use tokenize::workspace_tokens;

/// One skill's searchable content.
#[derive(Debug, Clone, Default)]
pub struct SkillInput {
    pub name: String,
    pub description: String,
    /// SKILL.md body (front matter removed, trimmed), as `skills.get()` returns it.
    pub instructions: String,
    /// Contents of the readable reference files, in `skill.references` order.
    pub references: Vec<String>,
}

/// How the workspace searches skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchMode {
    /// Workspace with `bm25`: BM25 over the workspace tokenizer.
    Bm25,
    /// Workspace without a search engine: substring match (SKILL.md 1, reference 0.8).
    Substring,
    /// Opt-in multilingual BM25F over one document per skill (the workspace engine is unused).
    Enhanced,
}

/// A ranked document: the skill, which of its documents (0 = SKILL.md, `i + 1` =
/// `references[i]`), and the unrounded score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkillHit {
    pub skill: u32,
    pub source: u32,
    pub score: f64,
}

/// Lowercased texts for substring mode.
#[derive(Debug, Default)]
struct LowerSkill {
    name: String,
    description: String,
    instructions: String,
    references: Vec<String>,
}

/// Searchable skill set.
#[derive(Debug)]
pub struct SkillIndex {
    mode: SearchMode,
    skill_count: usize,
    /// Documents the reference counts for its engine `topK` (`1 + references.length` per
    /// skill, unreadable references included).
    declared_documents: f64,
    vocab: Vocab,
    body: Bm25Index,
    /// `(skill, source)` per body slot.
    body_docs: Vec<(u32, u32)>,
    /// Slot = skill index.
    meta: Bm25Index,
    lower: Vec<LowerSkill>,
    /// Enhanced mode: doc = skill index.
    enhanced: Option<EnhancedIndex>,
    /// Enhanced mode: skill slot → first slot with the same name (results are per name).
    name_group: Vec<u32>,
    /// Enhanced mode: no two skills share a name, so no hit can be a duplicate.
    names_unique: bool,
    /// Hybrid search (enhanced mode with a static embedding model; see [`hybrid`]).
    semantic: Option<hybrid::SkillSemantic>,
    /// SKILL.md bodies + readable references (all modes).
    documents: usize,
}

/// Term counts in first-occurrence order, hashed (SKILL.md bodies can be megabytes).
fn term_counts(vocab: &mut Vocab, tokens: &[String]) -> TermCounts {
    let mut position: HashMap<u32, usize> = HashMap::new();
    let mut counts: Vec<(u32, u32)> = Vec::new();
    for token in tokens {
        let id = vocab.intern(token);
        match position.get(&id) {
            Some(&i) => counts[i].1 += 1,
            None => {
                position.insert(id, counts.len());
                counts.push((id, 1));
            }
        }
    }
    TermCounts { counts, len: tokens.len() as u32 }
}

/// `Array.prototype.slice(0, end).length` for an array of `len` items.
fn js_slice_len(len: usize, end: f64) -> usize {
    if end.is_nan() {
        return 0;
    }
    let end = end.trunc();
    if end < 0.0 {
        let from_end = len as f64 + end;
        if from_end <= 0.0 {
            0
        } else {
            from_end as usize
        }
    } else if end >= len as f64 {
        len
    } else {
        end as usize
    }
}

/// `Math.max(a, b)` (NaN wins).
fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// How many hits a `for (…) { push; if (results.length >= topK) break; }` loop keeps.
fn loop_keep(available: usize, top_k: f64) -> usize {
    let mut kept = 0usize;
    // The loop body runs at least once, and stops once `kept >= topK`.
    while kept < available {
        kept += 1;
        if kept as f64 >= top_k {
            break;
        }
    }
    kept
}

impl SkillIndex {
    /// Builds the index for skills in `list()` order. `declared_documents` is the reference's
    /// engine document count (see the field).
    pub fn build(skills: &[SkillInput], mode: SearchMode, declared_documents: f64) -> Self {
        let mut index = Self {
            mode,
            skill_count: skills.len(),
            declared_documents,
            vocab: Vocab::new(),
            body: Bm25Index::default(),
            body_docs: Vec::new(),
            meta: Bm25Index::default(),
            lower: Vec::new(),
            enhanced: None,
            name_group: Vec::new(),
            names_unique: true,
            semantic: None,
            documents: skills.iter().map(|s| 1 + s.references.len()).sum(),
        };
        match mode {
            SearchMode::Bm25 => {
                let (mut body, mut meta) = (Vec::new(), Vec::with_capacity(skills.len()));
                for (i, skill) in skills.iter().enumerate() {
                    let skill_id = i as u32;
                    // Same order as WorkspaceSkills#indexSkill: SKILL.md, then each reference.
                    body.push(term_counts(&mut index.vocab, &workspace_tokens(&skill.instructions)));
                    index.body_docs.push((skill_id, 0));
                    for (r, text) in skill.references.iter().enumerate() {
                        body.push(term_counts(&mut index.vocab, &workspace_tokens(text)));
                        index.body_docs.push((skill_id, r as u32 + 1));
                    }
                    let mut meta_tokens = workspace_tokens(&skill.name);
                    meta_tokens.extend(workspace_tokens(&skill.description));
                    meta.push(term_counts(&mut index.vocab, &meta_tokens));
                }
                // (documents in slot order, built in one piece)
                index.body = Bm25Index::from_docs(body, index.vocab.len());
                index.meta = Bm25Index::from_docs(meta, index.vocab.len());
            }
            SearchMode::Substring => {
                index.lower = skills
                    .iter()
                    .map(|s| LowerSkill {
                        name: s.name.to_lowercase(),
                        description: s.description.to_lowercase(),
                        instructions: s.instructions.to_lowercase(),
                        references: s.references.iter().map(|r| r.to_lowercase()).collect(),
                    })
                    .collect();
            }
            SearchMode::Enhanced => {
                let docs: Vec<FieldDoc> = skills
                    .iter()
                    .map(|s| {
                        let mut fields = vec![
                            (Field::Name, s.name.clone()),
                            (Field::Description, s.description.clone()),
                            (Field::Body, s.instructions.clone()),
                        ];
                        fields.extend(s.references.iter().map(|r| (Field::References, r.clone())));
                        FieldDoc::new(fields)
                    })
                    .collect();
                index.enhanced = Some(EnhancedIndex::build(&docs));
                let mut first: HashMap<&str, u32> = HashMap::new();
                index.name_group =
                    skills.iter().enumerate().map(|(i, s)| *first.entry(s.name.as_str()).or_insert(i as u32)).collect();
                index.names_unique = first.len() == skills.len();
            }
        }
        index
    }

    pub fn mode(&self) -> SearchMode {
        self.mode
    }

    pub fn skill_count(&self) -> usize {
        self.skill_count
    }

    /// Indexed documents (SKILL.md bodies + readable references).
    pub fn document_count(&self) -> usize {
        self.documents
    }

    /// Distinct terms in the compatible vocabulary (0 in enhanced mode, which keeps its own).
    pub fn term_count(&self) -> usize {
        self.vocab.len()
    }

    /// Ranked documents for `query`, with the reference's `topK`/`minScore` semantics
    /// (`topK` counts documents, not skills; JS number coercions included).
    pub fn search(&self, query: &str, top_k: f64, min_score: f64) -> Vec<SkillHit> {
        self.search_with(query, top_k, min_score, None)
    }

    /// [`Self::search`]; in a hybrid index with `over` (a user's embedder, see
    /// [`Self::semantic_override`]) on the semantic side.
    pub fn search_with(&self, query: &str, top_k: f64, min_score: f64, over: Option<crate::catalog::Override<'_>>) -> Vec<SkillHit> {
        match self.mode {
            SearchMode::Bm25 => self.search_bm25(query, top_k, min_score),
            SearchMode::Substring => self.search_substring(query, top_k),
            SearchMode::Enhanced => self.search_enhanced(query, top_k, min_score, over),
        }
    }

    /// Best skills by enhanced score, `score >= minScore`, one per name, cut with the
    /// compatible `topK` semantics applied to skills instead of documents.
    fn search_enhanced(&self, query: &str, top_k: f64, min_score: f64, over: Option<crate::catalog::Override<'_>>) -> Vec<SkillHit> {
        let Some(index) = &self.enhanced else { return Vec::new() };
        // What `slice(0, max(topK, n))` + the `>= topK` loop keep from unlimited hits.
        let want = if top_k.is_nan() {
            0
        } else if top_k >= usize::MAX as f64 {
            usize::MAX
        } else {
            (top_k.ceil().max(1.0)) as usize
        };
        if want == 0 {
            return Vec::new();
        }
        // With duplicate names some hits collapse, so a cut before de-duplication could fall short.
        let ranked = match &self.semantic {
            Some(semantic) => semantic.rank(index, query, want, self.names_unique, over),
            None if self.names_unique => index.search_top(query, want),
            None => index.search(query),
        };
        let mut seen = vec![false; if self.names_unique { 0 } else { self.skill_count }];
        let mut out = Vec::new();
        for (skill, score) in ranked {
            // `>=` as in compatible mode; a NaN minScore keeps nothing.
            if score.is_nan() || min_score.is_nan() || score < min_score {
                break;
            }
            if !self.names_unique {
                let Some(&group) = self.name_group.get(skill as usize) else { continue };
                let Some(flag) = seen.get_mut(group as usize) else { continue };
                if std::mem::replace(flag, true) {
                    continue;
                }
            }
            out.push(SkillHit { skill, source: 0, score });
            if out.len() >= want {
                break;
            }
        }
        out
    }

    fn search_bm25(&self, query: &str, top_k: f64, min_score: f64) -> Vec<SkillHit> {
        let tokens = workspace_tokens(query);
        if tokens.is_empty() || self.body.is_empty() {
            return Vec::new();
        }
        let terms: Vec<Option<u32>> = tokens.iter().map(|t| self.vocab.get(t)).collect();
        if terms.iter().all(Option::is_none) {
            return Vec::new();
        }
        let mut meta_scores: Vec<Option<f64>> = vec![None; self.skill_count];
        for s in self.meta.score(&terms) {
            if let Some(slot) = meta_scores.get_mut(s.slot as usize) {
                *slot = Some(s.score);
            }
        }
        // Body hits in the reference's score-map order; a SKILL.md hit absorbs its skill's
        // name/description score. Skills matched only by name/description follow.
        let mut hits: Vec<SkillHit> = Vec::new();
        for s in self.body.score(&terms) {
            let Some(&(skill, source)) = self.body_docs.get(s.slot as usize) else { continue };
            let mut score = s.score;
            if source == 0 {
                if let Some(m) = meta_scores.get_mut(skill as usize).and_then(Option::take) {
                    score += m;
                }
            }
            hits.push(SkillHit { skill, source, score });
        }
        for (skill, m) in meta_scores.into_iter().enumerate() {
            if let Some(score) = m {
                hits.push(SkillHit { skill: skill as u32, source: 0, score });
            }
        }
        hits.retain(|h| h.score >= min_score);

        // Engine: `slice(0, max(topK, documents))`; WorkspaceSkills: stop once `>= topK`.
        let engine_keep = js_slice_len(hits.len(), js_max(top_k, self.declared_documents));
        let keep = if engine_keep == 0 { 0 } else { loop_keep(engine_keep, top_k) };
        let scored: Vec<Scored> =
            hits.iter().enumerate().map(|(i, h)| Scored { slot: i as u32, score: h.score }).collect();
        top_by_score(scored, keep).into_iter().filter_map(|s| hits.get(s.slot as usize).copied()).collect()
    }

    fn search_substring(&self, query: &str, top_k: f64) -> Vec<SkillHit> {
        let q = query.to_lowercase();
        let full = |out: &Vec<SkillHit>| out.len() as f64 >= top_k;
        let mut out: Vec<SkillHit> = Vec::new();
        for (i, s) in self.lower.iter().enumerate() {
            let skill = i as u32;
            if s.instructions.contains(&q) || s.name.contains(&q) || s.description.contains(&q) {
                out.push(SkillHit { skill, source: 0, score: 1.0 });
            }
            for (r, text) in s.references.iter().enumerate() {
                if full(&out) {
                    break;
                }
                if text.contains(&q) {
                    out.push(SkillHit { skill, source: r as u32 + 1, score: 0.8 });
                }
            }
            if full(&out) {
                break;
            }
        }
        let keep = js_slice_len(out.len(), top_k);
        out.truncate(keep);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(name: &str, description: &str, instructions: &str, references: &[&str]) -> SkillInput {
        SkillInput {
            name: name.into(),
            description: description.into(),
            instructions: instructions.into(),
            references: references.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// The 3-skill fixture of skill-search.md §7.1 / §11.
    fn fixture() -> Vec<SkillInput> {
        vec![
            skill(
                "api-design",
                "Guidelines for designing REST APIs and HTTP endpoints",
                "# API Design\n\nUse REST conventions for every api endpoint.\nVersion your api with /v1 prefixes.",
                &["Error format for api responses: use RFC 7807 problem details."],
            ),
            skill("deployment", "How to deploy applications to production", "# Deployment\n\nUse CI/CD pipelines. Deploy with a blue-green strategy.", &[]),
            skill(
                "testing-strategy",
                "Best practices for writing tests",
                "# Testing\n\nWrite unit tests first. Use integration tests for api boundaries.",
                &[],
            ),
        ]
    }

    #[test]
    fn body_only_query_scores_like_a_body_only_index() {
        let skills = fixture();
        let index = SkillIndex::build(&skills, SearchMode::Bm25, 4.0);
        // Reference-equivalent: the same corpus with empty names/descriptions.
        let bare: Vec<SkillInput> =
            skills.iter().map(|s| SkillInput { name: String::new(), description: String::new(), ..s.clone() }).collect();
        let reference = SkillIndex::build(&bare, SearchMode::Bm25, 4.0);
        for q in ["pipelines", "unit first", "conventions endpoint", "rfc"] {
            assert_eq!(index.search(q, 5.0, 0.0), reference.search(q, 5.0, 0.0), "{q}");
            assert!(!index.search(q, 5.0, 0.0).is_empty(), "{q}");
        }
    }

    #[test]
    fn description_only_word_finds_its_skill() {
        let index = SkillIndex::build(&fixture(), SearchMode::Bm25, 4.0);
        let hits = index.search("http", 5.0, 0.0);
        assert_eq!(hits.len(), 1);
        assert_eq!((hits[0].skill, hits[0].source), (0, 0));
        // Name words too: "strategy" is in deployment's body and in the name testing-strategy.
        let mut skills: Vec<u32> = index.search("strategy", 5.0, 0.0).iter().map(|h| h.skill).collect();
        skills.sort_unstable();
        assert_eq!(skills, [1, 2]);
    }

    #[test]
    fn top_k_counts_documents_before_dedupe() {
        let index = SkillIndex::build(&fixture(), SearchMode::Bm25, 4.0);
        let hits = index.search("api", 2.0, 0.0);
        assert_eq!(hits.iter().map(|h| (h.skill, h.source)).collect::<Vec<_>>(), [(0, 0), (0, 1)]);
    }

    #[test]
    fn top_k_js_semantics() {
        let index = SkillIndex::build(&fixture(), SearchMode::Bm25, 4.0);
        let n = |k: f64| index.search("api", k, 0.0).len();
        let all = n(100.0);
        assert_eq!(all, 3);
        assert_eq!(n(0.0), 1); // the loop pushes before testing `>= topK`
        assert_eq!(n(-3.0), 1);
        assert_eq!(n(1.5), 2);
        assert_eq!(n(f64::INFINITY), all);
        assert_eq!(n(f64::NAN), 0); // slice(0, NaN)
    }

    #[test]
    fn min_score_filters_and_nan_keeps_nothing() {
        let index = SkillIndex::build(&fixture(), SearchMode::Bm25, 4.0);
        let all = index.search("api", 10.0, 0.0);
        let cut = all[1].score;
        assert_eq!(index.search("api", 10.0, cut).len(), 2);
        assert!(index.search("api", 10.0, f64::NAN).is_empty());
    }

    #[test]
    fn empty_and_unknown_queries() {
        let index = SkillIndex::build(&fixture(), SearchMode::Bm25, 4.0);
        assert!(index.search("a b c", 5.0, 0.0).is_empty());
        assert!(index.search("kubernetes", 5.0, 0.0).is_empty());
        let empty = SkillIndex::build(&[], SearchMode::Bm25, 0.0);
        assert!(empty.search("api", 5.0, 0.0).is_empty());
    }

    #[test]
    fn duplicate_query_tokens_count_twice() {
        let index = SkillIndex::build(&fixture(), SearchMode::Bm25, 4.0);
        let one = index.search("pipelines", 5.0, 0.0)[0].score;
        let two = index.search("pipelines pipelines", 5.0, 0.0)[0].score;
        assert_eq!(two, one + one);
    }

    #[test]
    fn large_document_indexes_quickly() {
        let mut body = String::new();
        for i in 0..200_000 {
            body.push_str(&format!("word{} ", i % 5000));
        }
        body.push_str("needle");
        let mut skills = fixture();
        skills.push(skill("big", "big one", &body, &[]));
        let start = std::time::Instant::now();
        let index = SkillIndex::build(&skills, SearchMode::Bm25, 5.0);
        assert!(start.elapsed().as_secs() < 5);
        assert_eq!(index.search("needle", 5.0, 0.0)[0].skill, 3);
    }

    #[test]
    fn substring_mode_mirrors_simple_search() {
        let index = SkillIndex::build(&fixture(), SearchMode::Substring, 4.0);
        let hits = index.search("API", 5.0, 0.0);
        assert_eq!(
            hits.iter().map(|h| (h.skill, h.source, h.score)).collect::<Vec<_>>(),
            [(0, 0, 1.0), (0, 1, 0.8), (2, 0, 1.0)]
        );
        assert!(index.search("api tests deploy", 5.0, 0.0).is_empty());
        // Stops at topK; slice(0, 0) keeps nothing.
        assert_eq!(index.search("api", 1.0, 0.0).len(), 1);
        assert!(index.search("api", 0.0, 0.0).is_empty());
        // Difference 7: descriptions match too.
        assert_eq!(index.search("http endpoints", 5.0, 0.0).iter().map(|h| h.skill).collect::<Vec<_>>(), [0]);
    }

    /// Multilingual skills: Traditional/Simplified Chinese, Japanese, Korean, English.
    fn multilingual() -> Vec<SkillInput> {
        vec![
            skill("weather-report", "查詢城市的天氣預報", "使用氣象資料回答問題。", &[]),
            skill("send-email", "发送电子邮件给联系人", "先确认收件人地址。", &["邮件模板与签名"]),
            skill("translate-docs", "ドキュメントを翻訳します", "用語集を使って翻訳する。", &[]),
            skill("restaurant-finder", "근처 맛집을 검색합니다", "지역 이름으로 식당을 찾습니다.", &[]),
            skill("deploy", "Ship services to production", "Roll out with canary releases.", &["Rollback runbook for outages"]),
            skill("createIssue", "File a ticket in the tracker", "Include reproduction steps.", &[]),
        ]
    }

    fn names(index: &SkillIndex, skills: &[SkillInput], q: &str, top_k: f64) -> Vec<String> {
        index.search(q, top_k, 0.0).iter().map(|h| skills[h.skill as usize].name.clone()).collect()
    }

    #[test]
    fn enhanced_finds_cjk_inflections_typos_and_references() {
        let skills = multilingual();
        let index = SkillIndex::build(&skills, SearchMode::Enhanced, 8.0);
        let compatible = SkillIndex::build(&skills, SearchMode::Bm25, 8.0);
        for (q, want) in [
            ("天气预报", "weather-report"), // Simplified query, Traditional skill
            ("電子郵件", "send-email"),     // Traditional query, Simplified skill
            ("翻訳", "translate-docs"),
            ("맛집", "restaurant-finder"),
            ("deploying", "deploy"),
            ("create issue", "createIssue"),
            ("depoly", "deploy"),
            ("签名", "send-email"), // reference file, CJK
        ] {
            assert_eq!(names(&index, &skills, q, 5.0).first().map(String::as_str), Some(want), "{q}");
            assert_ne!(names(&compatible, &skills, q, 5.0).first().map(String::as_str), Some(want), "{q}");
        }
        // Reference-file words are found in both modes.
        assert_eq!(names(&index, &skills, "rollback runbooks", 5.0), ["deploy"]);
        // One document per skill: every hit reports the SKILL.md.
        assert!(index.search("rollback canary", 5.0, 0.0).iter().all(|h| h.source == 0));
        assert_eq!(index.document_count(), 8);
        assert_eq!(index.skill_count(), 6);
    }

    const WORDS: [&str; 6] = ["otter", "badger", "heron", "walrus", "lynx", "marten"];

    #[test]
    fn enhanced_top_k_counts_skills_with_js_semantics() {
        let skills: Vec<SkillInput> =
            WORDS.iter().enumerate().map(|(i, w)| skill(&format!("s{i}"), "shared topic", w, &["shared appendix"])).collect();
        let index = SkillIndex::build(&skills, SearchMode::Enhanced, 12.0);
        let n = |k: f64| index.search("shared", k, 0.0).len();
        assert_eq!(n(100.0), 6);
        assert_eq!(n(2.0), 2);
        assert_eq!(n(1.5), 2);
        assert_eq!(n(0.0), 1);
        assert_eq!(n(-3.0), 1);
        assert_eq!(n(f64::INFINITY), 6);
        assert_eq!(n(f64::NAN), 0);
        // minScore: `>=` the enhanced score; NaN keeps nothing.
        let all = index.search("topic walrus", 10.0, 0.0);
        assert_eq!(skills[all[0].skill as usize].name, "s3");
        assert_eq!(all.len(), 6);
        assert_eq!(index.search("topic walrus", 10.0, all[0].score).len(), 1);
        assert!(index.search("topic walrus", 10.0, all[0].score + 1e-6).is_empty());
        assert!(index.search("shared", 10.0, f64::NAN).is_empty());
        assert!(index.search("", 10.0, 0.0).is_empty());
        assert!(index.search("zzzzqqq", 10.0, 0.0).is_empty());
        assert!(SkillIndex::build(&[], SearchMode::Enhanced, 0.0).search("shared", 5.0, 0.0).is_empty());
    }

    #[test]
    fn enhanced_duplicate_names_count_once() {
        let skills = vec![
            skill("dup", "alpha widget", "", &[]),
            skill("dup", "alpha widget too", "", &[]),
            skill("other", "alpha", "", &[]),
        ];
        let index = SkillIndex::build(&skills, SearchMode::Enhanced, 3.0);
        let hits = index.search("alpha widget", 2.0, 0.0);
        assert_eq!(hits.iter().map(|h| h.skill).collect::<Vec<_>>(), [0, 2]);
    }

    #[test]
    fn js_helpers() {
        assert_eq!(js_slice_len(5, 2.9), 2);
        assert_eq!(js_slice_len(5, -1.0), 4);
        assert_eq!(js_slice_len(5, -9.0), 0);
        assert_eq!(js_slice_len(5, f64::INFINITY), 5);
        assert_eq!(loop_keep(5, 0.0), 1);
        assert_eq!(loop_keep(0, 3.0), 0);
        assert_eq!(loop_keep(5, 2.1), 3);
    }
}
