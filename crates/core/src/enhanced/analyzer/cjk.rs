//! Chinese, Japanese and Korean text: script classes, bigrams plus single characters,
//! and Korean particles and endings.

use super::Token;

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

/// Overlapping bigrams of a CJK word, and each character alone as a part (weighted
/// lower, so exact bigrams win); a one-character word is a part only.
pub(super) fn emit_grams(run: &str, f: &mut impl FnMut(Token<'_>)) {
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
pub(super) fn korean_stem<'b>(word: &str, attached: bool, buf: &'b mut String) -> Option<&'b str> {
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
