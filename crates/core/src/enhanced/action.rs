//! The action a request asks for and the action a tool performs.
//!
//! Real catalogs hold families of sibling tools that differ by one action word
//! (`x_list` / `x_get` / `x_create` / `x_update` / `x_delete`): their other words and their
//! meaning are near-identical, so the shared nouns decide between them by chance. The
//! request usually says which ("Delete my consumer group …", "Show me the open pull
//! requests" — plural, a list — vs "Pull up issue #412" — one thing, a get). This module
//! reads both sides into a small set of [`Actions`]; the ranking (see
//! [`super::index`]) then prefers, among tools that otherwise match alike, the one whose
//! action the request asks for.
//!
//! Requests: English by the stem of each word (with a little context: "set up", "pull up",
//! "get rid of", "look for", "open a PR"), the first action verb of the request and those
//! after "and" / "then"; Chinese, Japanese and Korean by verb forms in the text. A request
//! asking to show or get something plural ("the open pull requests", "all …", "which files
//! …") asks for a list. Tools: the action words of their name (identifier parts), or, for a
//! name with none (or only an HTTP method such as `post`), the first action verb of their
//! description.

use super::analyzer::{normalize, stem};

/// A set of actions, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Actions(pub u16);

impl Actions {
    pub const NONE: Actions = Actions(0);
    pub const CREATE: Actions = Actions(1);
    pub const GET: Actions = Actions(1 << 1);
    pub const LIST: Actions = Actions(1 << 2);
    pub const UPDATE: Actions = Actions(1 << 3);
    pub const DELETE: Actions = Actions(1 << 4);
    pub const SEARCH: Actions = Actions(1 << 5);
    pub const RUN: Actions = Actions(1 << 6);
    pub const SEND: Actions = Actions(1 << 7);
    pub const MERGE: Actions = Actions(1 << 8);
    pub const CLOSE: Actions = Actions(1 << 9);
    pub const DEPLOY: Actions = Actions(1 << 10);
    pub const INSTALL: Actions = Actions(1 << 11);
    pub const UPLOAD: Actions = Actions(1 << 12);
    pub const DOWNLOAD: Actions = Actions(1 << 13);

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn contains(self, other: Actions) -> bool {
        self.0 & other.0 == other.0 && !other.is_empty()
    }

    pub fn intersects(self, other: Actions) -> bool {
        self.0 & other.0 != 0
    }

    /// The actions close enough to these that a tool performing one of them may still serve
    /// the request (a get can answer from a list, a search lists, an upsert creates).
    pub fn related(self) -> Actions {
        let mut out = self.0;
        for (a, b) in RELATED {
            if self.intersects(a) {
                out |= b.0;
            }
            if self.intersects(b) {
                out |= a.0;
            }
        }
        Actions(out)
    }
}

impl std::ops::BitOr for Actions {
    type Output = Actions;
    fn bitor(self, o: Actions) -> Actions {
        Actions(self.0 | o.0)
    }
}

impl std::ops::BitOrAssign for Actions {
    fn bitor_assign(&mut self, o: Actions) {
        self.0 |= o.0;
    }
}

/// Pairs of actions one of which may serve a request for the other.
const RELATED: [(Actions, Actions); 3] = [
    (Actions::GET, Actions::LIST),
    (Actions::LIST, Actions::SEARCH),
    (Actions::CREATE, Actions::UPDATE),
];

/// The action stems of [`english_action`] (for [`may_be_action`]).
const ACTION_STEMS: &[&str] = &[
    "creat", "add", "make", "insert", "generat", "regist", "provis", "fork", "draft", "get", "show", "fetch", "read", "view",
    "retriev", "describ", "display", "see", "inspect", "open", "list", "enumer", "updat", "chang", "edit", "modifi", "renam",
    "set", "assign", "patch", "replac", "toggl", "move", "rewrit", "tweak", "adjust", "reconfigur", "configur", "append",
    "put", "save", "resiz", "increas", "decreas", "bump", "delet", "remov", "drop", "destroy", "forget", "eras", "purg", "wipe", "uninstal", "cancel", "search", "find",
    "lookup", "queri", "locat", "grep", "run", "execut", "invok", "trigger", "launch", "evalu", "send", "post", "repli",
    "notifi", "publish", "messag", "dm", "merg", "close", "deploy", "instal", "upload", "download",
];

