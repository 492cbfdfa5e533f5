//! What a request names by its shape: "open src/config/routes.ts", "go to example.com/pricing",
//! "mail ana@x.io", "in acme/web", "post in #incidents", "pull up MOB-42". The request never
//! says "file", "URL", "email", "repository", "channel" or "issue", but the tool that takes
//! such a thing does — in its parameters (`path`, `url`, `email`, `owner`/`repo`, `channel`)
//! or its description. A request's chunks (whitespace-separated, surrounding punctuation
//! trimmed) are read for these shapes and the words for them join the query, weighed as a
//! share of a typed word ([`super::index`]). Only general conventions of how such things are
//! written: no product, server or tool names.

/// File extensions common enough that `name.ext` is a file, not a sentence's period or a
/// domain (`.md` and `.sh` are files, `.com` is not).
const FILE_EXTENSIONS: &[&str] = &[
    "c", "cc", "cfg", "cjs", "conf", "cpp", "cs", "css", "csv", "doc", "docx", "env", "gif", "go", "gz", "h", "htm",
    "html", "ini", "ipynb", "java", "jpeg", "jpg", "js", "json", "jsonl", "jsx", "kt", "lock", "log", "md", "mjs",
    "mp3", "mp4", "parquet", "pdf", "php", "png", "ppt", "pptx", "py", "rb", "rs", "scss", "sh", "sql", "sqlite",
    "svg", "swift", "tar", "toml", "ts", "tsx", "tsv", "txt", "wasm", "wav", "webp", "xls", "xlsx", "xml", "yaml",
    "yml", "zip",
];

/// Top-level domains common enough that `name.tld` is a host.
const DOMAINS: &[&str] = &[
    "ai", "app", "co", "com", "de", "dev", "edu", "fr", "gov", "info", "io", "jp", "kr", "net", "org", "uk", "us",
];

/// The words for the things `query` names by shape, each once, in order of first sight.
pub fn shape_words(query: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    let mut add = |words: &[&'static str]| {
        for w in words {
            if !out.contains(w) {
                out.push(w);
            }
        }
    };
    if is_sql(query) {
        add(&["sql", "query"]);
    }
    for raw in query.split(|c: char| c.is_whitespace() || is_cjk_or_fullwidth(c)) {
        let chunk = raw.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '(' | ')' | '[' | ']' | '<' | '>' | ',' | ';' | ':' | '!' | '?' | '.' | '“' | '”' | '‘' | '’' | '「' | '」'));
        // (a plain word has none of the marks a shape is made of)
        if chunk.is_empty() || !chunk.is_ascii() || !chunk.contains(['.', '/', '@', '#', '-']) {
            continue;
        }
        if let Some(shape) = shape_of(chunk) {
            add(shape);
        }
    }
    out
}

/// An SQL statement in the request ("run SELECT count(*) FROM orders …"): a statement's
/// opening keywords in order, written in capitals as SQL usually is, or in any case where
/// English would not put them (`select *`, `select count(`, `create table x`).
fn is_sql(query: &str) -> bool {
    // (most requests have no SQL keyword: answered without collecting their words)
    const OPENERS: &[&str] = &["select", "insert", "delete", "update", "create", "alter", "drop"];
    let words = || query.split(|c: char| !c.is_ascii_alphanumeric() && c != '*' && c != '_').filter(|w| !w.is_empty());
    if !words().any(|w| OPENERS.iter().any(|k| w.eq_ignore_ascii_case(k))) {
        return false;
    }
    let raw: Vec<&str> = words().collect();
    let is = |i: usize, w: &str| raw.get(i).is_some_and(|x| x.eq_ignore_ascii_case(w));
    let capital = |i: usize| raw.get(i).is_some_and(|x| x.bytes().all(|b| b.is_ascii_uppercase()));
    let column_list = |i: usize| ["*", "count", "distinct", "sum", "avg", "min", "max"].iter().any(|w| is(i, w));
    (0..raw.len()).any(|i| {
        (is(i, "select") && (capital(i) || column_list(i + 1)) && (i + 1..raw.len().min(i + 14)).any(|j| is(j, "from")))
            || (is(i, "insert") && is(i + 1, "into") && capital(i))
            || (is(i, "delete") && is(i + 1, "from") && capital(i))
            || (is(i, "update") && is(i + 2, "set") && capital(i))
            || ((is(i, "create") || is(i, "alter") || is(i, "drop")) && is(i + 1, "table") && raw.get(i + 2).is_some_and(|w| !["of", "for", "with", "in"].iter().any(|x| w.eq_ignore_ascii_case(x))))
    })
}

