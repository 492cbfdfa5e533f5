//! "Did you mean" ranking for `load_tool` / `load_skill`.
//!
//! Every name the reference would suggest (case-insensitive substring either way) stays
//! plausible; names within a small edit distance, or sharing most of their words, are
//! added. Ranking combines all signals so the closest name comes first.

use super::analyzer::{analyze_to_vec, normalize, Unit};
use super::fuzzy::osa_distance;

/// Edit budget for names: 1 from 4 characters, 2 from 8, 3 from 12 (on the compact form).
fn name_max_distance(len: usize) -> usize {
    match len {
        0..=3 => 0,
        4..=7 => 1,
        8..=11 => 2,
        _ => 3,
    }
}

struct Name {
    /// NFKC + Traditional→Simplified + lowercase, as typed
    lower: String,
    /// letters and digits only: `Send_Email` and `sendEmail` both → `sendemail`
    compact: Vec<char>,
    /// word stems and CJK grams, sorted and deduplicated
    tokens: Vec<String>,
}

fn prepare(s: &str) -> Name {
    let lower: String = normalize(s).to_lowercase();
    let compact: Vec<char> = lower.chars().filter(|c| c.is_alphanumeric()).collect();
    let mut tokens: Vec<String> = analyze_to_vec(s)
        .into_iter()
        .filter_map(|u| match u {
            Unit::Word { stem, .. } => Some(stem),
            Unit::Cjk(t) => Some(t),
            Unit::Whole(_) | Unit::CjkPart(_) => None,
        })
        .collect();
    tokens.sort_unstable();
    tokens.dedup();
    Name { lower, compact, tokens }
}

/// Plausibility score of `cand` as what `req` meant; `None` when implausible.
fn score(req: &Name, cand: &Name) -> Option<f64> {
    let mut s = 0.0;
    let mut plausible = false;
    if !req.compact.is_empty() && req.compact == cand.compact {
        s += 10.0;
        plausible = true;
    }
    let substring = cand.lower.contains(req.lower.as_str()) || req.lower.contains(cand.lower.as_str());
    let (rc, cc): (String, String) = (req.compact.iter().collect(), cand.compact.iter().collect());
    let compact_substring = !rc.is_empty() && !cc.is_empty() && (cc.contains(rc.as_str()) || rc.contains(cc.as_str()));
    if substring || compact_substring {
        let (a, b) = (req.compact.len().max(1), cand.compact.len().max(1));
        s += 3.0 + 2.0 * a.min(b) as f64 / a.max(b) as f64;
        plausible = true;
    }
    let max_d = name_max_distance(req.compact.len().min(cand.compact.len()));
    if max_d > 0 {
        if let Some(d) = osa_distance(&req.compact, &cand.compact, max_d) {
            if d > 0 {
                s += 4.0 * (1.0 - d as f64 / (max_d + 1) as f64);
                plausible = true;
            }
        }
    }
    let shared = req.tokens.iter().filter(|t| cand.tokens.binary_search(t).is_ok()).count();
    if shared > 0 {
        let union = req.tokens.len() + cand.tokens.len() - shared;
        let jaccard = shared as f64 / union as f64;
        s += 4.0 * jaccard;
        plausible |= jaccard >= 1.0 / 3.0;
    }
    plausible.then_some(s)
}

/// Ranks candidate names for "Did you mean": indices into `candidates`, best first
/// (ties by index), only plausible ones, at most `limit`.
pub fn suggest(requested: &str, candidates: &[&str], limit: usize) -> Vec<u32> {
    if limit == 0 || requested.trim().is_empty() {
        return Vec::new();
    }
    let req = prepare(requested);
    let mut scored: Vec<(u32, f64)> = candidates
        .iter()
        .enumerate()
        .filter_map(|(i, c)| score(&req, &prepare(c)).map(|s| (i as u32, s)))
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(limit);
    scored.into_iter().map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: &[&str] = &[
        "weather_forecast",
        "weather_alerts",
        "github_create_issue",
        "github_create_pr",
        "send_email",
        "calendar_schedule",
        "linear_create_issue",
    ];

    fn names(requested: &str, limit: usize) -> Vec<&'static str> {
        suggest(requested, TOOLS, limit).into_iter().map(|i| TOOLS[i as usize]).collect()
    }

    #[test]
    fn typos_find_the_intended_tool_first() {
        assert_eq!(names("weather_forcast", 3), ["weather_forecast", "weather_alerts"]);
        assert_eq!(names("wether_forecast", 3)[0], "weather_forecast");
        assert_eq!(names("github_craete_issue", 3)[0], "github_create_issue");
        assert_eq!(names("sned_email", 3), ["send_email"]);
    }

    #[test]
    fn case_and_separator_variants_match_exactly() {
        assert_eq!(names("sendEmail", 3), ["send_email"]);
        assert_eq!(names("GitHub-Create-Issue", 3)[0], "github_create_issue");
        assert_eq!(names("ＳＥＮＤ＿ＥＭＡＩＬ", 3), ["send_email"]);
    }

    #[test]
    fn word_overlap_and_reordering() {
        assert_eq!(names("create_github_issue", 3)[0], "github_create_issue");
        assert_eq!(names("emails", 3), ["send_email"]);
        assert_eq!(names("schedule_calendar_events", 3), ["calendar_schedule"]);
    }

    #[test]
    fn substrings_stay_plausible_and_rank_by_closeness() {
        // the reference's substring candidates are all kept
        assert_eq!(names("weather", 5), ["weather_alerts", "weather_forecast"]);
        assert_eq!(names("create_issue", 5), ["github_create_issue", "linear_create_issue"]);
        // one shared word out of four is not enough
        assert!(!names("create_issue", 5).contains(&"github_create_pr"));
        assert_eq!(names("weather", 1).len(), 1);
    }

    #[test]
    fn unrelated_names_are_not_suggested() {
        assert!(names("database_query", 3).is_empty());
        assert!(names("xyz", 3).is_empty());
        assert!(names("", 3).is_empty());
        assert!(names("   ", 3).is_empty());
        assert!(names("weather", 0).is_empty());
        assert!(suggest("anything", &[], 3).is_empty());
    }

    #[test]
    fn cjk_names() {
        let tools = ["天气预报", "发送邮件", "날씨_예보"];
        assert_eq!(suggest("天氣預報", &tools, 3), [0]);
        assert_eq!(suggest("邮件", &tools, 3), [1]);
        assert_eq!(suggest("날씨", &tools, 3), [2]);
    }
}
