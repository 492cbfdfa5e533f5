use std::sync::Arc;

use proptest::prelude::*;

use super::docs::top_k;
use super::model::{encode_model, normalize, STANDARD_FLAGS};
use super::*;

/// One-hot-ish vector of `dim` with `x` at `axis`.
fn axis(dim: usize, at: usize, x: f32) -> Vec<f32> {
    let mut v = vec![0.0; dim];
    v[at] = x;
    v
}

/// A hand-made 4-dimensional model: axis 0 = weather, 1 = email, 2 = code review, 3 = noise.
/// Pieces cover Latin, Han (Traditional and Simplified), kana and Hangul words.
pub(crate) fn tiny_model_bytes() -> Vec<u8> {
    let d = 4;
    let pieces: Vec<(&str, f32, Vec<f32>)> = vec![
        ("<unk>", 0.0, vec![0.0; d]),
        ("\u{2581}", -2.0, vec![0.0; d]),
        ("\u{2581}weather", -3.0, axis(d, 0, 1.0)),
        ("\u{2581}forecast", -4.0, axis(d, 0, 0.8)),
        ("\u{2581}rain", -4.0, axis(d, 0, 0.6)),
        ("\u{2581}will", -2.0, axis(d, 3, 0.1)),
        ("\u{2581}it", -2.0, axis(d, 3, 0.1)),
        ("\u{2581}send", -3.0, axis(d, 1, 0.5)),
        ("\u{2581}email", -3.0, axis(d, 1, 1.0)),
        ("\u{2581}mail", -3.5, axis(d, 1, 0.9)),
        ("\u{2581}message", -4.0, axis(d, 1, 0.7)),
        ("\u{2581}review", -4.0, axis(d, 2, 1.0)),
        ("\u{2581}code", -4.0, axis(d, 2, 0.6)),
        ("\u{2581}pull", -4.0, axis(d, 2, 0.5)),
        ("\u{2581}request", -4.0, axis(d, 2, 0.3)),
        ("\u{2581}un", -5.0, axis(d, 3, 0.2)),
        ("believ", -6.0, axis(d, 3, 0.2)),
        ("able", -5.0, axis(d, 3, 0.2)),
        ("\u{2581}unbeliev", -12.0, axis(d, 3, 0.2)),
        ("a", -6.0, axis(d, 3, 0.1)),
        ("b", -6.0, axis(d, 3, 0.1)),
        ("l", -6.0, axis(d, 3, 0.1)),
        ("e", -6.0, axis(d, 3, 0.1)),
        ("天氣", -5.0, axis(d, 0, 1.0)),
        ("天气", -5.0, axis(d, 0, 1.0)),
        ("預報", -5.0, axis(d, 0, 0.7)),
        ("下雨", -5.0, axis(d, 0, 0.8)),
        ("天", -7.0, axis(d, 3, 0.1)),
        ("気", -7.0, axis(d, 3, 0.1)),
        ("天気", -5.0, axis(d, 0, 1.0)),
        ("メール", -5.0, axis(d, 1, 1.0)),
        ("送る", -5.0, axis(d, 1, 0.4)),
        ("날씨", -5.0, axis(d, 0, 1.0)),
        ("메일", -5.0, axis(d, 1, 1.0)),
        ("보내기", -5.0, axis(d, 1, 0.4)),
        ("リ", -7.0, axis(d, 3, 0.1)),
        ("ビュー", -6.0, axis(d, 2, 1.0)),
        ("\u{2581}レ", -6.0, axis(d, 2, 0.2)),
    ];
    encode_model(d as u32, 0, STANDARD_FLAGS, &pieces)
}

pub(crate) fn tiny_model() -> Arc<StaticModel> {
    Arc::new(StaticModel::from_bytes(&tiny_model_bytes()).expect("tiny model parses"))
}

fn pieces(model: &StaticModel, text: &str, bytes: &[u8]) -> Vec<String> {
    // ids -> piece strings, re-read from the encoded table
    let names = piece_names(bytes);
    model.tokenize(text).into_iter().map(|id| names[id as usize].clone()).collect()
}

fn piece_names(bytes: &[u8]) -> Vec<String> {
    let n = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut at = 24;
    let mut out = Vec::new();
    for _ in 0..n {
        let len = u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize;
        out.push(String::from_utf8(bytes[at + 2..at + 2 + len].to_vec()).unwrap());
        at += 2 + len + 4;
    }
    out
}

#[test]
fn tokenizes_latin_with_word_marker_lowercase_and_nfkc() {
    let bytes = tiny_model_bytes();
    let m = StaticModel::from_bytes(&bytes).unwrap();
    assert_eq!(pieces(&m, "Weather  FORECAST", &bytes), ["▁weather", "▁forecast"]);
    // full-width letters fold by NFKC, then lowercase
    assert_eq!(pieces(&m, "ＷＥＡＴＨＥＲ", &bytes), ["▁weather"]);
    assert!(m.tokenize("").is_empty());
    assert!(m.tokenize(" \t\n\u{3000}").is_empty());
}

#[test]
fn tokenizes_han_kana_and_hangul() {
    let bytes = tiny_model_bytes();
    let m = StaticModel::from_bytes(&bytes).unwrap();
    assert_eq!(pieces(&m, "天氣預報", &bytes), ["▁", "天氣", "預報"]);
    assert_eq!(pieces(&m, "天気", &bytes), ["▁", "天気"]);
    assert_eq!(pieces(&m, "メール送る", &bytes), ["▁", "メール", "送る"]);
    assert_eq!(pieces(&m, "날씨 메일", &bytes), ["▁", "날씨", "▁", "메일"]);
    // mixed scripts in one word
    assert_eq!(pieces(&m, "email天气", &bytes), ["▁email", "天气"]);
}

#[test]
fn viterbi_picks_the_best_scoring_segmentation() {
    let bytes = tiny_model_bytes();
    let m = StaticModel::from_bytes(&bytes).unwrap();
    // ▁un + believ + able = -16 beats ▁unbeliev + able = -17 (and the per-letter split)
    assert_eq!(pieces(&m, "unbelievable", &bytes), ["▁un", "believ", "able"]);
    // "レビュー": "▁レ" (-6) + "ビュー" (-6) beats "▁" + unknown "レ" + "ビュー"
    assert_eq!(pieces(&m, "レビュー", &bytes), ["▁レ", "ビュー"]);
}

#[test]
fn unknown_characters_become_the_unknown_token() {
    let bytes = tiny_model_bytes();
    let m = StaticModel::from_bytes(&bytes).unwrap();
    assert_eq!(pieces(&m, "email🙂", &bytes), ["▁email", "<unk>"]);
    assert_eq!(pieces(&m, "🙂🙂", &bytes), ["▁", "<unk>", "<unk>"]);
    assert_eq!(pieces(&m, "xyz", &bytes), ["▁", "<unk>", "<unk>", "<unk>"]);
    // an all-unknown text has no vector
    assert!(m.embed("🙂 xyz").iter().all(|&x| x == 0.0));
}