/// CJK and full-width characters end a chunk: "acme/mobile に" and "acme/mobile에" alike.
fn is_cjk_or_fullwidth(c: char) -> bool {
    let u = c as u32;
    (0x3000..=0x9fff).contains(&u) || (0xac00..=0xd7af).contains(&u) || (0xff00..=0xffef).contains(&u)
}

fn shape_of(chunk: &str) -> Option<&'static [&'static str]> {
    let starts = |prefix: &str| chunk.get(..prefix.len()).is_some_and(|head| head.eq_ignore_ascii_case(prefix));
    if starts("http://") || starts("https://") || starts("www.") {
        return Some(&["url"]);
    }
    if let Some(at) = chunk.find('@') {
        let (user, host) = (&chunk[..at], &chunk[at + 1..]);
        if !user.is_empty() && is_host(host) {
            return Some(&["email"]);
        }
        return None;
    }
    if let Some(name) = chunk.strip_prefix('#') {
        // (#57 is a number; #incidents, #eng-alerts a channel)
        return (name.len() >= 2 && name.bytes().all(is_name_byte) && name.bytes().any(|b| b.is_ascii_alphabetic())).then_some(&["channel"]);
    }
    if is_ticket_key(chunk) {
        return Some(&["issue"]);
    }
    let segments: Vec<&str> = chunk.split('/').collect();
    let last = segments[segments.len() - 1];
    let first = segments[0];
    if is_host(first) && segments.len() > 1 {
        return Some(&["url"]);
    }
    if segments.len() == 1 {
        return if has_file_extension(chunk) { Some(&["file"]) } else if is_host(chunk) { Some(&["url"]) } else { None };
    }
    if !segments.iter().all(|s| s.bytes().all(|b| is_name_byte(b) || b == b'.' || b == b'~')) {
        return None;
    }
    // a path: rooted, relative, home-based, deeper than two parts, or ending in a file
    if has_file_extension(last) || first.is_empty() || first == "." || first == ".." || first == "~" || segments.len() > 2 {
        return (segments.iter().filter(|s| !s.is_empty()).count() >= 1).then_some(&["file", "path"]);
    }
    // owner/name: two names, at least one of them not a plain word (a hyphen, a digit, a
    // dot or a capital: `acme/web-app`, `octocat/hello-world`) or both longer than a word
    // pair such as and/or, read/write, TCP/IP
    let (a, b) = (first, last);
    if a.is_empty() || b.is_empty() || a.bytes().all(|c| c.is_ascii_digit()) || b.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let marked = |s: &str| s.bytes().any(|c| c == b'-' || c == b'_' || c == b'.' || c.is_ascii_digit());
    let lowercase = |s: &str| s.bytes().all(|c| !c.is_ascii_uppercase());
    if (marked(a) || marked(b) || (a.len() >= 4 && b.len() >= 3)) && lowercase(a) && lowercase(b) && !is_word_pair(a, b) {
        return Some(&["repository"]);
    }
    None
}

/// Word pairs written with a slash in running text, not repositories.
fn is_word_pair(a: &str, b: &str) -> bool {
    const PAIRS: &[&str] = &["and", "or", "read", "write", "input", "output", "yes", "no", "on", "off", "true", "false", "he", "she", "his", "her", "client", "server", "day", "night", "open", "close", "start", "stop", "before", "after", "pros", "cons", "either", "male", "female", "buy", "sell", "import", "export", "upload", "download"];
    PAIRS.contains(&a) || PAIRS.contains(&b)
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// `name.ext` with a known file extension (and a name before it). A capitalised `Name.js`
/// is a framework (Node.js, Vue.js), not a file.
fn has_file_extension(s: &str) -> bool {
    match s.rsplit_once('.') {
        Some((name, ext)) => {
            let ext = ext.to_ascii_lowercase();
            let framework = ext == "js" && name.bytes().next().is_some_and(|b| b.is_ascii_uppercase()) && !name.contains('/');
            !name.is_empty() && !name.ends_with('.') && !framework && FILE_EXTENSIONS.contains(&ext.as_str())
        }
        None => false,
    }
}

/// `name.tld` (or deeper) with a known top-level domain, each label a name.
fn is_host(s: &str) -> bool {
    let labels: Vec<&str> = s.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| !l.is_empty() && l.bytes().all(is_name_byte))
        && DOMAINS.contains(&labels[labels.len() - 1].to_ascii_lowercase().as_str())
}

