//! Hubs: tools that come up for requests about other tools.
//!
//! A tool from an untrusted server can stuff its description with the words requests are made
//! of, so that it ranks near the top for everything. Ranking dampens that (an outlier-long
//! description counts its length, see `Tuning::long_pivot`), but whatever is loaded without
//! the model naming it (preload, a search's loads) must be harder to take over than a search
//! listing. So a catalog probes itself: the descriptions of an evenly spread sample of its own
//! tools are searched as if they were requests, and a tool found among the first three other
//! tools for a large share of them answers requests it is not about. Such a *hub* is still
//! listed by search and loadable by name; it is only never loaded on a guess.
//!
//! Catalog-agnostic: nothing but the catalog's own texts and ranking is read. A topical tool
//! is a close match for the few tools near it, not for a third of the catalog.

use super::{SearchParams, ToolCatalog};
use crate::enhanced::analyzer::{tokenize, Token};

/// At most this many of the catalog's descriptions are searched (spread evenly over it).
const PROBES: usize = 64;
/// Other tools counted per probe: the first this many hits that are not the probe's tool.
const NEAREST: usize = 3;
/// A hub comes up for at least this share of the probes …
const HUB_SHARE: f64 = 0.3;
/// … and for at least this many (a small catalog's probes say little).
const HUB_MIN_PROBES: usize = 8;
/// A description longer than this many times the catalog's average (in analysed words) is an
/// outlier: the length at which the enhanced ranking starts counting it in full
/// (`Tuning::long_pivot`).
const LONG_DESCRIPTION: f64 = 3.0;

impl ToolCatalog {
    /// The handles of this catalog's hubs (see the module docs), ascending, from `probes`: the
    /// handles and descriptions of the catalog's tools (a compatible catalog keeps its
    /// descriptions only inside its index, so the caller gives them). At most 64 of them are
    /// searched, spread evenly; one search each, so callers compute this once per catalog.
    pub fn hub_handles<'a>(&self, probes: impl IntoIterator<Item = (u32, &'a str)>) -> Vec<u32> {
        let probes: Vec<(u32, &str)> = probes.into_iter().filter(|(_, text)| !text.trim().is_empty()).collect();
        if probes.len() < HUB_MIN_PROBES {
            return Vec::new();
        }
        let step = probes.len().div_ceil(PROBES);
        let params = SearchParams { top_k: NEAREST + 1, min_score: 0.0, inspect_all: false };
        let mut counts: Vec<(u32, usize)> = Vec::new();
        let mut searched = 0usize;
        for &(own, text) in probes.iter().step_by(step) {
            searched += 1;
            for hit in self.search(text, params).iter().filter(|h| h.handle != own).take(NEAREST) {
                match counts.iter_mut().find(|(h, _)| *h == hit.handle) {
                    Some((_, c)) => *c += 1,
                    None => counts.push((hit.handle, 1)),
                }
            }
        }
        let limit = (HUB_SHARE * searched as f64).max(HUB_MIN_PROBES as f64);
        let mut hubs: Vec<u32> = counts.into_iter().filter(|&(_, c)| c as f64 >= limit).map(|(h, _)| h).collect();
        hubs.sort_unstable();
        hubs
    }
}

/// The positions of `descriptions` more than three times as long as their average (in analysed
/// words), ascending: real catalogs have some (long API references), a stuffed description is
/// one. Loading such a tool on a guess takes more confidence.
pub fn long_descriptions<'a>(descriptions: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
    let lengths: Vec<usize> = descriptions
        .into_iter()
        .map(|text| {
            let mut words = 0usize;
            tokenize(text, &mut |token| {
                if !matches!(token, Token::CjkPart(_)) {
                    words += 1;
                }
            });
            words
        })
        .collect();
    let described = lengths.iter().filter(|&&l| l > 0).count();
    if described < HUB_MIN_PROBES {
        return Vec::new();
    }
    let average = lengths.iter().sum::<usize>() as f64 / described as f64;
    (0..lengths.len()).filter(|&i| lengths[i] as f64 > LONG_DESCRIPTION * average).map(|i| i as u32).collect()
}