#[test]
fn the_last_sentence_vector_kept_is_only_ever_its_own_texts() {
    let m = tiny_model();
    let fresh = |text: &str| tiny_model().embed(text);
    let (a, b) = ("weather forecast", "will it rain");
    assert_eq!(m.embed(a), fresh(a));
    assert_eq!(m.embed(a), fresh(a), "again: the kept vector");
    assert_eq!(m.embed(b), fresh(b), "another text is embedded, not the kept one");
    assert_eq!(m.embed(a), fresh(a));
    // the same text under another script is another vector (a model with script means)
    let means = [("latin", [0.0f32, 0.0, 0.0, 0.5]), ("zh-Hant", [0.6, 0.0, 0.0, 0.0])];
    let centred = StaticModel::from_bytes(&with_means(&means)).expect("model with means parses");
    let latin = centred.embed_as(a, Script::Latin);
    let traditional = centred.embed_as(a, Script::Traditional);
    assert_ne!(latin, traditional);
    assert_eq!(traditional, StaticModel::from_bytes(&with_means(&means)).unwrap().embed_as(a, Script::Traditional));
    assert_eq!(centred.embed_as(a, Script::Latin), latin);
}

#[test]
fn sentence_vectors_are_unit_means() {
    let m = tiny_model();
    let v = m.embed("weather forecast");
    let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-5);
    assert!(v[0] > 0.99);
    // "will it rain": mostly weather, a little noise
    let w = m.embed("will it rain");
    assert!(w[0] > w[3] && w[3] > 0.0);
}

#[test]
fn loader_reports_each_kind_of_bad_file() {
    let good = tiny_model_bytes();
    let err = |b: &[u8]| StaticModel::from_bytes(b).unwrap_err();
    assert_eq!(err(b""), ModelError::BadMagic);
    assert_eq!(err(b"MNPSEMB2xxxxxxxxxxxxxxxxx"), ModelError::BadMagic);
    assert_eq!(err(&good[..20]), ModelError::Truncated { what: "header" });
    assert_eq!(err(&good[..30]), ModelError::Truncated { what: "pieces" });
    assert_eq!(err(&good[..good.len() - 1]), ModelError::Truncated { what: "vectors" });
    let mut extra = good.clone();
    extra.push(0);
    assert_eq!(err(&extra), ModelError::TrailingBytes { extra: 1 });
    let with = |at: usize, value: u32| {
        let mut b = good.clone();
        b[at..at + 4].copy_from_slice(&value.to_le_bytes());
        b
    };
    assert_eq!(err(&with(8, 0)), ModelError::ZeroDim);
    assert_eq!(err(&with(8, 1 << 20)), ModelError::DimTooLarge { dim: 1 << 20 });
    assert_eq!(err(&with(12, 0)), ModelError::EmptyVocab);
    assert_eq!(err(&with(16, 999)), ModelError::UnknownIdOutOfRange { unk_id: 999, vocab: 38 });
    // a forged vocabulary count larger than the file can hold
    assert_eq!(err(&with(12, u32::MAX)), ModelError::Truncated { what: "pieces" });
    // piece 0 is "<unk>" at offset 24: length, bytes, score
    let mut bad_utf8 = good.clone();
    bad_utf8[26] = 0xFF;
    assert_eq!(err(&bad_utf8), ModelError::PieceNotUtf8 { index: 0 });
    assert_eq!(err(&with(31, f32::NAN.to_bits())), ModelError::NonFiniteScore { index: 0 });
    let scales_at = good.len() - 38 * 4 - 38 * 4;
    assert_eq!(err(&with(scales_at + 4, f32::INFINITY.to_bits())), ModelError::NonFiniteScale { index: 1 });
    assert!(err(&with(8, 0)).to_string().contains("dimension is 0"));
    assert!(err(&good[..30]).to_string().contains("truncated"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300), magic in any::<bool>()) {
        let mut b = bytes;
        if magic && b.len() >= 8 {
            b[..8].copy_from_slice(b"MNPSEMB1");
        }
        let _ = StaticModel::from_bytes(&b);
    }

    #[test]
    fn truncated_or_flipped_models_never_panic(cut in 0usize..2000, flip in 0usize..2000, bit in 0u8..8, text in "\\PC{0,40}") {
        let good = tiny_model_bytes();
        let cut_bytes = &good[..cut.min(good.len())];
        prop_assert!(cut >= good.len() || StaticModel::from_bytes(cut_bytes).is_err());
        let mut flipped = good.clone();
        let at = flip % flipped.len();
        flipped[at] ^= 1 << bit;
        // A flip may still give a valid model: then it must tokenize and embed anything.
        if let Ok(m) = StaticModel::from_bytes(&flipped) {
            let v = m.embed(&text);
            prop_assert_eq!(v.len(), m.dim());
            prop_assert!(v.iter().all(|x| x.is_finite()));
        }
    }

    #[test]
    fn any_text_tokenizes_into_valid_ids(text in "\\PC{0,60}") {
        let m = tiny_model();
        for id in m.tokenize(&text) {
            prop_assert!((id as usize) < m.vocab_size());
        }
    }
}

#[test]
fn document_top_k_is_exact_cosine_order() {
    let m = tiny_model();
    let texts = ["send an email message", "weather forecast", "code review for a pull request", "will it rain", "mail"];
    let docs = DocVectors::build(&m, texts);
    assert_eq!(docs.len(), 5);
    let q = m.embed("rain forecast");
    let top = docs.top(&docs.query(&q), 5);
    assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>()[..2], [1, 3]);
    // cosines agree with f32 arithmetic to quantization precision
    for &(i, c) in &top {
        let exact: f32 = m.embed(texts[i as usize]).iter().zip(&q).map(|(a, b)| a * b).sum();
        assert!((exact - c).abs() < 0.02, "{i}: {exact} vs {c}");
    }
    assert_eq!(docs.top(&docs.query(&q), 2).len(), 2);
    assert!(docs.top(&docs.query(&q), 0).is_empty());
    // a query with no vector scores every document 0
    assert!(docs.cosines(&docs.query(&m.embed("🙂"))).iter().all(|&c| c == 0.0));
}