/// Names of standards, algorithms and models written like a ticket key (`UTF-8`, `SHA-256`).
const NOT_TICKET_KEYS: &[&str] = &[
    "AES", "COVID", "CVE", "ECMA", "GPT", "HTTP", "IEEE", "IPV", "ISO", "MD", "MP", "RFC", "RSA", "SHA", "TLS", "UTF", "WCAG",
];

/// A tracker's ticket key: capital letters, a hyphen, then a number (`MOB-42`, `WEB-123`),
/// or a number with capitals after it (`PROJECT-1Z43`).
fn is_ticket_key(s: &str) -> bool {
    let Some((key, rest)) = s.split_once('-') else { return false };
    !NOT_TICKET_KEYS.contains(&key)
        && key.len() >= 2
        && key.len() <= 12
        && key.bytes().all(|b| b.is_ascii_uppercase())
        && rest.bytes().next().is_some_and(|b| b.is_ascii_digit())
        && rest.bytes().all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::shape_words;

    #[test]
    fn files_and_paths() {
        assert_eq!(shape_words("Open src/config/routes.ts so I can read it"), ["file", "path"]);
        assert_eq!(shape_words("Read package.json, tsconfig.json and vite.config.ts at once"), ["file"]);
        assert_eq!(shape_words("What are the permissions on scripts/deploy.sh?"), ["file", "path"]);
        assert_eq!(shape_words("list ~/notes"), ["file", "path"]);
        assert_eq!(shape_words("It ends here. Then more."), Vec::<&str>::new());
        assert_eq!(shape_words("a Node.js app"), Vec::<&str>::new());
    }

    #[test]
    fn urls_and_emails() {
        assert_eq!(shape_words("Open example.com/pricing in the browser"), ["url"]);
        assert_eq!(shape_words("go to https://x.org/a?b=c"), ["url"]);
        assert_eq!(shape_words("check blog.example.io"), ["url"]);
        assert_eq!(shape_words("Send it to ana@x.io"), ["email"]);
        assert_eq!(shape_words("ping @ana"), Vec::<&str>::new());
    }

    #[test]
    fn repositories_but_not_word_pairs() {
        assert_eq!(shape_words("Reply on issue #57 in acme/web"), ["repository"]);
        assert_eq!(shape_words("files from octocat/hello-world"), ["repository"]);
        assert_eq!(shape_words("acme/mobile に Issue を立てて"), ["repository"]);
        for text in ["read/write access", "and/or", "the TCP/IP stack", "12/25 meeting", "pros/cons"] {
            assert_eq!(shape_words(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn sql_statements() {
        assert_eq!(shape_words("Run SELECT count(*) FROM orders WHERE id > 3"), ["sql", "query"]);
        assert_eq!(shape_words("run select * from profiles on Supabase"), ["sql", "query"]);
        assert_eq!(shape_words("INSERT INTO logs VALUES (1)"), ["sql", "query"]);
        assert_eq!(shape_words("UPDATE users SET plan = 'pro'"), ["sql", "query"]);
        assert_eq!(shape_words("create table events (id int)"), ["sql", "query"]);
        for text in ["Add a Priority select property to the Bugs data source", "select the files from the list and delete them", "Create a table of contents", "delete from the list", "update the docs and set a reminder", "Insert into the doc a chart"] {
            assert_eq!(shape_words(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn channels_and_ticket_keys() {
        assert_eq!(shape_words("the last 50 messages in #incidents"), ["channel"]);
        assert_eq!(shape_words("issue #57"), Vec::<&str>::new());
        assert_eq!(shape_words("Pull up MOB-42"), ["issue"]);
        assert_eq!(shape_words("Sentry issue PROJECT-1Z43"), ["issue"]);
        for text in ["save it as UTF-8", "hash it with SHA-256", "ask GPT-4", "dates in ISO-8601"] {
            assert_eq!(shape_words(text), Vec::<&str>::new(), "{text}");
        }
    }
}