/// Whether `word` (lowercased) can stem to an action word: its first four letters begin one
/// (or its first three or two are one: `add`, `dm`). Most words of a request do not, and skip the stemmer.
fn may_be_action(word: &str) -> bool {
    // (heads of four letters, or the whole stem when shorter: `add`, `get`, `dm`)
    static HEADS: std::sync::OnceLock<rustc_hash::FxHashSet<&'static str>> = std::sync::OnceLock::new();
    let heads = HEADS.get_or_init(|| ACTION_STEMS.iter().map(|s| s.get(..4).unwrap_or(s)).collect());
    [4, 3, 2].iter().any(|&n| word.get(..n).is_some_and(|head| heads.contains(head)))
}

/// The action of an English word (lowercased), by its stem (Porter2, as [`stem`] gives it).
fn english_word_action(word: &str) -> Actions {
    if may_be_action(word) { english_action(&stem(word)) } else { Actions::NONE }
}

/// English action words by their stem (Porter2, as [`stem`] gives it).
fn english_action(stem: &str) -> Actions {
    match stem {
        "creat" | "add" | "make" | "insert" | "generat" | "regist" | "provis" | "fork"
        | "draft" => Actions::CREATE,
        "get" | "show" | "fetch" | "read" | "view" | "retriev" | "describ" | "display" | "see"
        | "inspect" | "open" => Actions::GET,
        "list" | "enumer" => Actions::LIST,
        "updat" | "chang" | "edit" | "modifi" | "renam" | "set" | "assign" | "patch" | "replac"
        | "toggl" | "move" | "rewrit" | "tweak" | "adjust" | "reconfigur" | "configur"
        | "append" | "put" | "save" | "resiz" | "increas" | "decreas" | "bump" => Actions::UPDATE,
        "delet" | "remov" | "drop" | "destroy" | "forget" | "eras" | "purg" | "wipe"
        | "uninstal" | "cancel" => Actions::DELETE,
        "search" | "find" | "lookup" | "queri" | "locat" | "grep" => Actions::SEARCH,
        "run" | "execut" | "invok" | "trigger" | "launch" | "evalu" => Actions::RUN,
        "send" | "post" | "repli" | "notifi" | "publish" | "messag" | "dm" => Actions::SEND,
        "merg" => Actions::MERGE,
        "close" => Actions::CLOSE,
        "deploy" => Actions::DEPLOY,
        "instal" => Actions::INSTALL,
        "upload" => Actions::UPLOAD,
        "download" => Actions::DOWNLOAD,
        _ => Actions::NONE,
    }
}