/// A document's crowding is its mean cosine to its k closest other documents (within
/// quantization), over the whole set when it fits in the pool and over evenly spread
/// members otherwise; documents without a vector and sets of one have none.
#[test]
fn crowding_is_the_mean_cosine_to_the_closest_documents() {
    let dim = 8;
    let mut next = crate::test_support::xorshift(0xC0FF_EE12_3456_789A);
    let mut unit = Vec::new();
    let mut docs = DocVectors::new(dim);
    for i in 0..300 {
        // a few clusters, so some documents are much more crowded than others
        let mut v: Vec<f32> = (0..dim).map(|_| next(1000) as f32 / 1000.0 - 0.5).collect();
        v[i % 3] += if i % 3 == 0 { 3.0 } else { 0.5 };
        if i == 17 {
            v.fill(0.0);
        }
        normalize(&mut v);
        docs.push_unit(&v);
        unit.push(v);
    }
    let exact = |i: usize, members: &[usize], k: usize| -> f32 {
        if unit[i].iter().all(|&x| x == 0.0) {
            return 0.0;
        }
        let mut c: Vec<f32> = members.iter().filter(|&&m| m != i).map(|&m| unit[i].iter().zip(&unit[m]).map(|(a, b)| a * b).sum()).collect();
        c.sort_by(|a, b| b.total_cmp(a));
        c[..k].iter().sum::<f32>() / k as f32
    };
    let all: Vec<usize> = (0..300).collect();
    let one_class = vec![false; 300];
    let whole = docs.crowding(5, 300, &one_class);
    let spread: Vec<usize> = (0..64).map(|i| i * 300 / 64).collect();
    let pooled = docs.crowding(5, 64, &one_class);
    // two classes (every fourth document is the other): each against its own class only
    let class: Vec<bool> = (0..300).map(|i| i % 4 == 0).collect();
    let by_class = docs.crowding(5, 40, &class);
    let members = |c: bool| -> Vec<usize> {
        let rows: Vec<usize> = (0..300).filter(|&i| class[i] == c).collect();
        (0..40).map(|j| rows[j * rows.len() / 40]).collect()
    };
    let (others, fourths) = (members(false), members(true));
    for i in 0..300 {
        assert!((whole[i] - exact(i, &all, 5)).abs() < 0.02, "{i}: {} vs {}", whole[i], exact(i, &all, 5));
        assert!((pooled[i] - exact(i, &spread, 5)).abs() < 0.02, "{i}: {} vs {}", pooled[i], exact(i, &spread, 5));
        let own = if class[i] { &fourths } else { &others };
        assert!((by_class[i] - exact(i, own, 5)).abs() < 0.02, "{i}: {} vs {}", by_class[i], exact(i, own, 5));
    }
    assert_eq!(whole[17], 0.0);
    // the dense cluster (axis 0) is the crowded one
    let mean = |r: usize| (0..300).filter(|i| i % 3 == r && *i != 17).map(|i| whole[i]).sum::<f32>() / 99.0;
    assert!(mean(0) > mean(1) + 0.1, "{} vs {}", mean(0), mean(1));
    let mut one = DocVectors::new(dim);
    one.push_unit(&unit[0]);
    assert_eq!(one.crowding(5, 64, &[false]), [0.0]);
    assert!(DocVectors::new(dim).crowding(5, 64, &[]).is_empty());
}

/// `SemanticDocs::top` ranks by cosine less the crowding share given; 0 leaves plain
/// cosine order; documents with no positive cosine are never candidates.
#[test]
fn semantic_top_takes_the_crowding_share_off_the_cosine() {
    let m = tiny_model();
    let texts = ["weather forecast", "weather forecast rain", "weather", "email", "code review", "天气 预报"];
    let docs = SemanticDocs::new(m.clone(), DocVectors::build(&m, texts), texts.iter().map(|t| Script::of(t)).collect());
    let q = m.embed("rain forecast");
    let cosines = docs.vectors.cosines(&docs.vectors.query(&q));
    let crowding = docs.vectors.crowding(10, 256, &docs.cjk);
    let share = |w: f32| Fusion { crowding_latin: f64::from(w), same_script: 0.0, ..Fusion::default() };
    let plain = docs.top("rain forecast", 10, &share(0.0));
    assert_eq!(plain, top_k(&cosines, 10).into_iter().filter(|&(_, c)| c > 0.0).collect::<Vec<_>>());
    for w in [0.5f32, 2.0] {
        let top = docs.top("rain forecast", 10, &share(w));
        let mut expected: Vec<(u32, f32)> = (0..texts.len() as u32).filter(|&i| cosines[i as usize] > 0.0).map(|i| (i, cosines[i as usize] - w * crowding[i as usize])).collect();
        expected.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        assert_eq!(top, expected, "share {w}");
        assert!(top.iter().all(|&(i, _)| i != 3 && i != 4), "email and code review do not point the query's way");
    }
}

/// The crowding share follows the query's script like the semantic weight.
#[test]
fn crowding_share_follows_the_query_script() {
    let f = Fusion { crowding_latin: 0.1, crowding_cjk: 0.5, any_cjk: false, ..Fusion::default() };
    assert!((f.crowding("weather") - 0.1).abs() < 1e-6);
    assert!((f.crowding("天气") - 0.5).abs() < 1e-6);
    assert!((f.crowding("PR 送審") - 0.3).abs() < 1e-6);
    let any = Fusion { any_cjk: true, ..f };
    assert!((any.crowding("PR 送審") - 0.5).abs() < 1e-6);
    assert_eq!(Fusion::default().crowding("weather"), 0.0);
}

#[test]
fn top_k_past_the_values_is_all_of_them() {
    let values = [0.5, 0.9, 0.1];
    for k in [3, 4, usize::MAX / 2 + 1, usize::MAX] {
        assert_eq!(top_k(&values, k), [(1, 0.9), (0, 0.5), (2, 0.1)], "{k}");
    }
}

#[test]
fn top_k_breaks_ties_by_position() {
    assert_eq!(top_k(&[0.5, 0.9, 0.5, 0.9], 3), [(1, 0.9), (3, 0.9), (0, 0.5)]);
    assert_eq!(top_k(&[0.1], 5), [(0, 0.1)]);
}

#[test]
fn fusion_weights_follow_the_query_script() {
    let f = Fusion { semantic_latin: 0.2, semantic_cjk: 1.0, any_cjk: false, ..Fusion::default() };
    assert_eq!(fusion::cjk_share("weather"), 0.0);
    assert_eq!(fusion::cjk_share("天气"), 1.0);
    assert_eq!(fusion::cjk_share("PR 送審"), 0.5);
    assert_eq!(fusion::cjk_share("🙂 !"), 0.0);
    assert!((f.semantic_weight("天气") - 1.0).abs() < 1e-12);
    assert!((f.semantic_weight("weather") - 0.2).abs() < 1e-12);
    assert!((f.semantic_weight("PR 送審") - 0.6).abs() < 1e-12);
    // any CJK character: the CJK weight
    let any = Fusion { any_cjk: true, ..f };
    assert!((any.semantic_weight("PR 送審") - 1.0).abs() < 1e-12);
    assert!((any.semantic_weight("open a PR") - 0.2).abs() < 1e-12);
}

#[test]
fn fusion_orders_by_fused_rank_and_scores_in_unit_range() {
    let f = Fusion { k: 60.0, semantic_latin: 0.3, semantic_cjk: 1.0, relative: false, ..Fusion::default() };
    let lexical = [(7, 9.0), (3, 5.0), (1, 1.0)];
    let semantic = [(3, 0.9), (5, 0.8), (7, 0.1)];
    // CJK query: equal weights; doc 3 (ranks 2 and 1) beats doc 7 (ranks 1 and 3)
    let cjk = f.fuse("天气", &lexical, &semantic, &[]);
    assert_eq!(cjk.iter().map(|h| h.0).collect::<Vec<_>>(), [3, 7, 5, 1]);
    assert!(cjk.windows(2).all(|w| w[0].1 >= w[1].1));
    assert!(cjk.iter().all(|h| h.1 > 0.0 && h.1 <= 1.0));
    // Latin query: the lexical order leads
    let latin = f.fuse("weather", &lexical, &semantic, &[]);
    assert_eq!(latin[0].0, 7);
    // first in both rankings scores exactly 1
    let both = f.fuse("天气", &[(4, 1.0)], &[(4, 0.5)], &[]);
    assert_eq!(both, [(4, 1.0)]);
    // no lexical hit: the semantic ranking alone
    let only = f.fuse("weather", &[], &semantic, &[]);
    assert_eq!(only.iter().map(|h| h.0).collect::<Vec<_>>(), [3, 5, 7]);
    assert!(f.fuse("x", &[], &[], &[]).is_empty());
}

