//! Query expansion: a query's words become weighted terms — stems and exact forms, joined
//! identifiers, CJK units, prefix relatives (`rent` ~ `rental`) and typo neighbours.

use super::super::analyzer::{normalize, stem, tokenize, Token};
use super::super::action::phrasal_verb_words;
use super::super::glossary::glossary_words;
use super::super::shapes::shape_words;
use super::build::fuzzy_eligible;
use super::{EnhancedIndex, Lazy, MAX_FUZZY, MAX_PREFIX, TYPO_MEMORY};

/// Weighted query terms, each term once (highest weight kept); `covers`: the term is a
/// query word itself (not a relative, typo or joined form), so it counts toward coverage.
#[derive(Default)]
pub(super) struct QueryTerms {
    pub(super) terms: Vec<(u32, f32, bool)>,
}

impl QueryTerms {
    fn add(&mut self, term: u32, weight: f32, covers: bool) {
        match self.terms.iter_mut().find(|x| x.0 == term) {
            Some(x) => {
                x.1 = x.1.max(weight);
                x.2 |= covers;
            }
            None => self.terms.push((term, weight, covers)),
        }
    }
}

/// The words a common software abbreviation stands for (lowercased surface form; plurals
/// too: `PRs`), and the word tools use for a folder. Only words whose meaning does not depend
/// on the catalog.
fn abbreviation(word: &str) -> Option<&'static str> {
    Some(match word {
        "pr" | "prs" => "pull request",
        "mr" | "mrs" => "merge request",
        "repo" | "repos" => "repository",
        "db" | "dbs" => "database",
        "env" | "envs" => "environment",
        "dir" | "dirs" => "directory",
        "msg" | "msgs" => "message",
        "vm" | "vms" => "virtual machine",
        "k8s" => "kubernetes",
        // (not an abbreviation: the everyday word for what tools call a directory)
        "folder" | "folders" => "directory",
        _ => return None,
    })
}

impl EnhancedIndex {
    /// Weighted term ids for a query.
    pub(super) fn query_terms(&self, query: &str) -> QueryTerms {
        let tu = &self.tuning;
        let mut q = QueryTerms::default();
        let phrasal = phrasal_verb_words(query);
        tokenize(query, &mut |tok| match tok {
            // (the verb of "pull up", "get rid of": the action says it, see action.rs)
            Token::Word(surface) if !phrasal.is_empty() && phrasal.iter().any(|w| surface.eq_ignore_ascii_case(w)) => {}
            Token::Word(surface) => {
                let stem = stem(surface);
                // Documents index a word's stem and, when different, its surface form,
                // so a surface hit implies a stem hit: the surface weight is a bonus.
                let s = self.dict.get(&*stem).copied();
                let f = if *stem != *surface { self.dict.get(surface).copied() } else { None };
                if s.is_none() && f.is_none() {
                    self.add_fuzzy(surface, &mut q);
                }
                if let Some(s) = s {
                    q.add(s, tu.w_stem, true);
                }
                if let Some(f) = f {
                    q.add(f, tu.w_surface, false);
                }
                if tu.w_prefix > 0.0 {
                    self.add_prefix_relatives(&stem, &mut q);
                }
                // a software abbreviation also asks for the words it stands for (`PR`: a pull
                // request), which tool names and descriptions usually spell out
                // (as much as a word of the query, and toward coverage: a request of only
                // `PRs` has no other word to match)
                if let Some(words) = abbreviation(surface) {
                    for word in words.split(' ') {
                        if let Some(&id) = self.dict.get(&*super::super::analyzer::stem(word)) {
                            q.add(id, tu.w_stem, true);
                        }
                    }
                }
            }
            Token::Whole(t) => match self.dict.get(t) {
                Some(&id) => q.add(id, tu.w_whole, false),
                None => self.add_fuzzy(t, &mut q),
            },
            Token::Cjk(t) => {
                if let Some(&id) = self.dict.get(t) {
                    q.add(id, tu.w_cjk, true);
                }
            }
            Token::CjkPart(t) => {
                if let Some(&id) = self.dict.get(t) {
                    q.add(id, tu.w_cjk_part, false);
                }
            }
        });
        // the English words of software vocabulary in CJK text (ファイル: file), for catalogs
        // that describe their tools in English (a catalog in the request's language matches
        // the CJK units above)
        if tu.w_glossary > 0.0 && !query.is_ascii() {
            for word in glossary_words(&normalize(query)) {
                if let Some(&id) = self.dict.get(&*stem(word)) {
                    q.add(id, tu.w_stem * tu.w_glossary, true);
                }
            }
        }
        // what the request names by its shape (`src/app.ts`: a file; `acme/web`: a repository),
        // which tools name in their parameters and descriptions; not toward coverage (the user
        // did not say the word)
        if tu.w_shape > 0.0 {
            for word in shape_words(query) {
                if let Some(&id) = self.dict.get(&*stem(word)) {
                    q.add(id, tu.w_stem * tu.w_shape, false);
                }
            }
        }
        q
    }

    /// Stems related to `stem` by prefix: longer indexed stems starting with it, and
    /// shorter indexed stems it starts with (both at least `prefix_min` characters).
    fn add_prefix_relatives(&self, stem: &str, q: &mut QueryTerms) {
        let min = self.tuning.prefix_min as usize;
        if stem.len() < min || !stem.bytes().all(|c| c.is_ascii_alphabetic()) {
            return;
        }
        let w = self.tuning.w_prefix;
        let ratio = self.tuning.prefix_ratio;
        let head = &stem[..min];
        let Lazy { stems, heads, .. } = self.lazy();
        let Some(&start) = heads.get(head) else { return };
        for (t, id) in stems.iter_from(start as usize).take_while(|(t, _)| t.starts_with(head)).take(MAX_PREFIX) {
            if t == stem {
                continue;
            }
            let cp = t.bytes().zip(stem.bytes()).take_while(|(a, b)| a == b).count();
            let prefix_of = cp == t.len() || cp == stem.len();
            if prefix_of || (ratio > 0.0 && cp as f32 >= ratio * t.len().max(stem.len()) as f32) {
                q.add(id, w, false);
            }
        }
    }

    fn add_fuzzy(&self, term: &str, q: &mut QueryTerms) {
        if !fuzzy_eligible(term) {
            return;
        }
        let lazy = self.lazy();
        // (a poisoned lock only means another thread panicked mid-insert: the map is whole)
        let mut typos = lazy.typos.lock().unwrap_or_else(|e| e.into_inner());
        let add = |near: &[(u32, usize)], q: &mut QueryTerms| {
            for &(target, d) in near {
                q.add(target, self.tuning.w_fuzzy[d.clamp(1, 2) - 1], false);
            }
        };
        // (one hash lookup for a remembered word)
        if let Some(near) = typos.get(term) {
            add(near, q);
            return;
        }
        if typos.len() >= TYPO_MEMORY {
            typos.clear();
        }
        let near: Box<[(u32, usize)]> = lazy.fuzzy.lookup(term, MAX_FUZZY).into();
        add(&near, q);
        typos.insert(term.into(), near);
    }
}
