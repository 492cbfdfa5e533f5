use std::sync::Arc;

use super::forward::{COMMON_TERMS, Forward};
use super::postings::{bits_for, Postings};
use super::prune::PRUNE;
use super::*;
use crate::tokenizer::compat_tokens;

fn index_of(texts: &[&str]) -> (Bm25Index, Vocab) {
    let mut vocab = Vocab::new();
    let mut index = Bm25Index::default();
    for t in texts {
        let terms: Vec<u32> = compat_tokens(t).iter().map(|w| vocab.intern(w)).collect();
        index.add(TermCounts::from_terms(terms));
    }
    (index, vocab)
}

fn query(index: &Bm25Index, vocab: &Vocab, q: &str) -> Vec<(u32, f64)> {
    let terms: Vec<Option<u32>> = compat_tokens(q).iter().map(|w| vocab.get(w)).collect();
    top_by_score(index.score(&terms), usize::MAX).into_iter().map(|s| (s.slot, s.score)).collect()
}

#[test]
fn spec_worked_example() {
    // tool-search.md §3.5: 6-tool catalog, avgdl 7.
    let (index, vocab) = index_of(&[
        "github_create_issue Create a new issue on GitHub",
        "github_create_pr Create a pull request on GitHub",
        "linear_create_issue Create a new issue in Linear",
        "weather_forecast Get weather forecast for a location",
        "send_email Send an email message",
        "calendar_schedule Schedule a calendar event",
    ]);
    assert_eq!(index.avgdl(), 7.0);
    let github = vocab.get("github").unwrap();
    assert_eq!(index.df(github), 2);
    assert!((index.idf(2) - 1.02962).abs() < 1e-5);
    let r = query(&index, &vocab, "github issue");
    assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), [0, 1, 2]);
    assert!((r[0].1 - 2.0 * 1.40631).abs() < 1e-4);
    let email = query(&index, &vocab, "email email");
    assert!((email[0].1 - 2.0 * 2.30655).abs() < 1e-4);
}

#[test]
fn ties_follow_first_matching_query_term() {
    let (index, vocab) = index_of(&["a_tool blue", "b_tool red", "c_tool blue", "d_tool red"]);
    let order = |q| query(&index, &vocab, q).into_iter().map(|x| x.0).collect::<Vec<_>>();
    assert_eq!(order("blue red"), [0, 2, 1, 3]);
    assert_eq!(order("red blue"), [1, 3, 0, 2]);
}

#[test]
fn removal_moves_readded_doc_to_the_end() {
    let (mut index, mut vocab) = index_of(&["one data", "two data"]);
    index.remove(0);
    let terms: Vec<u32> = compat_tokens("one data").iter().map(|w| vocab.intern(w)).collect();
    let slot = index.add(TermCounts::from_terms(terms));
    assert_eq!(index.len(), 2);
    let r = query(&index, &vocab, "data");
    assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), [1, slot]);
}

#[test]
fn top_by_score_matches_a_stable_sort_on_many_ties() {
    let mut seed = 7u64;
    let scored: Vec<Scored> = (0..500)
        .map(|i| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            Scored { slot: i, score: f64::from(((seed >> 33) % 13) as u32) / 4.0 }
        })
        .collect();
    let mut full = scored.clone();
    full.sort_by(|a, b| b.score.total_cmp(&a.score));
    for limit in [1, 2, 10, 63, 64, 65, 200, 499, 500, 501] {
        assert_eq!(top_by_score(scored.clone(), limit), full[..limit.min(full.len())].to_vec(), "limit {limit}");
    }
}