/// A Latin-script query cannot be compared with a document in CJK text: a lexical candidate
/// with CJK text gets the neutral semantic part (its cosine is ignored), and such documents
/// are not semantic candidates; CJK queries and semantic-only rankings are unchanged.
#[test]
fn documents_the_model_cannot_compare_get_a_neutral_semantic_part() {
    let f = Fusion { relative: true, semantic_latin: 0.5, semantic_cjk: 0.5, lexical_floor: 0.0, unreadable: 0.4, ..Fusion::default() };
    let cjk_docs = [false, true, false, false, true];
    let lexical = [(1, 10.0), (2, 9.0)];
    let semantic = [(2, 0.9), (1, 0.7), (4, 0.6), (3, 0.5)];
    let fused = f.fuse("weather", &lexical, &semantic, &cjk_docs);
    // doc 2: 0.9 + 0.5 · (0.9 - 0.5) / 0.4; doc 1: 1.0 + 0.4 · 0.5 (not 0.5 · 0.2 / 0.4 from its
    // cosine); doc 4 (CJK, not a lexical candidate) is left out; doc 3 is at the floor
    assert_eq!(order(&fused), [2, 1]);
    assert!((fused[0].1 - 1.4 / 1.5).abs() < 1e-6 && (fused[1].1 - 1.2 / 1.5).abs() < 1e-9, "{fused:?}");
    // off: the cosines count (doc 4 joins with 0.5 · 0.1 / 0.4)
    let off = Fusion { unreadable: 0.0, ..f }.fuse("weather", &lexical, &semantic, &cjk_docs);
    assert_eq!(off, f.fuse("weather", &lexical, &semantic, &[]));
    assert_eq!(order(&off), [2, 1, 4]);
    // a CJK query, or no lexical match: as if nothing were unreadable
    assert_eq!(f.fuse("天气", &lexical, &semantic, &cjk_docs), f.fuse("天气", &lexical, &semantic, &[]));
    assert_eq!(f.fuse("weather", &[], &semantic, &cjk_docs), f.fuse("weather", &[], &semantic, &[]));
    assert_eq!(order(&f.fuse("weather", &[], &semantic, &cjk_docs))[..3], [2, 1, 4]);
}

#[test]
fn tool_text_splits_identifiers() {
    assert_eq!(tool_text("send_email", "Send mail"), "send email. Send mail");
    assert_eq!(tool_text("createIssue", ""), "create Issue. ");
    assert_eq!(tool_text("github.pr-review", "x"), "github pr review. x");
}

mod catalog {
    use super::tiny_model;
    use crate::catalog::tests::{built, compatible, entry};
    use crate::catalog::{BuildOptions, KeyConflicts, SearchMode, SearchParams, ToolCatalog, ToolEntry};
    use crate::semantic::EmbedderFusion;

    const TOOLS: [(&str, &str); 4] = [
        ("weather_forecast", "Get the forecast for a location"),
        ("send_email", "Send a message to a recipient"),
        ("review_code", "Review a pull request"),
        ("calendar", "Schedule an event"),
    ];

    fn entries() -> Vec<ToolEntry> {
        TOOLS.iter().enumerate().map(|(i, (id, d))| entry(i as u32, id, Some(id), d)).collect()
    }

    fn params(top_k: usize) -> SearchParams {
        SearchParams { top_k, min_score: 0.0, inspect_all: false }
    }

    fn handles(hits: &[crate::catalog::Hit]) -> Vec<u32> {
        hits.iter().map(|h| h.handle).collect()
    }

    #[test]
    fn hybrid_finds_paraphrases_enhanced_misses() {
        let hybrid = built(entries(), vec![], SearchMode::Hybrid(tiny_model()));
        let enhanced = built(entries(), vec![], SearchMode::Enhanced);
        assert!(hybrid.is_hybrid() && hybrid.is_enhanced() && !enhanced.is_hybrid());
        // no shared word: only the vectors connect "rain" with the weather tool
        assert!(enhanced.search("will it rain", params(5)).is_empty());
        assert_eq!(handles(&hybrid.search("will it rain", params(1))), [0]);
        // CJK requests against English descriptions
        assert_eq!(handles(&hybrid.search("天氣預報", params(1))), [0]);
        assert_eq!(handles(&hybrid.search("メール送る", params(1))), [1]);
        assert_eq!(handles(&hybrid.search("메일 보내기", params(1))), [1]);
        // a lexical match stays first
        assert_eq!(hybrid.search("schedule", params(5))[0].handle, 3);
    }

    #[test]
    fn hybrid_scores_are_sorted_bounded_and_respect_top_k_and_min_score() {
        let c = built(entries(), vec![], SearchMode::Hybrid(tiny_model()));
        let all = c.search("send email message about the forecast", params(10));
        assert!(all.len() >= 2);
        assert!(all.windows(2).all(|w| w[0].score >= w[1].score));
        assert!(all.iter().all(|h| h.score > 0.0 && h.score <= 1.0));
        assert_eq!(all[0].handle, 1);
        assert_eq!(c.search("send email message about the forecast", params(1)).len(), 1);
        assert!(c.search("email", params(0)).is_empty());
        let second = all[1].score;
        let above = c.search("send email message about the forecast", SearchParams { min_score: second, ..params(10) });
        assert!(!above.is_empty() && above.iter().all(|h| h.score > second));
        // a filter inspects every candidate
        let every = c.search("send email message about the forecast", SearchParams { inspect_all: true, ..params(1) });
        assert_eq!(handles(&every), handles(&all));
        // nothing known in the query: no hits
        assert!(c.search("🙂", params(5)).is_empty());
    }

    #[test]
    fn evidence_is_the_hits_lexical_score_and_plain_cosine() {
        let c = built(entries(), vec![], SearchMode::Hybrid(tiny_model()));
        let enhanced = built(entries(), vec![], SearchMode::Enhanced);
        for query in ["send email message about the forecast", "will it rain", "schedule", "🙂"] {
            let plain = c.search(query, params(5));
            let explained = c.search_with_evidence(query, params(5), None);
            // the same hits, in the same order
            assert_eq!(handles(&plain), explained.iter().map(|(h, _)| h.handle).collect::<Vec<_>>(), "{query}");
            let lexical = enhanced.search(query, params(10));
            for (hit, evidence) in &explained {
                let evidence = evidence.expect("a hybrid catalog explains every hit");
                let expected = lexical.iter().find(|l| l.handle == hit.handle).map_or(0.0, |l| l.score);
                assert!((evidence.lexical - expected).abs() < 1e-9, "{query}: {evidence:?} vs {expected}");
                assert!(evidence.cosine > -1.0 && evidence.cosine <= 1.0 + 1e-6);
            }
        }
        // "will it rain" shares no word with any tool: semantic evidence only
        let rain = c.search_with_evidence("will it rain", params(1), None);
        assert_eq!(rain[0].0.handle, 0);
        assert_eq!(rain[0].1.unwrap().lexical, 0.0);
        assert!(rain[0].1.unwrap().cosine > 0.0);
        // the lexical rankers have their score alone
        assert!(enhanced.search_with_evidence("schedule", params(5), None).iter().all(|(_, e)| e.is_none()));
    }

