//! Text analysis for enhanced search.
//!
//! Pipeline: NFKC (full-width forms, compatibility characters) → Traditional→Simplified
//! Chinese folding → split into script runs: Han, hiragana, katakana, Hangul and other
//! text. Han runs become overlapping bigrams plus single characters (weighted lower at
//! query time); katakana words stay whole; hiragana next to kanji or katakana (particles,
//! okurigana) is dropped; Hangul words lose their particles and endings (날씨는 → 날씨,
//! `S3에서` → `s3`) and are then treated like Han runs. Other text goes through Unicode
//! (UAX #29) word segmentation, identifiers are split on `_`/`-`/`.`/case/digit
//! boundaries (the joined identifier is kept as well), parts are lowercased, English
//! stopwords dropped and ASCII words stemmed (Porter2).

use std::borrow::Cow;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};
use unicode_segmentation::UnicodeSegmentation;

/// One analysed unit of text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unit {
    /// A word or identifier part, lowercased. `stem` equals `surface` when the word is
    /// not stemmable (non-ASCII, digits) or already a stem.
    Word { surface: String, stem: String },
    /// An identifier made of several parts, joined without separators
    /// (`send_email`, `sendEmail`, `send-email` → `sendemail`).
    Whole(String),
    /// A CJK bigram or a whole katakana word.
    Cjk(String),
    /// A single CJK character, matched with a lower weight than bigrams.
    CjkPart(String),
}

impl Unit {
    /// Terms this unit puts in a document: the surface form, plus the stem when it differs.
    pub fn for_each_term(&self, mut f: impl FnMut(&str)) {
        match self {
            Unit::Word { surface, stem } => {
                f(stem);
                if surface != stem {
                    f(surface);
                }
            }
            Unit::Whole(t) | Unit::Cjk(t) | Unit::CjkPart(t) => f(t),
        }
    }
}

