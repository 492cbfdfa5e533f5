
/// `count` pseudo-random strings of 1–16 characters from `alphabet` (xorshift, seeded).
fn random_ascii(alphabet: &[u8], mut seed: u64, count: usize) -> Vec<String> {
    (0..count)
        .map(|_| {
            let mut t = String::new();
            for _ in 0..(seed >> 60) + 1 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                t.push(alphabet[(seed % alphabet.len() as u64) as usize] as char);
            }
            t
        })
        .collect()
}
use unicode_segmentation::UnicodeSegmentation;

use super::english::{stemmer, STEM_CACHE_WORD, STEM_CACHE_WORDS, STOPWORDS};
use super::normalize::SHINJITAI;
use super::words::{ascii_parts, camel_parts, emit_segments, is_wordy, AsciiWordBounds};
use super::*;

fn terms(text: &str) -> Vec<String> {
    let mut v = Vec::new();
    for u in analyze_to_vec(text) {
        u.for_each_term(|t| v.push(t.to_owned()));
    }
    v
}

fn word(s: &str) -> Unit {
    word_unit(s.to_owned())
}

#[test]
fn stopwords_are_sorted() {
    assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
    assert!(SHINJITAI.windows(2).all(|w| w[0].0 < w[1].0));
    // folding is done in one pass: no target is itself folded again
    assert!(SHINJITAI.iter().all(|&(_, to)| SHINJITAI.binary_search_by_key(&to, |p| p.0).is_err()));
}

#[test]
fn splits_identifiers_and_keeps_the_whole() {
    assert_eq!(analyze_to_vec("send_email"), [word("send"), word("email"), Unit::Whole("sendemail".into())]);
    assert_eq!(analyze_to_vec("createIssue"), [word("create"), word("issue"), Unit::Whole("createissue".into())]);
    assert_eq!(analyze_to_vec("kebab-case"), [word("kebab"), word("case"), Unit::Whole("kebabcase".into())]);
    assert_eq!(
        analyze_to_vec("HTTPServer2Go"),
        [word("http"), word("server"), word("go"), Unit::Whole("httpserver2go".into())]
    );
    assert_eq!(
        analyze_to_vec("PDF_URLTool"),
        [word("pdf"), word("url"), word("tool"), Unit::Whole("pdfurltool".into())]
    );
    // an acronym's plural is one word, not `P` + `Rs`
    assert_eq!(terms("open PRs"), terms("open prs"));
    assert_eq!(analyze_to_vec("listURLs"), [word("list"), word("urls"), Unit::Whole("listurls".into())]);
}

#[test]
fn stems_and_keeps_surface_forms() {
    assert_eq!(terms("Emails"), ["email", "emails"]);
    assert_eq!(terms("searching the papers"), ["search", "searching", "paper", "papers"]);
    // stopwords, apostrophes and one-letter words
    assert_eq!(terms("What's a user's plan?"), ["user", "users", "plan"]);
}

#[test]
fn full_width_and_case_fold() {
    assert_eq!(terms("ＧＩＴＨＵＢ　Ｉｓｓｕｅ"), terms("github issue"));
    assert_eq!(terms("ΟΔΟΣ"), ["οδοσ"]);
    assert_eq!(terms("οδος Straße"), ["οδοσ", "strass", "strasse"]);
}

#[test]
fn cjk_bigrams_and_unigrams() {
    let part = |c: &str| Unit::CjkPart(c.into());
    let gram = |c: &str| Unit::Cjk(c.into());
    assert_eq!(
        analyze_to_vec("天气预报"),
        [part("天"), gram("天气"), part("气"), gram("气预"), part("预"), gram("预报"), part("报")]
    );
    // Traditional folds to Simplified, and so do Japanese forms
    assert_eq!(terms("天氣預報"), terms("天气预报"));
    for (japanese, traditional, simplified) in
        [("天気", "天氣", "天气"), ("検索", "檢索", "检索"), ("変換", "變換", "变换")]
    {
        assert_eq!(terms(japanese), terms(simplified), "{japanese}");
        assert_eq!(terms(traditional), terms(simplified), "{traditional}");
    }
    // a one-character word is a single character too
    assert_eq!(analyze_to_vec("天"), [part("天")]);
    assert_eq!(analyze_to_vec("天 气"), [part("天"), part("气")]);
    // full-width and half-width forms fold (NFKC) before CJK analysis
    assert_eq!(terms("ＧｉｔＨｕｂ问题"), ["git", "hub", "github", "问", "问题", "题"]);
    assert_eq!(terms("ﾊﾟｽﾜｰﾄﾞ"), ["パスワード"]);
}