    #[test]
    fn a_users_vectors_rank_the_semantic_side() {
        use crate::catalog::Override;
        let c = built(entries(), vec![], SearchMode::Hybrid(tiny_model()));
        let texts = c.semantic_texts();
        assert_eq!(texts.len(), TOOLS.len());
        // Four 3-dimensional vectors: review_code alone on the first axis.
        let rows: Vec<f32> = [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [5.0, 0.0, 0.0], [0.0, 1.0, 1.0]].concat();
        let docs = c.semantic_override(&rows, 3).expect("rows fit");
        let over = |v: &'static [f32]| Some(Override { docs: &docs, query_vector: v, weights: None });
        // A word no tool has: only the vectors can find it.
        assert!(c.search("zorblax", params(5)).iter().all(|h| h.handle != 2));
        assert_eq!(handles(&c.search_with("zorblax", params(1), over(&[3.0, 0.1, 0.0]))), [2]);
        assert_eq!(handles(&c.search_with("zorblax", params(1), over(&[0.0, 0.0, 1.0]))), [1]);
        // Evidence stays the shipped model's, whatever ranks.
        let explained = c.search_with_evidence("zorblax", params(1), over(&[3.0, 0.1, 0.0]));
        assert_eq!(explained[0].0.handle, 2);
        // (the user's vectors put it at cosine ~1; the shipped model knows no such word)
        let evidence = explained[0].1.unwrap();
        assert_eq!(evidence.lexical, 0.0);
        assert!(evidence.cosine.abs() < 0.99, "{evidence:?}");
        // Its own weights: none for the semantic side keeps the lexical order; a large one puts
        // the vectors' choice first.
        let weighted = |w: f64| Some(Override { docs: &docs, query_vector: &[3.0, 0.1, 0.0], weights: Some(EmbedderFusion::weights(w, w)) });
        assert_eq!(c.search_with("schedule", params(1), weighted(0.0))[0].handle, 3);
        assert_eq!(c.search_with("schedule", params(1), weighted(100.0))[0].handle, 2);
        // A query vector of another size, or one not finite, finds nothing semantic.
        assert!(c.search_with("zorblax", params(1), over(&[1.0, 0.0])).is_empty());
        assert!(c.search_with("zorblax", params(1), over(&[f32::NAN, 0.0, 0.0])).is_empty());
        // Rows that do not fit.
        assert!(c.semantic_override(&rows[..9], 3).is_none());
        assert!(c.semantic_override(&[f32::INFINITY; 12], 3).is_none());
        assert!(c.semantic_override(&rows, 0).is_none());
        // Without the shipped model: an enhanced catalog fused with the user's vectors alone.
        let enhanced = built(entries(), vec![], SearchMode::Enhanced);
        assert_eq!(enhanced.semantic_texts(), texts);
        let alone = enhanced.semantic_override(&rows, 3).expect("rows fit");
        assert!(alone.model.is_none());
        let over_alone = Some(Override { docs: &alone, query_vector: &[3.0, 0.1, 0.0], weights: Some(EmbedderFusion::weights(1.0, 0.15)) });
        assert!(enhanced.search("zorblax", params(5)).is_empty());
        assert_eq!(handles(&enhanced.search_with("zorblax", params(1), over_alone)), [2]);
        let unweighted = Some(Override { docs: &alone, query_vector: &[3.0, 0.1, 0.0], weights: Some(EmbedderFusion::weights(0.0, 0.0)) });
        assert_eq!(enhanced.search_with("schedule", params(1), unweighted)[0].handle, 3);
        assert!(enhanced.search_with_evidence("zorblax", params(1), over_alone).iter().all(|(_, e)| e.is_none()));
        // (its documents rank given vectors only: a text query alone finds nothing semantic)
        assert!(alone.top("zorblax", 5, &crate::semantic::Fusion::default()).is_empty());
        let compatible = compatible(entries());
        assert!(compatible.semantic_override(&rows, 3).is_none());
        assert!(compatible.semantic_texts().is_empty());
    }

    #[test]
    fn a_users_vectors_compare_scripts_without_the_shipped_models_same_script_share() {
        use crate::catalog::Override;
        // One English and one Chinese tool; the user's (multilingual) vectors put the Chinese
        // one nearer to an English request, by less than the shipped model's 0.15 share.
        let tools = vec![
            crate::catalog::tests::entry(0, "send_mail", Some("send_mail"), "Send an email message"),
            crate::catalog::tests::entry(1, "weather_zh", Some("weather_zh"), "查詢城市的天氣預報"),
        ];
        let c = built(tools, vec![], SearchMode::Hybrid(tiny_model()));
        let rows: Vec<f32> = [[0.90, 0.44], [1.0, 0.0]].concat();
        let docs = c.semantic_override(&rows, 2).expect("rows fit");
        let query = [1.0_f32, 0.05];
        let with = |knobs: EmbedderFusion| Some(Override { docs: &docs, query_vector: &query, weights: Some(knobs) });
        let shipped = EmbedderFusion::weights(1.0, 1.0);
        assert_eq!(c.search_with("forecast", params(1), with(shipped))[0].handle, 0);
        let own = EmbedderFusion { same_script: 0.0, crowding_cjk: 0.0, ..shipped };
        assert_eq!(c.search_with("forecast", params(1), with(own))[0].handle, 1);
    }

    #[test]
    fn hybrid_skips_id_less_tools_and_validates_like_enhanced() {
        let mut list = entries();
        list[0].id = None;
        let c = built(list, vec![], SearchMode::Hybrid(tiny_model()));
        assert!(!handles(&c.search("weather forecast rain", params(5))).contains(&0));
        let dup = vec![entry(0, "a", Some("same"), ""), entry(1, "b", Some("same"), "")];
        let validated = BuildOptions::new(SearchMode::Hybrid(tiny_model())).validated(&["load_tool"], KeyConflicts::Reject);
        assert!(ToolCatalog::build(dup.into(), &validated).is_err());
        let ok = ToolCatalog::build(entries().into(), &validated).unwrap();
        assert!(ok.is_hybrid());
    }

    #[test]
    fn hybrid_overlay_stays_hybrid_and_equals_a_fresh_build() {
        let base = built(entries(), vec![], SearchMode::Hybrid(tiny_model()));
        let resolved = vec![entry(10, "send_email", Some("send_email"), "Send mail now"), entry(11, "mail_merge", Some("mail_merge"), "Merge mail")];
        let o = ToolCatalog::overlay(&base, resolved.clone(), vec![String::new(), String::new()]);
        assert!(o.is_hybrid());
        let mut merged = entries();
        merged[1] = resolved[0].clone();
        merged.push(resolved[1].clone());
        let fresh = built(merged, vec![], SearchMode::Hybrid(base_model(&base)));
        for q in ["will it rain", "mail", "天气", "review code"] {
            assert_eq!(o.search(q, params(5)), fresh.search(q, params(5)), "{q}");
        }
    }