/// A unit as the tokenizer hands it out, borrowed from its buffers (no allocation per
/// token). Words are not stemmed yet: callers that see a word many times stem it once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token<'a> {
    /// Lowercased word or identifier part (2+ characters, not a stopword).
    Word(&'a str),
    Whole(&'a str),
    Cjk(&'a str),
    CjkPart(&'a str),
}

/// English stopwords (Snowball's list plus common contractions without apostrophes and
/// a few modal verbs), sorted for binary search.
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "arent",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "cannot",
    "cant",
    "could",
    "couldnt",
    "did",
    "didnt",
    "do",
    "does",
    "doesnt",
    "doing",
    "dont",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadnt",
    "has",
    "hasnt",
    "have",
    "havent",
    "having",
    "he",
    "hed",
    "hell",
    "her",
    "here",
    "heres",
    "hers",
    "herself",
    "hes",
    "him",
    "himself",
    "his",
    "how",
    "hows",
    "i",
    "id",
    "if",
    "ill",
    "im",
    "in",
    "into",
    "is",
    "isnt",
    "it",
    "its",
    "itself",
    "ive",
    "just",
    "lets",
    "may",
    "me",
    "might",
    "more",
    "most",
    "must",
    "mustnt",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "ought",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shall",
    "shant",
    "she",
    "shed",
    "shell",
    "shes",
    "should",
    "shouldnt",
    "so",
    "some",
    "such",
    "than",
    "that",
    "thats",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "theres",
    "these",
    "they",
    "theyd",
    "theyll",
    "theyre",
    "theyve",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "wasnt",
    "we",
    "wed",
    "well",
    "were",
    "werent",
    "weve",
    "what",
    "whats",
    "when",
    "whens",
    "where",
    "wheres",
    "which",
    "while",
    "who",
    "whom",
    "whos",
    "why",
    "whys",
    "will",
    "with",
    "wont",
    "would",
    "wouldnt",
    "you",
    "youd",
    "youll",
    "your",
    "youre",
    "yours",
    "yourself",
    "yourselves",
    "youve",
];

pub fn is_stopword(word: &str) -> bool {
    // one hash instead of a binary search: this runs for every word of every document
    static SET: OnceLock<rustc_hash::FxHashSet<&'static str>> = OnceLock::new();
    word.len() <= 10 && SET.get_or_init(|| STOPWORDS.iter().copied().collect()).contains(word)
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Script classes of CJK text. Runs of one class are analysed together; a change of
/// class is a word boundary (Japanese writes kanji stems, hiragana particles and
/// okurigana, and katakana loanwords back to back).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Class {
    /// Han ideographs and the iteration/zero marks 々 〇
    Han,
    Hiragana,
    /// Katakana and the prolonged sound mark ー (the middle dot ・ separates words)
    Katakana,
    Hangul,
    Other,
}

#[inline]
pub(crate) fn class_of(c: char) -> Class {
    match c {
        '\u{3005}'
        | '\u{3007}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{3FFFF}' => Class::Han,
        '\u{3041}'..='\u{309F}' => Class::Hiragana,
        '\u{30A0}'..='\u{30FA}' | '\u{30FC}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' => Class::Katakana,
        '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}' | '\u{A960}'..='\u{A97F}' | '\u{AC00}'..='\u{D7FF}' => {
            Class::Hangul
        }
        _ => Class::Other,
    }
}

/// Han, kana and Hangul: the characters analysed as CJK rather than as words.
#[inline]
pub fn is_cjk(c: char) -> bool {
    class_of(c) != Class::Other
}

/// Han ranges that Traditional→Simplified folding may change.
#[inline]
fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{3FFFF}')
}

/// Japanese shinjitai → Simplified Chinese, for the characters where Japanese simplified
/// differently from (or not at all like) China: 気/气, 検/检, 駅/驿, 図/图. Traditional
/// forms are folded by `fast2s`; these pass through it unchanged. Sorted by the first char.
#[rustfmt::skip]
const SHINJITAI: &[(char, char)] = &[
    ('両', '两'), ('乗', '乘'), ('亀', '龟'), ('亜', '亚'), ('仏', '佛'), ('仮', '假'), ('伝', '传'), ('併', '并'), ('価', '价'), ('値', '值'),
    ('倹', '俭'), ('偽', '伪'), ('児', '儿'), ('円', '圆'), ('処', '处'), ('剣', '剑'), ('剤', '剂'), ('剰', '剩'), ('労', '劳'), ('効', '效'),
    ('勧', '劝'), ('勲', '勋'), ('単', '单'), ('厳', '严'), ('収', '收'), ('呉', '吴'), ('唖', '哑'), ('営', '营'), ('嘆', '叹'), ('団', '团'),
    ('囲', '围'), ('図', '图'), ('圏', '圈'), ('圧', '压'), ('塁', '垒'), ('塩', '盐'), ('増', '增'), ('壊', '坏'), ('壱', '壹'), ('売', '卖'),
    ('変', '变'), ('奨', '奖'), ('姫', '姬'), ('娯', '娱'), ('実', '实'), ('対', '对'), ('専', '专'), ('層', '层'), ('巣', '巢'), ('巻', '卷'),
    ('帯', '带'), ('帰', '归'), ('庁', '厅'), ('広', '广'), ('廃', '废'), ('弐', '贰'), ('弾', '弹'), ('従', '从'), ('徳', '德'), ('徴', '征'),
    ('応', '应'), ('恵', '惠'), ('悩', '恼'), ('悪', '恶'), ('懐', '怀'), ('戦', '战'), ('戯', '戏'), ('抜', '拔'), ('択', '择'), ('拝', '拜'),
    ('拠', '据'), ('拡', '扩'), ('挙', '举'), ('挿', '插'), ('捜', '搜'), ('掲', '揭'), ('揺', '摇'), ('摂', '摄'), ('撃', '击'), ('斉', '齐'),
    ('斎', '斋'), ('晩', '晚'), ('暁', '晓'), ('暦', '历'), ('曽', '曾'), ('栄', '荣'), ('桜', '樱'), ('桟', '栈'), ('検', '检'), ('楽', '乐'),
    ('様', '样'), ('権', '权'), ('欄', '栏'), ('歓', '欢'), ('歩', '步'), ('歯', '齿'), ('歳', '岁'), ('歴', '历'), ('毎', '每'), ('気', '气'),
    ('沢', '泽'), ('浄', '净'), ('浜', '滨'), ('涙', '泪'), ('渇', '渴'), ('済', '济'), ('渉', '涉'), ('渋', '涩'), ('渓', '溪'), ('満', '满'),
    ('滝', '泷'), ('瀬', '濑'), ('為', '为'), ('焼', '烧'), ('犠', '牺'), ('猟', '猎'), ('獣', '兽'), ('畳', '叠'), ('痩', '瘦'), ('発', '发'),
    ('県', '县'), ('砕', '碎'), ('稲', '稻'), ('穏', '稳'), ('竜', '龙'), ('粋', '粹'), ('粛', '肃'), ('粧', '妆'), ('糸', '丝'), ('経', '经'),
    ('絵', '绘'), ('続', '续'), ('総', '总'), ('緑', '绿'), ('縁', '缘'), ('縦', '纵'), ('繊', '纤'), ('聴', '听'), ('脳', '脑'), ('臓', '脏'),
    ('舗', '铺'), ('荘', '庄'), ('蔵', '藏'), ('薬', '药'), ('蛍', '萤'), ('衛', '卫'), ('覇', '霸'), ('覚', '觉'), ('覧', '览'), ('観', '观'),
    ('訳', '译'), ('証', '证'), ('読', '读'), ('謡', '谣'), ('譲', '让'), ('豊', '丰'), ('賓', '宾'), ('賛', '赞'), ('転', '转'), ('軽', '轻'),
    ('辺', '边'), ('逓', '递'), ('遅', '迟'), ('郷', '乡'), ('酔', '醉'), ('醸', '酿'), ('釈', '释'), ('鈴', '铃'), ('鉄', '铁'), ('鉱', '矿'),
    ('銭', '钱'), ('鋭', '锐'), ('鋳', '铸'), ('錬', '炼'), ('録', '录'), ('鎮', '镇'), ('関', '关'), ('闘', '斗'), ('陥', '陷'), ('険', '险'),
    ('隠', '隐'), ('隣', '邻'), ('雑', '杂'), ('霊', '灵'), ('頻', '频'), ('頼', '赖'), ('顔', '颜'), ('顕', '显'), ('駅', '驿'), ('駆', '驱'),
    ('騒', '骚'), ('験', '验'), ('髄', '髓'), ('髪', '发'), ('鶏', '鸡'), ('黒', '黑'), ('黙', '默'), ('齢', '龄'),
];

/// NFKC, then Traditional→Simplified folding (only when the text has Han characters, as
/// the conversion allocates).
pub fn normalize(text: &str) -> String {
    normalize_cow(text).into_owned()
}

/// [`normalize`] without copying text that is already normal: ASCII is NFKC as is, and
/// the NFKC quick check settles most other text without composing it.
fn normalize_cow(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let nfkc: Cow<str> = if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().collect())
    };
    if nfkc.chars().any(is_han) {
        let mut folded = fast2s::convert(&nfkc);
        if folded.chars().any(|c| SHINJITAI.binary_search_by_key(&c, |p| p.0).is_ok()) {
            folded = folded
                .chars()
                .map(|c| SHINJITAI.binary_search_by_key(&c, |p| p.0).map_or(c, |i| SHINJITAI[i].1))
                .collect();
        }
        Cow::Owned(folded)
    } else {
        nfkc
    }
}