/// Verb forms of Chinese (Simplified: requests are folded by [`normalize`]), Japanese and
/// Korean (stems: endings vary), found anywhere in a request's CJK text.
const CJK_ACTIONS: &[(&str, Actions)] = &[
    // Chinese
    ("创建", Actions::CREATE),
    ("新建", Actions::CREATE),
    ("添加", Actions::CREATE),
    ("新增", Actions::CREATE),
    ("注册", Actions::CREATE),
    ("建立", Actions::CREATE),
    ("建一个", Actions::CREATE),
    ("建个", Actions::CREATE),
    ("生成", Actions::CREATE),
    ("获取", Actions::GET),
    ("查看", Actions::GET),
    ("显示", Actions::GET),
    ("看看", Actions::GET),
    ("看一下", Actions::GET),
    ("读取", Actions::GET),
    ("打开", Actions::GET),
    ("拿到", Actions::GET),
    ("列出", Actions::LIST),
    ("列表", Actions::LIST),
    ("所有", Actions::LIST),
    ("哪些", Actions::LIST),
    ("全部", Actions::LIST),
    ("更新", Actions::UPDATE),
    ("修改", Actions::UPDATE),
    ("更改", Actions::UPDATE),
    ("改成", Actions::UPDATE),
    ("改为", Actions::UPDATE),
    ("改一下", Actions::UPDATE),
    ("设置", Actions::UPDATE),
    ("设为", Actions::UPDATE),
    ("重命名", Actions::UPDATE),
    ("编辑", Actions::UPDATE),
    ("删除", Actions::DELETE),
    ("删掉", Actions::DELETE),
    ("删", Actions::DELETE),
    ("移除", Actions::DELETE),
    ("去掉", Actions::DELETE),
    ("取消", Actions::DELETE),
    ("搜索", Actions::SEARCH),
    ("查找", Actions::SEARCH),
    ("搜一下", Actions::SEARCH),
    ("找", Actions::SEARCH),
    ("查询", Actions::SEARCH),
    ("运行", Actions::RUN),
    ("执行", Actions::RUN),
    ("发送", Actions::SEND),
    ("发一条", Actions::SEND),
    ("发条", Actions::SEND),
    ("发个", Actions::SEND),
    ("回复", Actions::SEND),
    ("发布", Actions::SEND),
    ("合并", Actions::MERGE),
    ("关闭", Actions::CLOSE),
    ("部署", Actions::DEPLOY),
    ("安装", Actions::INSTALL),
    ("上传", Actions::UPLOAD),
    ("下载", Actions::DOWNLOAD),
    // Japanese
    ("作成", Actions::CREATE),
    ("作って", Actions::CREATE),
    ("作る", Actions::CREATE),
    ("追加", Actions::CREATE),
    ("新規", Actions::CREATE),
    ("登録", Actions::CREATE),
    ("取得", Actions::GET),
    ("見せて", Actions::GET),
    ("表示", Actions::GET),
    ("確認", Actions::GET),
    ("読んで", Actions::GET),
    ("読み", Actions::GET),
    ("開いて", Actions::GET),
    ("一覧", Actions::LIST),
    ("リスト", Actions::LIST),
    ("すべて", Actions::LIST),
    ("全て", Actions::LIST),
    ("変更", Actions::UPDATE),
    ("編集", Actions::UPDATE),
    ("設定", Actions::UPDATE),
    ("書き換え", Actions::UPDATE),
    ("削除", Actions::DELETE),
    ("消して", Actions::DELETE),
    ("消す", Actions::DELETE),
    ("取り除", Actions::DELETE),
    ("検索", Actions::SEARCH),
    ("探して", Actions::SEARCH),
    ("探す", Actions::SEARCH),
    ("実行", Actions::RUN),
    ("送信", Actions::SEND),
    ("送って", Actions::SEND),
    ("返信", Actions::SEND),
    ("投稿", Actions::SEND),
    ("マージ", Actions::MERGE),
    ("閉じ", Actions::CLOSE),
    ("デプロイ", Actions::DEPLOY),
    ("インストール", Actions::INSTALL),
    ("アップロード", Actions::UPLOAD),
    ("ダウンロード", Actions::DOWNLOAD),
    // Korean
    ("만들", Actions::CREATE),
    ("만들어", Actions::CREATE),
    ("생성", Actions::CREATE),
    ("추가", Actions::CREATE),
    ("등록", Actions::CREATE),
    ("조회", Actions::GET),
    ("보여", Actions::GET),
    ("가져", Actions::GET),
    ("읽어", Actions::GET),
    ("열어", Actions::GET),
    ("목록", Actions::LIST),
    ("모든", Actions::LIST),
    ("전부", Actions::LIST),
    ("전체", Actions::LIST),
    ("수정", Actions::UPDATE),
    ("변경", Actions::UPDATE),
    ("업데이트", Actions::UPDATE),
    ("바꿔", Actions::UPDATE),
    ("설정", Actions::UPDATE),
    ("삭제", Actions::DELETE),
    ("지워", Actions::DELETE),
    ("제거", Actions::DELETE),
    ("없애", Actions::DELETE),
    ("검색", Actions::SEARCH),
    ("찾아", Actions::SEARCH),
    ("찾기", Actions::SEARCH),
    ("실행", Actions::RUN),
    ("돌려", Actions::RUN),
    ("보내", Actions::SEND),
    ("전송", Actions::SEND),
    ("답장", Actions::SEND),
    ("게시", Actions::SEND),
    ("병합", Actions::MERGE),
    ("머지", Actions::MERGE),
    ("닫아", Actions::CLOSE),
    ("배포", Actions::DEPLOY),
    ("설치", Actions::INSTALL),
    ("업로드", Actions::UPLOAD),
    ("다운로드", Actions::DOWNLOAD),
];

/// Lowercased ASCII word parts of `text`: split at anything not a letter or digit and at
/// camelCase boundaries (`API-post-search` → api, post, search; `getUser` → get, user).
fn ascii_words(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    word_spans(text).into_iter().map(|(a, b)| lower[a..b].to_owned()).collect()
}