    #[test]
    fn hybrid_tells_the_fusion_which_tools_have_cjk_text() {
        let list = vec![
            entry(0, "weather_forecast", Some("weather_forecast"), "Get the forecast"),
            entry(1, "weather_tw", Some("weather_tw"), "取得天氣預報"),
        ];
        let mut c = built(list, vec![], SearchMode::Hybrid(tiny_model()));
        let score = |hits: &[crate::catalog::Hit], handle: u32| hits.iter().find(|h| h.handle == handle).map(|h| h.score);
        c.set_fusion(crate::semantic::Fusion { unreadable: 0.4, ..crate::semantic::Fusion::default() });
        let (latin, cjk) = (c.search("weather", params(5)), c.search("天氣", params(5)));
        c.set_fusion(crate::semantic::Fusion { unreadable: 0.0, ..crate::semantic::Fusion::default() });
        let (latin_off, cjk_off) = (c.search("weather", params(5)), c.search("天氣", params(5)));
        // the Chinese-described tool's cosine with an English query is replaced; the English one's is not
        assert!(score(&latin, 1).is_some() && score(&latin, 1) != score(&latin_off, 1), "{latin:?} {latin_off:?}");
        assert_eq!(score(&latin, 0), score(&latin_off, 0));
        assert_eq!(cjk, cjk_off);
    }

    fn base_model(_: &ToolCatalog) -> std::sync::Arc<crate::semantic::StaticModel> {
        // A separately loaded model: equal vectors, so equal results.
        tiny_model()
    }
}

mod skills {
    use super::tiny_model;
    use crate::skill_search::{SearchMode, SkillIndex, SkillInput};

    fn skill(name: &str, description: &str, body: &str) -> SkillInput {
        SkillInput { name: name.into(), description: description.into(), instructions: body.into(), references: vec![] }
    }

    fn skills() -> Vec<SkillInput> {
        vec![
            skill("weather-report", "Write a forecast summary", "Use the forecast data."),
            skill("email-writer", "Draft a message for a recipient", "Keep the mail short."),
            skill("code-review", "Review a pull request", "Check the code."),
        ]
    }

    fn names(index: &SkillIndex, q: &str, top_k: f64, min: f64) -> Vec<u32> {
        index.search(q, top_k, min).iter().map(|h| h.skill).collect()
    }

    #[test]
    fn hybrid_skills_find_paraphrases_and_keep_enhanced_semantics() {
        let s = skills();
        let hybrid = SkillIndex::build_hybrid(&s, 3.0, tiny_model());
        let enhanced = SkillIndex::build(&s, SearchMode::Enhanced, 3.0);
        assert!(hybrid.is_hybrid() && !enhanced.is_hybrid());
        assert!(enhanced.search("will it rain", 5.0, 0.0).is_empty());
        assert_eq!(names(&hybrid, "will it rain", 1.0, 0.0), [0]);
        assert_eq!(names(&hybrid, "天气", 1.0, 0.0), [0]);
        assert_eq!(names(&hybrid, "메일", 1.0, 0.0), [1]);
        // topK counts skills; scores sorted, in (0, 1]; minScore is `>=`
        let hits = hybrid.search("send email forecast review", 10.0, 0.0);
        assert!(hits.len() >= 2 && hits.windows(2).all(|w| w[0].score >= w[1].score));
        assert!(hits.iter().all(|h| h.score > 0.0 && h.score <= 1.0 && h.source == 0));
        assert_eq!(hybrid.search("send email forecast review", 1.0, 0.0).len(), 1);
        let at = hits[1].score;
        assert!(hybrid.search("send email forecast review", 10.0, at).iter().all(|h| h.score >= at));
        assert!(hybrid.search("send email forecast review", 10.0, f64::NAN).is_empty());
    }

    #[test]
    fn hybrid_duplicate_skill_names_count_once() {
        let mut s = skills();
        s.push(skill("weather-report", "Another forecast summary", "rain"));
        let index = SkillIndex::build_hybrid(&s, 4.0, tiny_model());
        let hits = names(&index, "weather forecast rain", 10.0, 0.0);
        assert_eq!(hits.iter().filter(|&&h| h == 0 || h == 3).count(), 1);
    }
}

#[test]
fn relative_fusion_scales_scores_and_stays_in_unit_range() {
    let f = Fusion { relative: true, semantic_latin: 0.5, semantic_cjk: 1.0, semantic_depth: 50, semantic_spread: 0.0, lexical_floor: 0.0, ..Fusion::default() };
    let lexical = [(7, 10.0), (3, 5.0)];
    let semantic = [(3, 0.9), (5, 0.5), (7, 0.1)];
    // Latin: 7 = 1/1.5 (lexical only, semantic floor); 3 = (0.5 + 0.5)/1.5; 5 = 0.25/1.5
    let fused = f.fuse("weather", &lexical, &semantic, &[]);
    let ids: Vec<u32> = fused.iter().map(|h| h.0).collect();
    // 7 and 3 tie at 1.0 / 1.5: the lexical order decides
    assert_eq!(ids, [7, 3, 5]);
    assert!((fused[0].1 - 1.0 / 1.5).abs() < 1e-9 && (fused[1].1 - 1.0 / 1.5).abs() < 1e-9);
    assert!((fused[2].1 - 0.25 / 1.5).abs() < 1e-6); // cosines are f32
    // first in both scores 1
    assert_eq!(f.fuse("x", &[(1, 3.0)], &[(1, 0.4)], &[]), [(1, 1.0)]);
}

#[test]
fn without_lexical_hits_the_semantic_ranking_stands_alone_even_at_weight_zero() {
    for relative in [false, true] {
        let f = Fusion { relative, k: 60.0, semantic_latin: 0.0, semantic_cjk: 0.0, ..Fusion::default() };
        let semantic = [(3, 0.9), (5, 0.5), (7, 0.1)];
        let only = f.fuse("天气", &[], &semantic, &[]);
        assert_eq!(only.iter().map(|h| h.0).collect::<Vec<_>>()[..2], [3, 5], "relative {relative}");
        // with lexical hits, weight 0 leaves the lexical ranking alone
        assert_eq!(f.fuse("天气", &[(9, 2.0)], &semantic, &[]).iter().map(|h| h.0).collect::<Vec<_>>(), [9]);
    }
}

fn order(fused: &[(u32, f64)]) -> Vec<u32> {
    fused.iter().map(|h| h.0).collect()
}