/// Word stem: Porter2 for ASCII letter words; other words are their own stem.
pub fn stem(word: &str) -> Cow<'_, str> {
    if !word.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Cow::Borrowed(word);
    }
    if word.len() > STEM_CACHE_WORD {
        return stemmer().stem(word);
    }
    // Catalogs and queries repeat their words: a hash lookup is several times cheaper than
    // the stemmer. Per thread (no lock); emptied when full, so it stays small.
    thread_local! {
        static STEMS: std::cell::RefCell<rustc_hash::FxHashMap<Box<str>, Box<str>>> = Default::default();
    }
    STEMS.with(|cell| {
        let mut cache = cell.borrow_mut();
        let stem: &str = match cache.get(word) {
            Some(stem) => stem,
            None => {
                if cache.len() >= STEM_CACHE_WORDS {
                    cache.clear();
                }
                let stem: Box<str> = stemmer().stem(word).into();
                cache.entry(word.into()).or_insert(stem)
            }
        };
        if stem == word {
            Cow::Borrowed(word)
        } else {
            Cow::Owned(stem.to_owned())
        }
    })
}

/// Words [`stem`] remembers per thread, and the longest it remembers (in bytes).
const STEM_CACHE_WORDS: usize = 4096;
const STEM_CACHE_WORD: usize = 24;