/// Random catalogs over tiny vocabularies (many exact ties, repeated words, empty and
/// long documents, removed and re-added documents) and random queries with repeated
/// and unknown words: the pruned top equals the exhaustive one exactly, bit for bit,
/// and each search leaves its partial scores cleared.
#[test]
fn pruned_top_equals_exhaustive_on_random_catalogs() {
    let mut next = crate::test_support::xorshift(0x9E37_79B9_7F4A_7C15u64);
    let mut checked = 0usize;
    for round in 0..150 {
        let words = 2 + next(40) as usize;
        let docs = 1 + next(if round % 3 == 0 { 3000 } else { 400 }) as usize;
        let mut vocab = Vocab::new();
        let mut built = Vec::new();
        for _ in 0..docs {
            let cap = if next(10) == 0 { 60 } else { 12 };
            let len = next(cap) as usize;
            // skewed word choice: low ids are common, like stopwords
            let terms: Vec<u32> = (0..len)
                .map(|_| {
                    let spread = 1 + next(words as u64);
                    vocab.intern(&format!("w{}", next(spread)))
                })
                .collect();
            built.push(TermCounts::from_terms(terms));
        }
        let batch = round % 2 == 0;
        let mut index;
        // the same catalog in the packed layouts, to compare with the pair layouts
        let mut packed_twin = None;
        // (one by one only for small sets: each add rebuilds the lists)
        if batch && docs <= 400 {
            // the batch build's precomputed tf-1 values give the incremental build's bits
            let mut incremental = Bm25Index::default();
            for d in &built {
                incremental.add(d.clone());
            }
            index = Bm25Index::from_docs(built, vocab.len());
            let all: Vec<Option<u32>> = (0..vocab.len() as u32).map(Some).collect();
            let bits = |i: &Bm25Index| i.score(&all).iter().map(|s| (s.slot, s.score.to_bits())).collect::<Vec<_>>();
            assert_eq!(bits(&index), bits(&incremental), "round {round}");
        } else if batch {
            index = Bm25Index::from_docs(built, vocab.len());
        } else if round % 5 == 1 {
            // the other layouts: the pairs of catalogs whose terms, slots and shapes do
            // not fit one u32, and wider packings (more shapes)
            index = Bm25Index::from_docs(built.clone(), vocab.len());
            packed_twin = Some(Bm25Index::from_docs(built, vocab.len()));
            assert!(matches!(index.postings, Postings::Packed10(_)));
            let layout = [None, Some(13), Some(16)][round / 5 % 3];
            if layout.is_none() {
                index.fwd = Forward::Wide(index.fwd.to_pairs());
            }
            index.postings = index.postings_packed(layout);
        } else {
            index = Bm25Index::from_docs(built, vocab.len());
            // then removals and re-additions, which move documents to new slots
            for _ in 0..next(5) {
                let slot = next(docs as u64) as u32;
                if let Some(doc) = index.doc(slot) {
                    index.remove(slot);
                    if next(2) == 0 {
                        index.add(doc);
                    }
                }
            }
        }
        for _ in 0..24 {
            let qlen = 1 + next(20) as usize;
            let terms: Vec<Option<u32>> = (0..qlen)
                .map(|_| {
                    let spread = 1 + next(words as u64 + 3);
                    vocab.get(&format!("w{}", next(spread)))
                })
                .collect();
            if let Some(twin) = &packed_twin {
                let bits = |i: &Bm25Index| i.score(&terms).iter().map(|s| (s.slot, s.score.to_bits())).collect::<Vec<_>>();
                assert_eq!(bits(&index), bits(twin), "round {round}");
            }
            for limit in [1, 2, 10, 65, 200] {
                let exhaustive = top_by_score(index.score(&terms), limit);
                let pruned = index.score_top_from(&terms, limit, 0);
                // (every partial score is back at 0 for the next search, whichever way
                // it was reset)
                PRUNE.with(|cell| assert!(cell.borrow().partial.iter().all(|&x| x == 0.0), "round {round} limit {limit}"));
                assert_eq!(pruned.len(), exhaustive.len(), "round {round} limit {limit}");
                for (p, e) in pruned.iter().zip(&exhaustive) {
                    assert_eq!((p.slot, p.score.to_bits()), (e.slot, e.score.to_bits()), "round {round} limit {limit}");
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 150 * 24 * 5);
}

/// The common-term table holds the most frequent terms' tf (capped at 255) and each
/// live document's length, after a batch build and after removals and additions; a
/// word repeated past the cap still prunes exactly.
#[test]
fn common_tf_rows_follow_the_documents() {
    let mut vocab = Vocab::new();
    let mut docs = Vec::new();
    for d in 0..300u32 {
        let mut terms: Vec<u32> = Vec::new();
        for w in 0..20u32 {
            // word w is in about 1/(w+1) of the documents, up to 3 times
            if d % (w + 1) == 0 {
                for _ in 0..=(d + w) % 3 {
                    terms.push(vocab.intern(&format!("w{w}")));
                }
            }
        }
        if d == 7 {
            terms.extend(std::iter::repeat_n(vocab.intern("w0"), 300));
        }
        docs.push(TermCounts::from_terms(terms));
    }
    let check = |index: &Bm25Index| {
        assert_eq!(index.common.terms.len(), COMMON_TERMS);
        let dfs: Vec<usize> = index.common.terms.iter().map(|&t| index.df(t)).collect();
        assert!(dfs.windows(2).all(|w| w[0] >= w[1]), "most frequent first: {dfs:?}");
        let least = *dfs.last().unwrap();
        assert!((0..index.terms() as u32).filter(|t| !index.common.terms.contains(t)).all(|t| index.df(t) <= least));
        for slot in 0..index.slots() as u32 {
            let Some(doc) = index.doc(slot) else { continue };
            let row = &index.common.rows[slot as usize];
            assert_eq!(row.len, doc.len, "slot {slot}");
            for (place, &term) in index.common.terms.iter().enumerate() {
                let tf = doc.counts.iter().find(|c| c.0 == term).map_or(0, |c| c.1);
                assert_eq!(u32::from(row.tf[place]), tf.min(255), "slot {slot} term {term}");
            }
        }
    };
    let mut index = Bm25Index::from_docs(docs, vocab.len());
    check(&index);
    assert_eq!(index.common.rows[7].tf[index.common.place(vocab.get("w0").unwrap()).unwrap()], u8::MAX);
    for slot in [3, 7, 150] {
        let doc = index.doc(slot).unwrap();
        index.remove(slot);
        check(&index);
        index.add(doc);
        check(&index);
    }
    index.refresh_saturation();
    let w = |i: u32| vocab.get(&format!("w{i}"));
    for query in [vec![w(0), w(1), w(19)], vec![w(0), w(0), w(2), w(3), w(4), w(18)], vec![w(17), w(0), w(5), w(1)]] {
        for limit in [1, 3, 10] {
            let exhaustive = top_by_score(index.score(&query), limit);
            let pruned = index.score_top_from(&query, limit, 0);
            let bits = |v: &[Scored]| v.iter().map(|s| (s.slot, s.score.to_bits())).collect::<Vec<_>>();
            assert_eq!(bits(&pruned), bits(&exhaustive));
        }
    }
}

/// Forward entries pack into one u32 while every term and shape id fits, and read back
/// the same either way.
#[test]
fn forward_entries_pack_when_they_fit() {
    let pairs = vec![(0, 0), (5, 2), (1023, 4), (7, 0)];
    let packed = Forward::new(pairs.clone(), 1024, 5);
    assert!(matches!(packed, Forward::Packed { shape_bits: 3, .. }));
    assert_eq!(packed.to_pairs(), pairs);
    let mut middle = Vec::new();
    packed.each((1, 3), |t, s| middle.push((t, s)));
    assert_eq!(middle, pairs[1..3]);
    assert_eq!([1, 2, 3, 4, 5, 1 << 20, (1 << 20) + 1].map(bits_for), [1, 1, 2, 2, 3, 20, 21]);
    // 2^29 terms need 29 bits, 5 shapes 3: 32 fit; 9 shapes need 4
    assert!(matches!(Forward::new(pairs.clone(), 1 << 29, 5), Forward::Packed { .. }));
    let wide = Forward::new(pairs.clone(), 1 << 29, 9);
    assert!(matches!(wide, Forward::Wide(_)));
    assert_eq!(wide.to_pairs(), pairs);
    // an entry outside the stated ranges is kept as it is
    assert!(matches!(Forward::new(vec![(3, 9)], 4, 5), Forward::Wide(_)));
    assert!(matches!(Forward::new(Vec::new(), 0, 0), Forward::Packed { .. }));
    // a built catalog packs
    let (index, _) = index_of(&["alpha beta beta", "beta gamma", "delta"]);
    assert!(matches!(index.fwd, Forward::Packed { .. }));
    assert!(!matches!(index.postings, Postings::Wide(_)));
    let (batch, vocab) = index_of(&["alpha beta beta", "beta gamma", "delta"]);
    let docs: Vec<TermCounts> = (0..3).map(|s| batch.doc(s).unwrap()).collect();
    assert!(matches!(Bm25Index::from_docs(docs, vocab.len()).fwd, Forward::Packed { .. }));
}

#[test]
fn top_by_score_is_a_stable_prefix() {
    let scored: Vec<Scored> =
        [1.0, 3.0, 3.0, 2.0, 3.0, 1.0].iter().enumerate().map(|(i, &s)| Scored { slot: i as u32, score: s }).collect();
    let full = top_by_score(scored.clone(), usize::MAX);
    for limit in 0..=6 {
        assert_eq!(top_by_score(scored.clone(), limit), full[..limit.min(full.len())].to_vec());
    }
}

#[test]
fn batch_build_equals_incremental_adds() {
    let (incremental, vocab) = index_of(&["alpha beta beta", "beta gamma", "delta"]);
    let docs: Vec<TermCounts> = (0..3).map(|s| incremental.doc(s).unwrap()).collect();
    let batch = Bm25Index::from_docs(docs, vocab.len());
    for q in ["beta", "alpha gamma delta", "zeta"] {
        assert_eq!(query(&batch, &vocab, q), query(&incremental, &vocab, q));
    }
}

#[test]
fn vocab_keeps_short_and_long_terms_apart_and_exact() {
    let mut v = Vocab::new();
    let words = ["", "a", "ab", "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq", "天气", "ab\0", "ab\0\0"];
    let ids: Vec<u32> = words.iter().map(|w| v.intern(w)).collect();
    assert_eq!(ids, (0..words.len() as u32).collect::<Vec<_>>(), "every word is distinct");
    for (w, id) in words.iter().zip(&ids) {
        assert_eq!(v.get(w), Some(*id));
        assert_eq!(v.intern(w), *id);
    }
    assert_eq!(v.get("abcdefghijklmnoq"), None);
    assert_eq!(v.len(), words.len());
}

#[test]
fn overlay_vocab_sees_parent_terms() {
    let mut base = Vocab::new();
    let a = base.intern("alpha");
    let base = Arc::new(base);
    let mut overlay = Vocab::extending(base.clone());
    assert_eq!(overlay.intern("alpha"), a);
    let b = overlay.intern("beta");
    assert_eq!(b, 1);
    assert_eq!(base.get("beta"), None);
}