#[test]
fn a_weak_lexical_match_leaves_room_for_the_semantic_side() {
    let f = Fusion { semantic_latin: 0.5, semantic_spread: 0.0, lexical_floor: 0.0, ..Fusion::default() };
    let semantic = [(2, 0.9), (1, 0.5), (3, 0.1)];
    // min-max: doc 1 = 1 + 0.5 * 0.4 / 0.8 = 1.25 beats doc 2 = 0.5
    assert_eq!(order(&f.fuse("weather", &[(1, 2.0)], &semantic, &[])), [1, 2]);
    // floor 10: doc 1 = 2 / 10 + 0.25 = 0.45 < doc 2 = 0.5
    let floored = Fusion { lexical_floor: 10.0, ..f };
    let fused = floored.fuse("weather", &[(1, 2.0)], &semantic, &[]);
    assert_eq!(order(&fused), [2, 1]);
    assert!((fused[0].1 - 0.5 / 1.5).abs() < 1e-6 && (fused[1].1 - 0.45 / 1.5).abs() < 1e-6);
    // a best score at or above the floor is the min-max blend again
    assert_eq!(floored.fuse("weather", &[(1, 20.0)], &semantic, &[]), f.fuse("weather", &[(1, 20.0)], &semantic, &[]));
}

#[test]
fn a_flat_semantic_ranking_adds_less_than_its_weight() {
    let f = Fusion { semantic_latin: 0.5, semantic_spread: 0.0, lexical_floor: 0.0, ..Fusion::default() };
    let lexical = [(1, 10.0), (2, 9.0)];
    let flat = [(2, 0.52), (1, 0.50), (3, 0.49)];
    // min-max: doc 2 = 0.9 + 0.5 = 1.4 beats doc 1 = 1 + 0.5 / 3 (doc 3, at the floor, adds nothing)
    assert_eq!(order(&f.fuse("weather", &lexical, &flat, &[])), [2, 1]);
    // spread 0.2: doc 2 = 0.9 + 0.5 * 0.03 / 0.2 = 0.975 < doc 1 = 1 + 0.5 * 0.01 / 0.2 = 1.025
    let unsure = Fusion { semantic_spread: 0.2, ..f };
    let fused = unsure.fuse("weather", &lexical, &flat, &[]);
    assert_eq!(order(&fused), [1, 2]);
    assert!((fused[0].1 - 1.025 / 1.5).abs() < 1e-6, "{fused:?}");
    // a ranking that spreads more than 0.2 is min-max scaled as before
    let sure = [(2, 0.9), (1, 0.5), (3, 0.4)];
    assert_eq!(unsure.fuse("weather", &lexical, &sure, &[]), f.fuse("weather", &lexical, &sure, &[]));
    // alone, the semantic side keeps its order however flat it is
    assert_eq!(order(&unsure.fuse("weather", &[], &flat, &[]))[..2], [2, 1]);
}

#[test]
fn default_fusion_scores_stay_in_unit_range() {
    let f = Fusion::default();
    let lexical = [(1, 55.0), (2, 7.0), (4, 0.5)];
    let semantic = [(2, 0.8), (3, 0.7), (1, 0.65), (5, 0.6)];
    for query in ["weather", "天气", "PR 送審"] {
        for lex in [&lexical[..], &lexical[1..], &[]] {
            let fused = f.fuse(query, lex, &semantic, &[]);
            assert!(!fused.is_empty());
            assert!(fused.iter().all(|h| h.1 > 0.0 && h.1 <= 1.0), "{query} {fused:?}");
            assert!(fused.windows(2).all(|w| w[0].1 >= w[1].1));
        }
    }
}

/// The tiny model's bytes with flag bit3 and a mean per entry of `means` appended.
fn with_means(means: &[(&str, [f32; 4])]) -> Vec<u8> {
    let mut bytes = tiny_model_bytes();
    let flags = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) | 8;
    bytes[20..24].copy_from_slice(&flags.to_le_bytes());
    bytes.extend_from_slice(&(means.len() as u32).to_le_bytes());
    for (name, mean) in means {
        bytes.push(name.len() as u8);
        bytes.extend_from_slice(name.as_bytes());
        for x in mean {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    bytes
}

#[test]
fn scripts_of_texts() {
    for (text, script) in [
        ("send an email", Script::Latin),
        ("", Script::Latin),
        ("天气预报 API", Script::Simplified),
        ("查看天氣預報", Script::Traditional),
        ("幫我開個 PR", Script::Traditional),
        ("帮我开个 PR", Script::Simplified),
        ("明日の天気を教えて", Script::Japanese),
        ("東京の天氣", Script::Japanese), // kana decides, whatever the Han forms
        ("내일 날씨 알려줘", Script::Korean),
        ("S3에서 파일 목록", Script::Korean),
    ] {
        assert_eq!(Script::of(text), script, "{text}");
    }
    // a tool: English name, description in another script
    assert_eq!(tool_script("weather_get", "查詢天氣預報"), Script::Traditional);
    assert_eq!(tool_script("weather_get", "Get the forecast"), Script::Latin);
    // one folded character among many Simplified ones stays Simplified
    assert_eq!(Script::of("这个著名的天气预报服务可以查看明天的天气情况"), Script::Simplified);
}

/// Each script's mean (times the centering share) comes off a sentence vector before it is
/// normalized again; scripts without a mean, share 0 and files without the section are
/// plain normalized means.
#[test]
fn script_means_centre_sentence_vectors() {
    let plain = tiny_model();
    let means = [("latin", [0.0f32, 0.0, 0.0, 0.5]), ("zh-Hant", [0.6, 0.0, 0.0, 0.0]), ("other", [9.0; 4])];
    let centred = StaticModel::from_bytes(&with_means(&means)).expect("model with means parses");
    assert!(!plain.has_script_means() && !centred.has_script_means(), "three of five scripts have none");
    let expect = |text: &str, mean: [f32; 4], share: f32| {
        let mut v = plain.embed(text);
        for (x, m) in v.iter_mut().zip(mean) {
            *x -= share * m;
        }
        normalize(&mut v);
        v
    };
    let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
    for text in ["will it rain", "send email"] {
        assert!(close(&centred.embed(text), &expect(text, means[0].1, 1.0)), "{text}");
    }
    assert!(close(&centred.embed("天氣預報"), &expect("天氣預報", means[1].1, 1.0)));
    // no mean for Simplified, Japanese or Korean text ("other" is not a script: skipped)
    for text in ["天气", "メール送る", "날씨"] {
        assert_eq!(centred.embed(text), plain.embed(text), "{text}");
    }
    let half = StaticModel::from_bytes(&with_means(&means)).unwrap().with_centering(0.5);
    assert!(close(&half.embed("will it rain"), &expect("will it rain", means[0].1, 0.5)));
    let off = StaticModel::from_bytes(&with_means(&means)).unwrap().with_centering(0.0);
    assert_eq!(off.embed("will it rain"), plain.embed("will it rain"));
    // documents are centred as queries are
    let docs = DocVectors::build(&centred, ["will it rain", "天氣預報"]);
    let q = docs.query(&centred.embed("will it rain"));
    assert!((docs.cosines(&q)[0] - 1.0).abs() < 0.02);
    // text with no known piece stays all zeros (the mean is not its vector)
    assert!(centred.embed("zzz").iter().all(|&x| x == 0.0));
    let all: Vec<(&str, [f32; 4])> = Script::NAMES.iter().map(|&n| (n, [0.1f32; 4])).collect();
    assert!(StaticModel::from_bytes(&with_means(&all)).unwrap().has_script_means());
}

#[test]
fn malformed_script_means_are_errors() {
    let good = with_means(&[("latin", [0.0, 0.0, 0.0, 0.5])]);
    let err = |b: &[u8]| StaticModel::from_bytes(b).expect_err("malformed");
    assert_eq!(err(&good[..good.len() - 1]), ModelError::Truncated { what: "script means" });
    // the flag without a section
    let no_section = &good[..tiny_model_bytes().len()];
    assert_eq!(err(no_section), ModelError::Truncated { what: "script means" });
    let mut nan = good.clone();
    let at = nan.len() - 4;
    nan[at..].copy_from_slice(&f32::NAN.to_le_bytes());
    assert_eq!(err(&nan), ModelError::NonFiniteMean { script: "latin".into() });
    let mut extra = good.clone();
    extra.push(0);
    assert_eq!(err(&extra), ModelError::TrailingBytes { extra: 1 });
    // a forged count cannot allocate past the file
    let mut forged = tiny_model_bytes();
    forged[20] |= 8;
    forged.extend_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(err(&forged), ModelError::Truncated { what: "script means" });
}

/// `bytes` (a model file) with flag bit4 and a Latin-only tail of `tail` dimensions.
fn with_latin_tail(mut bytes: Vec<u8>, tail: u32) -> Vec<u8> {
    let flags = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) | 16;
    bytes[20..24].copy_from_slice(&flags.to_le_bytes());
    bytes.extend_from_slice(&tail.to_le_bytes());
    bytes
}