/// Byte ranges of [`ascii_words`]'s words in `text`.
fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut start: Option<usize> = None;
    let mut prev_lower = false;
    for (i, &c) in bytes.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            match start {
                Some(s) if c.is_ascii_uppercase() && prev_lower => {
                    spans.push((s, i));
                    start = Some(i);
                }
                Some(_) => {}
                None => start = Some(i),
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            prev_lower = false;
            if let Some(s) = start.take() {
                spans.push((s, i));
            }
        }
    }
    if let Some(s) = start {
        spans.push((s, bytes.len()));
    }
    spans
}

/// Whether an English word is a plural noun form (`requests`, `files`; not `status`,
/// `address`, `analysis`).
fn is_plural(word: &str) -> bool {
    word.len() > 3
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
        && stem(word) != word
}

/// Words after which a request's object ends (prepositions, conjunctions).
fn ends_object(word: &str) -> bool {
    matches!(
        word,
        "in" | "on"
            | "of"
            | "for"
            | "from"
            | "with"
            | "at"
            | "to"
            | "by"
            | "and"
            | "or"
            | "that"
            | "where"
            | "into"
    )
}

/// Words that ask for every member of a set.
fn asks_all(word: &str) -> bool {
    matches!(word, "all" | "every" | "everything")
}

/// Phrasal verbs: (verb, next word, the action they ask for, whether the next word is part of
/// the verb and not a particle the analyzer drops anyway: `rid`).
const PHRASAL_VERBS: [(&str, &str, Actions, bool); 5] = [
    ("set", "up", Actions::CREATE, false),
    ("pull", "up", Actions::GET, false),
    ("look", "up", Actions::GET, false),
    ("get", "rid", Actions::DELETE, true),
    ("look", "for", Actions::SEARCH, false),
];

/// The phrasal verb (of PHRASAL_VERBS) that starts at `words[i]`, if any.
fn phrasal_at(words: &[&str], i: usize) -> Option<(Actions, bool)> {
    let next = *words.get(i + 1)?;
    PHRASAL_VERBS.iter().find(|(verb, second, _, _)| *verb == words[i] && *second == next).map(|&(_, _, action, both)| (action, both))
}

/// The English action of `words[i]`, reading its neighbours where a word's sense depends on
/// them (`set up`, `pull up`, `get rid of`, `look for`, `look up`, `open a PR`).
fn english_at(words: &[&str], i: usize) -> Actions {
    let w = words[i];
    let next = words.get(i + 1).copied();
    if let Some((action, _)) = phrasal_at(words, i) {
        return action;
    }
    match (w, next) {
        // "store this file in …" puts it; elsewhere "store" is a noun (the App Configuration store)
        ("store", _) => {
            let verb = i == 0 || matches!(words[i - 1], "please" | "and" | "then" | "to");
            return if verb { Actions::UPDATE } else { Actions::NONE };
        }
        ("open", _) => {
            // "open a PR / a new issue" files one; "open" elsewhere shows something, unless it
            // is the adjective ("the open issues": not the request's first word)
            let article = matches!(next, Some("a" | "an" | "new"));
            let object = words[i + 1..].iter().copied().find(|x| !matches!(*x, "a" | "an" | "new"));
            if article && matches!(object, Some("pr" | "pull" | "issue" | "ticket")) {
                return Actions::CREATE;
            }
            return if i == 0 || matches!(words[i - 1], "please" | "and" | "then" | "to") { Actions::GET } else { Actions::NONE };
        }
        _ => {}
    }
    english_word_action(w)
}

