//! How the nearest past requests vote for tools (docs/learning.md, "How it is used" and
//! "Tenancy"): each vote weighs its similarity, halved every half-life since the example was
//! last seen (seeds never decay); a resource counts once per tool (its best vote); in scope
//! 'global' another resource's votes count only once `min_resources` distinct resources (or a
//! seed) agree on the tool, a resource's own votes always count, and votes that do not count
//! still weigh against the other tools. A tool's confidence is its votes over all votes plus a
//! prior, so one weak neighbour or a split neighbourhood is not confident.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

/// One neighbour's vote, before the rules.
#[derive(Debug, Clone)]
pub struct Ballot {
    pub tool: Arc<str>,
    pub resource: Arc<str>,
    pub similarity: f32,
    pub time: f64,
    pub seed: bool,
}

/// A tool's learned evidence for one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Vote {
    pub tool: String,
    /// Its votes over all votes plus the prior (0..1).
    pub confidence: f64,
    /// The best similarity among the neighbours that voted for it.
    pub similarity: f64,
    /// Distinct resources (seeds count as one) that voted for it.
    pub resources: u32,
}

#[derive(Debug, Clone, Copy)]
pub struct VoteRules {
    pub global: bool,
    pub min_resources: u32,
    pub half_life_ms: f64,
    pub prior: f64,
}

/// Decay of a vote last seen at `time`: halved every half-life (no decay for seeds or an
/// infinite half-life).
pub fn decay(rules: &VoteRules, seed: bool, time: f64, now: f64) -> f64 {
    if seed || !(rules.half_life_ms.is_finite() && rules.half_life_ms > 0.0) {
        return 1.0;
    }
    0.5f64.powf((now - time).max(0.0) / rules.half_life_ms)
}

/// One tool's ballots: the tool, per resource its best weight and whether a seed, the best similarity.
type ToolBallots = (Arc<str>, HashMap<Arc<str>, (f64, bool)>, f64);

/// The votes of `ballots` (the nearest neighbours) for the request of `asker`, best first.
pub fn count_votes(ballots: &[Ballot], asker: Option<&str>, now: f64, rules: &VoteRules) -> Vec<Vote> {
    let mut per_tool: Vec<ToolBallots> = Vec::new();
    for b in ballots {
        let weight = b.similarity as f64 * decay(rules, b.seed, b.time, now);
        let at = match per_tool.iter().position(|(t, _, _)| *t == b.tool) {
            Some(i) => i,
            None => {
                per_tool.push((b.tool.clone(), HashMap::default(), 0.0));
                per_tool.len() - 1
            }
        };
        let (_, by_resource, best) = &mut per_tool[at];
        *best = best.max(b.similarity as f64);
        let entry = by_resource.entry(b.resource.clone()).or_insert((0.0, b.seed));
        entry.0 = entry.0.max(weight);
        entry.1 |= b.seed;
    }
    let mut total = 0.0;
    let mut counted: Vec<(usize, f64)> = Vec::new();
    for (i, (_, by_resource, _)) in per_tool.iter().enumerate() {
        let seeded = by_resource.values().any(|&(_, seed)| seed);
        let trusted = !rules.global || seeded || by_resource.len() as u32 >= rules.min_resources;
        let mut weight = 0.0;
        for (from, &(w, _)) in by_resource {
            if trusted || asker == Some(&**from) {
                weight += w;
            }
            total += w;
        }
        if weight > 0.0 {
            counted.push((i, weight));
        }
    }
    let mut votes: Vec<Vote> = counted
        .into_iter()
        .map(|(i, weight)| {
            let (tool, by_resource, best) = &per_tool[i];
            Vote { tool: tool.to_string(), confidence: weight / (total + rules.prior), similarity: *best, resources: by_resource.len() as u32 }
        })
        .collect();
    votes.sort_by(|a, b| b.confidence.total_cmp(&a.confidence).then_with(|| a.tool.cmp(&b.tool)));
    votes
}