/// A Latin-only tail (the tiny model's last axis here): text in other scripts loses it, and
/// a query and a document of which one is not Latin are compared on the other dimensions
/// alone, so an English document's tail does not lower its cosine with a Chinese request.
#[test]
fn a_latin_tail_is_for_latin_text_only() {
    let plain = tiny_model();
    let tailed = Arc::new(StaticModel::from_bytes(&with_latin_tail(tiny_model_bytes(), 1)).expect("model with a tail parses"));
    assert_eq!((plain.latin_tail(), tailed.latin_tail()), (0, 1));
    // Latin text keeps its tail; Han text loses it ("天" is only tail: nothing is left)
    assert_eq!(tailed.embed("will it rain"), plain.embed("will it rain"));
    assert!(plain.embed("天")[3] > 0.0 && tailed.embed("天").iter().all(|&x| x == 0.0));
    assert_eq!(tailed.embed("天氣預報"), plain.embed("天氣預報"));
    let texts = ["will it rain", "天氣預報"];
    let scripts: Vec<Script> = texts.iter().map(|t| Script::of(t)).collect();
    let docs_of = |m: &Arc<StaticModel>| SemanticDocs::new(m.clone(), DocVectors::build(m, texts), scripts.clone());
    let (plain, tailed) = (Arc::new(plain), tailed);
    let near = |got: Vec<f32>, want: [f32; 2]| got.iter().zip(want).all(|(g, w)| (g - w).abs() < 0.02);
    // "will it rain" is 0.6 weather + 0.2 noise: cosine 0.95 with pure weather
    let full = 0.6 / (0.6f32 * 0.6 + 0.2 * 0.2).sqrt();
    assert!(near(docs_of(&plain).plain_cosines("下雨", &[0, 1]), [full, 1.0]));
    assert!(near(docs_of(&tailed).plain_cosines("下雨", &[0, 1]), [1.0, 1.0]), "a Han query meets the English document's head");
    assert!(near(docs_of(&tailed).plain_cosines("will it rain", &[0, 1]), [1.0, 1.0]), "and an English query the Han document's");
    assert!(near(docs_of(&tailed).plain_cosines("rain", &[0]), [full, 0.0]), "two Latin texts: the whole vectors");
    let top = docs_of(&tailed).top("下雨", 2, &Fusion { same_script: 0.0, crowding_cjk: 0.0, ..Fusion::default() });
    assert!((top[0].1 - top[1].1).abs() < 0.02, "{top:?}");
    // documents from a user's vectors never take the model's tail
    let user = docs_of(&tailed).with_rows(&[0.6, 0.0, 0.0, 0.2, 1.0, 0.0, 0.0, 0.0], 4).unwrap();
    let v = [1.0f32, 0.0, 0.0, 0.0];
    let top = user.top_for_vector("下雨", &v, 2, &Fusion { same_script: 0.0, crowding_cjk: 0.0, ..Fusion::default() });
    assert!((top[0].1 - 1.0).abs() < 0.02 && (top[1].1 - full).abs() < 0.02, "{top:?}");
}

#[test]
fn a_latin_tail_as_long_as_the_model_is_an_error() {
    let err = |b: &[u8]| StaticModel::from_bytes(b).expect_err("malformed");
    assert_eq!(err(&with_latin_tail(tiny_model_bytes(), 4)), ModelError::LatinTailTooLarge { tail: 4, dim: 4 });
    let short = with_latin_tail(tiny_model_bytes(), 1);
    assert_eq!(err(&short[..short.len() - 2]), ModelError::Truncated { what: "Latin tail" });
    // after the script means when both are there
    let both = with_latin_tail(with_means(&[("latin", [0.0, 0.0, 0.0, 0.5])]), 1);
    assert_eq!(StaticModel::from_bytes(&both).expect("means then tail").latin_tail(), 1);
}

/// The same-script share lifts documents in the query's script over equally close ones in
/// other scripts.
#[test]
fn same_script_share_prefers_the_query_script() {
    let m = tiny_model();
    let texts = ["weather", "天氣"];
    let docs = SemanticDocs::new(m.clone(), DocVectors::build(&m, texts), texts.iter().map(|t| Script::of(t)).collect());
    let fusion = |same: f64| Fusion { same_script: same, crowding_latin: 0.0, crowding_cjk: 0.0, ..Fusion::default() };
    for (query, first) in [("weather", 0u32), ("天氣", 1)] {
        let plain = docs.top(query, 2, &fusion(0.0));
        assert!((plain[0].1 - plain[1].1).abs() < 0.02, "both documents are the weather axis");
        let top = docs.top(query, 2, &fusion(0.3));
        assert_eq!(top[0].0, first, "{query}");
        assert!((top[0].1 - plain.iter().find(|d| d.0 == first).unwrap().1 - 0.3).abs() < 1e-6);
    }
}

#[test]
fn a_model_is_known_by_its_file_and_centering() {
    let bytes = tiny_model_bytes();
    let a = StaticModel::from_bytes(&bytes).unwrap();
    assert_eq!(a.fingerprint(), StaticModel::from_bytes(&bytes).unwrap().fingerprint());
    let mut changed = bytes.clone();
    let last = changed.len() - 1;
    changed[last] ^= 1;
    if let Ok(b) = StaticModel::from_bytes(&changed) {
        assert_ne!(a.fingerprint(), b.fingerprint(), "one byte apart");
    }
    let mut weights = bytes.clone();
    let mid = weights.len() / 2;
    weights[mid] ^= 1;
    let c = StaticModel::from_bytes(&weights).unwrap();
    assert_ne!(a.fingerprint(), c.fingerprint());
    let centred = StaticModel::from_bytes(&bytes).unwrap().with_centering(0.0);
    assert_ne!(a.fingerprint(), centred.fingerprint(), "another centering makes other vectors");
}