/// Analyses `text` and appends its units to `out`, in text order.
pub fn analyze(text: &str, out: &mut Vec<Unit>) {
    tokenize(text, &mut |t| {
        out.push(match t {
            Token::Word(w) => word_unit(w.to_owned()),
            Token::Whole(w) => Unit::Whole(w.to_owned()),
            Token::Cjk(w) => Unit::Cjk(w.to_owned()),
            Token::CjkPart(w) => Unit::CjkPart(w.to_owned()),
        })
    });
}

/// Convenience: analyse into a fresh vector.
pub fn analyze_to_vec(text: &str) -> Vec<Unit> {
    let mut out = Vec::new();
    analyze(text, &mut out);
    out
}

/// Analyses `text`, handing each unit to `f` in text order (the same units as
/// [`analyze`], words unstemmed).
pub fn tokenize(text: &str, f: &mut impl FnMut(Token<'_>)) {
    let text = normalize_cow(text);
    let mut buf = String::new();
    if text.is_ascii() {
        // no CJK runs possible
        emit_words(&text, &mut buf, f);
        return;
    }
    let mut run_start = 0usize;
    let mut run_class: Option<Class> = None;
    // the character before the current run, when it belongs to another run
    let mut before: Option<char> = None;
    let mut last: Option<char> = None;
    for (i, c) in text.char_indices() {
        let class = class_of(c);
        if run_class != Some(class) {
            if let Some(prev) = run_class {
                emit_run(&text[run_start..i], prev, before, Some(class), &mut buf, f);
            }
            before = last;
            run_start = i;
            run_class = Some(class);
        }
        last = Some(c);
    }
    if let Some(prev) = run_class {
        emit_run(&text[run_start..], prev, before, None, &mut buf, f);
    }
}

/// `before`: the character just before the run; `after`: the class of the run after it.
fn emit_run(
    run: &str,
    class: Class,
    before: Option<char>,
    after: Option<Class>,
    buf: &mut String,
    f: &mut impl FnMut(Token<'_>),
) {
    match class {
        Class::Other => emit_words(run, buf, f),
        Class::Han => emit_grams(run, f),
        Class::Katakana => {
            // katakana words (mostly loanwords: メール, パスワード) stay whole; marks alone
            // (ー, ヽ) are no word
            if !run.chars().all(|c| matches!(c, '\u{30FC}'..='\u{30FE}')) {
                f(Token::Cjk(run));
            }
        }
        Class::Hiragana => {
            // Next to kanji or katakana, hiragana is particles, okurigana and auxiliaries
            // (の, を, して, ください); standing alone it is a word written in kana, unless
            // it is one character (a particle between spaces: `S3 の logs`).
            let next_to_word = |c: Option<Class>| matches!(c, Some(Class::Han | Class::Katakana));
            if !next_to_word(before.map(class_of)) && !next_to_word(after) && run.chars().nth(1).is_some() {
                emit_grams(run, f);
            }
        }
        Class::Hangul => {
            // a Hangul run glued to a Latin or digit word is that word's particle (`S3에서`)
            let attached = before.is_some_and(char::is_alphanumeric);
            if let Some(stem) = korean_stem(run, attached, buf) {
                emit_grams(stem, f);
            }
        }
    }
}

/// Overlapping bigrams of a CJK word, and each character alone as a part (weighted
/// lower, so exact bigrams win); a one-character word is a part only.
fn emit_grams(run: &str, f: &mut impl FnMut(Token<'_>)) {
    let mut prev: Option<usize> = None;
    for (i, c) in run.char_indices() {
        let end = i + c.len_utf8();
        if let Some(p) = prev {
            f(Token::Cjk(&run[p..end]));
        }
        f(Token::CjkPart(&run[i..end]));
        prev = Some(i);
    }
}

/// Korean endings stripped from the end of a Hangul word, each with the number of
/// syllables that must remain. One-syllable endings need a two-syllable stem, so short
/// nouns that end like a particle keep their last syllable (온도, 회의, 결과).
#[rustfmt::skip]
const KO_ENDINGS: &[(&str, u8)] = &[
    // request and auxiliary verbs (만들어 줘, 알려줍니다)
    ("주세요", 1), ("줘요", 1), ("줘", 1), ("줄래요", 1), ("줄래", 1), ("줄게", 1), ("줍니다", 1), ("둬", 1),
    ("두세요", 1), ("버려", 1),
    // 하다 / 되다 verbs: 검색해줘, 조회합니다, 실패한, 필터링할
    ("해주세요", 2), ("해줘요", 2), ("해줘", 2), ("해줄래", 2), ("해줍니다", 2), ("합니다", 2), ("합니까", 2),
    ("했습니다", 2), ("했어요", 2), ("했어", 2), ("했는데", 2), ("했는지", 2), ("하세요", 2), ("하고", 2),
    ("하는", 2), ("하여", 2), ("하면", 2), ("하기", 2), ("하려면", 2), ("해서", 2), ("해요", 2), ("해", 2),
    ("한", 2), ("할", 2), ("함", 2), ("하다", 2), ("된", 2), ("되는", 2), ("됩니다", 2), ("됐어", 2), ("되면", 2),
    ("돼", 2),
    // formal and copula endings (ㅂ니다 fused onto a syllable is handled apart)
    ("습니다", 1), ("이에요", 2), ("예요", 2),
    // particles
    ("에서는", 1), ("에서도", 1), ("에서", 1), ("에게서", 1), ("에게", 1), ("한테서", 1), ("한테", 1), ("께서", 1),
    ("으로는", 1), ("으로", 1), ("로는", 1), ("까지", 1), ("부터", 1), ("처럼", 1), ("보다", 1), ("마다", 1),
    ("이랑", 1), ("이나", 1), ("에는", 1), ("에도", 1),
    ("께", 2), ("로", 2), ("랑", 2), ("나", 2), ("에", 2), ("은", 2), ("는", 2), ("이", 2), ("가", 2), ("을", 2),
    ("를", 2), ("의", 2), ("도", 2), ("만", 2), ("와", 2), ("과", 2), ("요", 2), ("고", 2),
];

/// Whole Hangul words that carry no meaning for search.
#[rustfmt::skip]
const KO_STOP: &[&str] = &[
    "좀", "해", "줘", "주세요", "해줘", "해주세요", "것", "거", "게", "수", "때", "등", "및", "한", "뭐", "그", "이",
    "저", "더", "또", "다", "한번", "제발",
];

/// The stem of a Hangul word: up to two endings stripped (날씨는 → 날씨, 검색해줘 → 검색,
/// 가져옵니다 → 가져오), written to `buf`. `None` when nothing is left or the word is a
/// stopword. `attached`: the word is glued to a Latin or digit word, so it may be a
/// particle alone.
fn korean_stem<'b>(word: &str, attached: bool, buf: &'b mut String) -> Option<&'b str> {
    if KO_STOP.contains(&word) {
        return None;
    }
    buf.clear();
    buf.push_str(word);
    let mut syllables = word.chars().count();
    for round in 0..2 {
        let relax = attached && round == 0;
        let mut best: Option<(usize, usize)> = None; // (bytes, chars)
        for &(end, min) in KO_ENDINGS {
            if buf.ends_with(end) {
                let n = end.chars().count();
                let min = if relax { 0 } else { usize::from(min) };
                if syllables >= n + min && best.is_none_or(|b| end.len() > b.0) {
                    best = Some((end.len(), n));
                }
            }
        }
        if let Some((bytes, n)) = best {
            buf.truncate(buf.len() - bytes);
            syllables -= n;
            continue;
        }
        // ㅂ니다 / ㅂ니까 fused onto the stem's last syllable: 가져옵니다 → 가져오
        if buf.ends_with("니다") || buf.ends_with("니까") {
            let head = buf.len() - "니다".len();
            if let Some(without_b) = buf[..head].chars().next_back().and_then(drop_final_b) {
                let at = buf[..head].char_indices().next_back().map_or(0, |(i, _)| i);
                buf.truncate(at);
                buf.push(without_b);
                syllables -= 2;
                continue;
            }
        }
        break;
    }
    if syllables == 0 || buf.is_empty() {
        None
    } else {
        Some(buf.as_str())
    }
}

/// A precomposed Hangul syllable ending in the final consonant ㅂ, without it (옵 → 오).
fn drop_final_b(c: char) -> Option<char> {
    const FINAL_B: u32 = 17;
    let code = u32::from(c);
    let index = code.checked_sub(0xAC00).filter(|&i| i < 11_172)?;
    (index % 28 == FINAL_B).then(|| char::from_u32(code - FINAL_B)).flatten()
}

/// Characters that glue word segments into one identifier when nothing else separates them.
#[inline]
fn is_connector(seg: &str) -> bool {
    matches!(seg, "-" | "." | "/" | "+" | ":" | "@" | "#")
}

#[inline]
fn is_wordy(seg: &str) -> bool {
    if seg.is_ascii() {
        seg.bytes().any(|b| b.is_ascii_alphanumeric())
    } else {
        seg.chars().any(char::is_alphanumeric)
    }
}

/// UAX #29 word boundaries specialised to ASCII text, where they reduce to: letters,
/// digits and `_` join; `:` `.` `'` join two letters; `,` `;` `.` `'` join two digits;
/// anything else is a segment of its own. (UAX #29 also groups runs of spaces and CR LF;
/// both are non-word segments, which [`emit_words`] treats alike one by one.) About 5×
/// faster than the table-driven segmenter, and most tool text is ASCII.
struct AsciiWordBounds<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Iterator for AsciiWordBounds<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let b = self.text.as_bytes();
        let start = self.pos;
        if start >= b.len() {
            return None;
        }
        let joins = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let mut j = start + 1;
        if joins(b[start]) {
            while j < b.len() {
                if joins(b[j]) {
                    j += 1;
                } else if j + 1 < b.len()
                    && ((b[j - 1].is_ascii_alphabetic()
                        && b[j + 1].is_ascii_alphabetic()
                        && matches!(b[j], b':' | b'.' | b'\''))
                        || (b[j - 1].is_ascii_digit()
                            && b[j + 1].is_ascii_digit()
                            && matches!(b[j], b',' | b';' | b'.' | b'\'')))
                {
                    j += 2;
                } else {
                    break;
                }
            }
        }
        self.pos = j;
        Some(&self.text[start..j])
    }
}