/// The words of `request` that only ever say its action through a phrasal verb (`pull` of
/// "pull up", `get` and `rid` of "get rid of", `set` of "set up", `look` of "look up / for"):
/// their literal sense is not the request's subject, and as query terms they match the wrong
/// tools (`pull up issue 412` against `get_pull_request`). Lowercased; a word also used on
/// its own elsewhere in the request is kept.
pub fn phrasal_verb_words(request: &str) -> Vec<String> {
    // (most requests have none of the particles: no copy for them)
    let has = |p: &[u8]| request.as_bytes().windows(p.len()).any(|w| w.eq_ignore_ascii_case(p));
    if !(has(b" up") || has(b" for") || has(b" rid")) {
        return Vec::new();
    }
    let text: std::borrow::Cow<'_, str> = if request.is_ascii() { request.into() } else { normalize(request).into() };
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = word_spans(&text).into_iter().map(|(a, b)| &lower[a..b]).collect();
    let mut phrasal: Vec<usize> = Vec::new();
    for i in 0..words.len() {
        match phrasal_at(&words, i) {
            Some((_, true)) => phrasal.extend([i, i + 1]),
            Some((_, false)) => phrasal.push(i),
            None => {}
        }
    }
    let mut out: Vec<String> = Vec::new();
    for &i in &phrasal {
        let w = words[i];
        let uses = words.iter().filter(|x| **x == w).count();
        let as_phrasal = phrasal.iter().filter(|&&j| words[j] == w).count();
        if uses == as_phrasal && !out.iter().any(|x| x == w) {
            out.push(w.to_string());
        }
    }
    out
}

/// The actions `request` asks for (empty when it names none).
pub fn request_actions(request: &str) -> Actions {
    // (ASCII is its own normal form)
    let text: std::borrow::Cow<'_, str> = if request.is_ascii() { request.into() } else { normalize(request).into() };
    // (one lowercased copy, the words slices of it: this runs once per search)
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = word_spans(&text).into_iter().map(|(a, b)| &lower[a..b]).collect();
    let mut out = Actions::NONE;
    // English: the first action verb, and any right after "and" / "then" (a second step).
    let mut primary: Option<(usize, Actions)> = None;
    for i in 0..words.len() {
        // a participle after a form of "be" describes, it asks nothing ("what variables are
        // set", "which pods are running")
        if i > 0 && matches!(words[i - 1], "is" | "are" | "was" | "were" | "been") {
            continue;
        }
        let a = english_at(&words, i);
        if a.is_empty() {
            continue;
        }
        match primary {
            None => primary = Some((i, a)),
            Some(_) if i > 0 && matches!(words[i - 1], "and" | "then") => out |= a,
            Some(_) => {}
        }
    }
    let weak_all = words.iter().any(|w| asks_all(w));
    let which_plural = words.windows(3).any(|w| {
        matches!(w[0], "which" | "what") && (is_plural(w[1]) || is_plural(w[2]))
    });
    match primary {
        Some((i, a)) => {
            let mut a = a;
            // show / get something plural, or all of something: a list
            if a == Actions::GET {
                let plural_object = words[i + 1..]
                    .iter()
                    .take_while(|w| !ends_object(w))
                    .take(5)
                    .any(|w| is_plural(w));
                if plural_object || weak_all {
                    a = Actions::LIST;
                }
            }
            out |= a;
        }
        None if weak_all || which_plural => out |= Actions::LIST,
        None => {}
    }
    // CJK verb forms
    if !text.is_ascii() {
        let mut cjk = Actions::NONE;
        for &(form, a) in CJK_ACTIONS {
            // (folded text for Traditional Chinese, the request as written for Japanese kanji
            // the folding would change: 一覧)
            if text.contains(form) || request.contains(form) {
                cjk |= a;
            }
        }
        // a list and a get asked together: the list (列出…查看, 一覧…表示)
        if cjk.contains(Actions::LIST) {
            cjk.0 &= !Actions::GET.0;
        }
        out |= cjk;
    }
    out
}

/// Name words that are an HTTP method rather than the tool's action when the name has
/// another action word (`API-post-search`), and say little alone (`API-post-page`).
fn is_method_word(word: &str) -> bool {
    matches!(word, "post" | "put" | "api")
}

/// The actions a tool named `name` and described by `description` performs.
pub fn tool_actions(name: &str, description: &str) -> Actions {
    let words = ascii_words(name);
    let mut strong = Actions::NONE;
    let mut weak = Actions::NONE;
    let mut gets = false;
    for w in &words {
        let a = english_word_action(w);
        if is_method_word(w) {
            weak |= a;
        } else {
            strong |= a;
            gets |= a == Actions::GET;
        }
    }
    // `get_users`, `get_pull_request_comments`: a get of many is a list
    if gets && words.iter().any(|w| is_plural(w)) {
        strong |= Actions::LIST;
    }
    if !strong.is_empty() {
        return strong;
    }
    // the description's first action verb, among its first words ("Notion | Create a page")
    let desc_words = ascii_words(description);
    for w in desc_words.iter().take(4) {
        let a = english_word_action(w);
        if !a.is_empty() {
            return a;
        }
    }
    weak
}

