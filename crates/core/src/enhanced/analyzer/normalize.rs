//! Normalisation before analysis: NFKC, then Traditional→Simplified Chinese folding
//! (Japanese shinjitai included).

use std::borrow::Cow;

use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// Han ranges that Traditional→Simplified folding may change.
#[inline]
fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{3FFFF}')
}

/// Japanese shinjitai → Simplified Chinese, for the characters where Japanese simplified
/// differently from (or not at all like) China: 気/气, 検/检, 駅/驿, 図/图. Traditional
/// forms are folded by `fast2s`; these pass through it unchanged. Sorted by the first char.
#[rustfmt::skip]
pub(super) const SHINJITAI: &[(char, char)] = &[
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
pub(super) fn normalize_cow(text: &str) -> Cow<'_, str> {
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