fn emit_words(text: &str, buf: &mut String, f: &mut impl FnMut(Token<'_>)) {
    if text.is_ascii() {
        emit_segments(AsciiWordBounds { text, pos: 0 }, buf, f);
    } else {
        emit_segments(text.split_word_bounds(), buf, f);
    }
}

fn emit_segments<'a>(segments: impl Iterator<Item = &'a str>, buf: &mut String, f: &mut impl FnMut(Token<'_>)) {
    let mut compound: Vec<&str> = Vec::new();
    let mut pending_connector = false;
    for seg in segments {
        if is_wordy(seg) {
            if !pending_connector && !compound.is_empty() {
                emit_compound(&compound, buf, f);
                compound.clear();
            }
            compound.push(seg);
            pending_connector = false;
        } else if is_connector(seg) && !compound.is_empty() && !pending_connector {
            pending_connector = true;
        } else {
            if !compound.is_empty() {
                emit_compound(&compound, buf, f);
                compound.clear();
            }
            pending_connector = false;
        }
    }
    if !compound.is_empty() {
        emit_compound(&compound, buf, f);
    }
}

/// Splits an alphanumeric piece at camelCase, PascalCase/acronym and letter↔digit
/// boundaries (`HTTPServer2Go` → `HTTP`, `Server`, `2`, `Go`).
fn camel_parts<'a>(piece: &'a str, mut emit: impl FnMut(&'a str)) {
    let mut it = piece.char_indices().peekable();
    let mut start = 0usize;
    let mut prev: Option<char> = None;
    while let Some((i, cur)) = it.next() {
        if let Some(prev) = prev {
            let next = it.peek().map(|x| x.1);
            let boundary = (prev.is_lowercase() && cur.is_uppercase())
                || (prev.is_uppercase() && cur.is_uppercase() && next.is_some_and(char::is_lowercase))
                || (prev.is_alphabetic() && cur.is_numeric())
                || (prev.is_numeric() && cur.is_alphabetic());
            if boundary {
                emit(&piece[start..i]);
                start = i;
            }
        }
        prev = Some(cur);
    }
    if start < piece.len() {
        emit(&piece[start..]);
    }
}

/// Lowercases the parts of one identifier into `buf` back to back, handing out each
/// kept part as it is done and then the joined whole (a slice of the same buffer).
fn emit_compound(segments: &[&str], buf: &mut String, f: &mut impl FnMut(Token<'_>)) {
    buf.clear();
    let mut parts = 0usize;
    let mut part = |p: &str, buf: &mut String| {
        let start = buf.len();
        case_fold_into(p, buf);
        parts += 1;
        let lower = &buf[start..];
        let chars = if lower.is_ascii() { lower.len() } else { lower.chars().count() };
        if chars >= 2 && !is_stopword(lower) {
            f(Token::Word(lower));
        }
    };
    for seg in segments {
        if seg.is_ascii() && !seg.contains('\'') {
            ascii_parts(seg, |p| part(p, buf));
            continue;
        }
        // Apostrophes join (`user's` → `users`, `don't` → `dont`) rather than split.
        let seg: Cow<str> = if seg.contains(['\'', '\u{2019}']) {
            seg.chars().filter(|&c| c != '\'' && c != '\u{2019}').collect::<String>().into()
        } else {
            (*seg).into()
        };
        for piece in seg.split(|c: char| !c.is_alphanumeric()).filter(|p| !p.is_empty()) {
            camel_parts(piece, |p| part(p, buf));
        }
    }
    if parts > 1 {
        let whole = buf.as_str();
        let chars = if whole.is_ascii() { whole.len() } else { whole.chars().count() };
        if chars >= 2 && !is_stopword(whole) {
            f(Token::Whole(whole));
        }
    }
}

/// The alphanumeric runs of an ASCII segment split like [`camel_parts`], on bytes.
fn ascii_parts<'a>(seg: &'a str, mut emit: impl FnMut(&'a str)) {
    let b = seg.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let mut start = i;
        i += 1;
        while i < b.len() && b[i].is_ascii_alphanumeric() {
            let (prev, cur) = (b[i - 1], b[i]);
            let next_lower = b.get(i + 1).is_some_and(u8::is_ascii_lowercase);
            let boundary = (prev.is_ascii_lowercase() && cur.is_ascii_uppercase())
                || (prev.is_ascii_uppercase() && cur.is_ascii_uppercase() && next_lower)
                || (prev.is_ascii_alphabetic() && cur.is_ascii_digit())
                || (prev.is_ascii_digit() && cur.is_ascii_alphabetic());
            if boundary {
                emit(&seg[start..i]);
                start = i;
            }
            i += 1;
        }
        emit(&seg[start..i]);
    }
}

/// Lowercasing plus the full case folds that matter for matching: final sigma and ß.
fn case_fold_into(s: &str, out: &mut String) {
    if s.is_ascii() {
        let start = out.len();
        out.push_str(s);
        out[start..].make_ascii_lowercase();
        return;
    }
    let lower = s.to_lowercase();
    if lower.contains(['ς', 'ß']) {
        out.push_str(&lower.replace('ς', "σ").replace('ß', "ss"));
    } else {
        out.push_str(&lower);
    }
}

pub fn word_unit(surface: String) -> Unit {
    let stem = stem(&surface).into_owned();
    Unit::Word { surface, stem }
}

#[cfg(test)]
mod tests {

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
        ]
        .map(String::from)
        .to_vec();
        let alphabet = b"aZ09_.-bYQq";
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
}