#[test]
fn korean_particles_and_endings() {
    // particles: the noun alone is left
    for (word, stem) in [
        ("날씨는", "날씨"),
        ("날씨를", "날씨"),
        ("버킷에서", "버킷"),
        ("엔지니어에게", "엔지니어"),
        ("카카오톡으로", "카카오톡"),
        ("이메일로", "이메일"),
        ("목록과", "목록"),
        ("파일이나", "파일"),
        ("월요일부터", "월요일"),
        ("금요일까지", "금요일"),
        ("날씨입니다", "날씨"),
    ] {
        assert_eq!(terms(word), terms(stem), "{word}");
    }
    // request forms and formal endings reach the same stem
    for (a, b) in [
        ("검색해줘", "검색합니다"),
        ("조회해 주세요", "조회합니다"),
        ("취소해줘요", "취소"),
        ("보여줘", "보여줍니다"),
        ("알려줘", "알려줍니다"),
        ("가져옵니다", "가져오"),
        ("실패한", "실패"),
        ("필터링할", "필터링"),
    ] {
        assert_eq!(terms(a), terms(b), "{a} ~ {b}");
    }
    // two-syllable nouns that end like a particle keep it (온도 is not 온 + 도)
    for noun in ["온도", "회의", "결과", "주가", "재고"] {
        assert_eq!(terms(noun).len(), 3, "{noun}");
    }
    assert_eq!(terms("온도가"), terms("온도"));
    // a Hangul run glued to a Latin or digit word is that word's particle
    assert_eq!(terms("S3에서"), terms("S3"));
    assert_eq!(terms("S3에서"), ["s3"]);
    assert_eq!(terms("PR을 올려줘"), ["pr", "올", "올려", "려"]);
    assert_eq!(terms("API를"), terms("API"));
    // … but a separate particle-looking word is not attached to anything
    assert_eq!(terms("S3 에서"), ["s3", "에", "에서", "서"]);
    // words that carry nothing
    assert!(terms("좀 해 주세요").is_empty());
}

#[test]
fn japanese_script_boundaries() {
    // kanji runs, hiragana particles and okurigana, katakana words
    assert_eq!(terms("東京の天気を教えて"), ["东", "东京", "京", "天", "天气", "气", "教"]);
    assert_eq!(terms("ファイルをアップロードしてください"), ["ファイル", "アップロード"]);
    // half-width katakana is widened by NFKC; the kanji stem of 送る is a single character
    assert_eq!(terms("ﾒｰﾙを送る"), ["メール", "送"]);
    // the middle dot separates katakana words; a long-vowel mark alone is no word
    assert_eq!(terms("データ・ベース ー"), ["データ", "ベース"]);
    // hiragana standing alone is a word written in kana
    assert_eq!(terms("てんき"), ["て", "てん", "ん", "んき", "き"]);
    assert_eq!(terms("のぞみ 指定席"), ["の", "のぞ", "ぞ", "ぞみ", "み", "指", "指定", "定", "定席", "席"]);
    // mixed with Latin; a one-character particle between spaces is dropped too
    assert_eq!(terms("Slackに送って"), ["slack", "送"]);
    assert_eq!(terms("S3 の logs"), terms("S3 logs"));
}

/// The ASCII segmenter must agree with UAX #29 wherever it matters: word segments are
/// identical, and what lies between them is the same characters.
#[test]
fn ascii_word_bounds_match_uax29() {
    let alphabet = b"aZ09_:.',;-/ +@#\"!?\t\r\nxY";
    let seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut samples: Vec<String> = vec![
        "send_email".into(),
        "a.b.c".into(),
        "a..b".into(),
        "1,000.5".into(),
        "don't".into(),
        "x:y:z".into(),
        "_a".into(),
        "__".into(),
        "a_.b".into(),
        "3.14.15".into(),
        "e.g.".into(),
        "http://a.b/c?d=e#f".into(),
        "a1.b2".into(),
        "1.a".into(),
        "a'1".into(),
        "1'2".into(),
        "a\r\nb  c".into(),
    ];
    samples.extend(random_ascii(alphabet, seed, 20_000));
    for t in &samples {
        fn words(segs: Vec<&str>) -> Vec<&str> {
            segs.into_iter().filter(|s| is_wordy(s)).collect()
        }
        let fast: Vec<&str> = AsciiWordBounds { text: t, pos: 0 }.collect();
        let uax: Vec<&str> = t.split_word_bounds().collect();
        assert_eq!(fast.concat(), *t);
        assert_eq!(words(fast.clone()), words(uax.clone()), "{t:?}");
        let mut a = Vec::new();
        let mut b = Vec::new();
        emit_segments(fast.into_iter(), &mut String::new(), &mut |x| a.push(format!("{x:?}")));
        emit_segments(uax.into_iter(), &mut String::new(), &mut |x| b.push(format!("{x:?}")));
        assert_eq!(a, b, "{t:?}");
    }
}

