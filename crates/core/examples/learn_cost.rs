//! Where a learned-evidence lookup spends its time at 100,000 examples over 10,000 tools
//! (scope 'global': one partition), split into the request's analysis, its model vector, the
//! neighbours' votes and the profiles' matches; p50 per part over MetaTool requests.
//!
//!     cargo run -p mastra-native-core --release --example learn_cost -- [--model PATH] [--examples N] [--cold]
use std::time::Instant;

use mastra_native_core::learn::{self, LearnConfig, LearnedIndex};
use mastra_native_core::semantic::{self, StaticModel};

#[path = "support/metatool.rs"]
mod metatool;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

fn p50(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let path = arg("--model").unwrap_or_else(|| format!("{}/../../packages/model-multilingual/model.bin", env!("CARGO_MANIFEST_DIR")));
    let cold = std::env::args().any(|a| a == "--cold");
    let count: usize = arg("--examples").map_or(100_000, |s| s.parse().expect("--examples N"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let model = StaticModel::from_bytes(&bytes).expect("model").with_centering(semantic::model::DEFAULT_CENTERING);
    let (_, queries) = metatool::load();
    let words = ["today", "tomorrow", "please", "for my team", "in Paris", "urgently", "again", "for work"];
    for with_vectors in [false, true] {
        let config = LearnConfig { max_examples: 200_000, max_bytes: 1 << 30, ..LearnConfig::default() };
        let mut index = LearnedIndex::new(LearnConfig { rules: learn::VoteRules { global: true, ..config.rules }, ..config });
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        for i in 0..count {
            let text = format!("{} {} #{i}", queries[next() % queries.len()].text, words[i % words.len()]);
            let mut f = learn::features_of(&text);
            if with_vectors {
                f.vector = learn::quantize(&model.embed(learn::terms::head(&text)));
            }
            let tool = format!("tool-{}", next() % 10_000);
            index.add("g", &format!("user-{}", i % 100), &tool, f, 1.0e12 + i as f64, false);
        }
        let (mut analyse, mut embed, mut votes, mut profiles) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // (--cold: 16 MiB touched between lookups, as a step's search does, so the index is
        // read from memory rather than cache)
        let mut thrash = vec![0u8; if cold { 16 << 20 } else { 0 }];
        let rounds: usize = std::env::var("ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(2);
        for round in 0..rounds {
            for q in queries.iter().step_by(97).take(1000) {
                for i in (0..thrash.len()).step_by(64) {
                    thrash[i] = thrash[i].wrapping_add(1);
                }
                let t = Instant::now();
                let mut f = learn::features_of(&q.text);
                let t1 = t.elapsed().as_secs_f64() * 1e3;
                let t = Instant::now();
                if with_vectors {
                    f.vector = learn::quantize(&model.embed(learn::terms::head(&q.text)));
                }
                let t2 = t.elapsed().as_secs_f64() * 1e3;
                let t = Instant::now();
                let v = index.votes(&["g"], Some("user-1"), &f, 1.0e12 + count as f64);
                let t3 = t.elapsed().as_secs_f64() * 1e3;
                let t = Instant::now();
                let p = index.profile_matches(&["g"], Some("user-1"), &f);
                let t4 = t.elapsed().as_secs_f64() * 1e3;
                std::hint::black_box((v, p));
                if round + 1 == rounds {
                    analyse.push(t1);
                    embed.push(t2);
                    votes.push(t3);
                    profiles.push(t4);
                }
            }
        }
        println!(
            "{count} examples, vectors {with_vectors}: analyse {:.3} ms, embed {:.3} ms, votes {:.3} ms, profiles {:.3} ms (p50)",
            p50(analyse),
            p50(embed),
            p50(votes),
            p50(profiles)
        );
    }
}