/// The object part of a tool name: the stems of its words other than action and method
/// words, sorted (`github_list_issues` and `github_get_issue` → `github issu`).
fn name_object(name: &str) -> String {
    let mut stems: Vec<String> = ascii_words(name)
        .iter()
        .filter(|w| !is_method_word(w) && english_word_action(w).is_empty())
        .map(|w| stem(w).into_owned())
        .collect();
    stems.sort_unstable();
    stems.dedup();
    stems.join(" ")
}

/// Per tool (name, description): its actions when it has a sibling, a tool whose name
/// names the same object, or that object and one more word, with other actions (`x_list` /
/// `x_get` / `x_delete`, `issue_get` / `issue_comment_add`); none otherwise. Only between
/// siblings does the action word decide: elsewhere a tool's name and description already
/// say what it is for, and a verb read off a lone tool (often from free text) would only add
/// noise to its ranking.
pub fn sibling_actions<'a>(tools: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<Actions> {
    sibling_families(tools).into_iter().map(|(actions, _)| actions).collect()
}

/// A tool's family in [`sibling_families`] when it has none.
pub const NO_FAMILY: u32 = u32::MAX;

/// [`sibling_actions`], each tool with its family: the same number for siblings (tools whose
/// objects are equal, or linked one word apart, directly or through others), [`NO_FAMILY`]
/// for a tool without siblings.
pub fn sibling_families<'a>(tools: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<(Actions, u32)> {
    let rows: Vec<(String, Actions)> = tools
        .map(|(name, desc)| (name_object(name), tool_actions(name, desc)))
        .collect();
    // per object: the first actions seen, whether others were seen too, whether it has a
    // sibling, and its number (in order of first appearance)
    let mut families: rustc_hash::FxHashMap<&str, (Actions, bool, bool, usize)> = Default::default();
    for (object, actions) in &rows {
        if actions.is_empty() || object.is_empty() {
            continue;
        }
        let next = families.len();
        let family = families
            .entry(object.as_str())
            .or_insert((*actions, false, false, next));
        family.1 |= family.0 != *actions;
        family.2 |= family.1;
    }
    // objects one word apart: the shorter one's tools and the longer one's are siblings
    let mut linked: Vec<(String, String)> = Vec::new();
    for (object, &(actions, mixed, _, _)) in &families {
        let words: Vec<&str> = object.split(' ').collect();
        if words.len() < 2 {
            continue;
        }
        for drop in 0..words.len() {
            let shorter: Vec<&str> = words
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != drop)
                .map(|(_, w)| *w)
                .collect();
            let shorter = shorter.join(" ");
            if let Some(&(other, other_mixed, _, _)) = families.get(shorter.as_str()) {
                if other != actions || mixed || other_mixed {
                    linked.push((object.to_string(), shorter));
                }
            }
        }
    }
    // linked objects form one family (union-find over the objects' numbers)
    let mut parent: Vec<usize> = (0..families.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for (a, b) in &linked {
        for key in [a, b] {
            if let Some(family) = families.get_mut(key.as_str()) {
                family.2 = true;
            }
        }
        let (ra, rb) = (root(&mut parent, families[a.as_str()].3), root(&mut parent, families[b.as_str()].3));
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        parent[hi] = lo;
    }
    rows.iter()
        .map(|(object, actions)| match families.get(object.as_str()) {
            Some(&(_, _, true, number)) => (*actions, root(&mut parent, number) as u32),
            _ => (Actions::NONE, NO_FAMILY),
        })
        .collect()
}

/// How an action match scales a tool's score: `bonus` when the tool performs an action the
/// request asks for, `penalty` when the request asks for actions and the tool performs only
/// others (none of them related), 1 otherwise (no action on either side, or a related one).
pub fn action_factor(request: Actions, tool: Actions, bonus: f32, penalty: f32) -> f32 {
    if request.is_empty() || tool.is_empty() {
        1.0
    } else if request.intersects(tool) {
        bonus
    } else if request.related().intersects(tool) {
        1.0
    } else {
        penalty
    }
}

#[cfg(test)]
mod tests;