#[test]
fn ascii_parts_match_camel_parts() {
    let mut samples: Vec<String> = [
        "HTTPServer2Go",
        "PDF_URLTool",
        "sendEmail",
        "a1B2c3",
        "ABC",
        "aB",
        "Ab",
        "x--yZ",
        "9",
        "iOS17Pro",
        "__a__",
        "PRs",
        "listURLs",
        "URLsList",
        "IDs_x",
    ]
    .map(String::from)
    .to_vec();
    let alphabet = b"aZ09_.-bYQqsS";
    let seed = 0x2545_F491_4F6C_DD1Du64;
    samples.extend(random_ascii(alphabet, seed, 20_000));
    for seg in &samples {
        let seg = seg.as_str();
        let mut fast = Vec::new();
        ascii_parts(seg, |p| fast.push(p));
        let mut slow = Vec::new();
        for piece in seg.split(|c: char| !c.is_alphanumeric()).filter(|p| !p.is_empty()) {
            camel_parts(piece, |p| slow.push(p));
        }
        assert_eq!(fast, slow, "{seg}");
    }
}

#[test]
fn ascii_fast_path_matches_the_general_path() {
    // one non-ASCII character (a dropped one-letter word) sends the whole text through
    // NFKC, UAX #29 segmentation and Unicode case mapping
    for text in [
        "Send_Email to the user's HTTPServer2Go, e.g. 1,000.5 items; x:y a..b don't",
        "PDF_URLTool createIssue kebab-case v2.0 __init__ C# node.js a/b+c@d#e",
    ] {
        assert_eq!(terms(text), terms(&format!("{text} é")), "{text}");
    }
    assert_eq!(stem("searching"), "search");
    assert_eq!(stem("天气"), "天气");
}

/// The per-thread stem memory gives the stemmer's answers, for words seen again and
/// after it fills and starts over (more distinct words than it keeps).
#[test]
fn remembered_stems_equal_the_stemmer() {
    let mut next = crate::test_support::xorshift(3u64);
    let suffixes = ["", "s", "ing", "ed", "ies", "ational", "ness", "ly", "ation", "er"];
    let words: Vec<String> = (0..3 * STEM_CACHE_WORDS)
        .map(|_| {
            let base: String = (0..2 + next(8)).map(|_| (b'a' + next(26) as u8) as char).collect();
            format!("{base}{}", suffixes[next(10) as usize])
        })
        .chain(std::iter::once("a".repeat(STEM_CACHE_WORD + 5) + "ing"))
        .collect();
    for _ in 0..2 {
        for w in &words {
            assert_eq!(stem(w), stemmer().stem(w), "{w}");
        }
    }
}

#[test]
fn odd_input_never_panics() {
    let samples = [
        "",
        " ",
        "\u{0}",
        "\u{FEFF}",
        "\u{200D}",
        "a\u{301}",
        "ﷺ",
        "🏳️‍🌈",
        "\u{10FFFF}",
        "ǅungla",
        "İstanbul",
        "x\u{0}y",
        "__--..",
        "'''",
        "a'b",
        "3.14.15",
        "A1B2C3",
        "ＡＢＣ１２３",
        "\u{E000}",
        "ß",
        "ﬃ",
        "𠀀𠀁",
        "々",
        "ー",
        "・",
        "한",
        "ᄀᄀ",
        "니다",
        "ㅂ니다",
        "힣니다",
        "S3에서",
        "3에",
        "ーー",
        "ゝゞ",
        "e.g.",
        "e.",
        ".e",
        "-x-",
        "http://a.b/c?d=e#f",
    ];
    for s in samples {
        let _ = analyze_to_vec(s);
        let _ = analyze_to_vec(&s.repeat(3));
    }
    // every char in a sweep of planes, singly and in pairs
    let mut text = String::new();
    for cp in (0u32..0x3_0000).step_by(7) {
        if let Some(c) = char::from_u32(cp) {
            text.push(c);
            if cp % 3 == 0 {
                text.push(' ');
            }
        }
    }
    let _ = analyze_to_vec(&text);
}
