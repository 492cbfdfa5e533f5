use super::*;
use crate::enhanced::{EnhancedIndex, Field, FieldDoc, Tuning};

#[test]
fn english_requests_name_their_action() {
    let cases: &[(&str, Actions)] = &[
        ("Delete my consumer group orders-cg", Actions::DELETE),
        ("Update the performance tier of the disk", Actions::UPDATE),
        ("List all topics in my namespace", Actions::LIST),
        ("Show me the open pull requests on acme/web", Actions::LIST),
        ("Pull up issue #412 on acme/web", Actions::GET),
        ("Make a new private repo called parser", Actions::CREATE),
        ("Set up a webhook for the shop", Actions::CREATE),
        ("Open a PR from feature/x into main", Actions::CREATE),
        ("Get rid of the staging bucket", Actions::DELETE),
        ("Look for repositories about async runtimes", Actions::SEARCH),
        ("Forget everything about Bob", Actions::DELETE),
        ("Renamed? No: rename the database to billing", Actions::UPDATE),
        ("Run the nightly job now", Actions::RUN),
        ("Send a message to #general", Actions::SEND),
        ("Merge pull request 7", Actions::MERGE),
        ("Which files are in the src folder?", Actions::LIST),
        ("Did the CI checks pass on PR #204?", Actions::NONE),
    ];
    for &(request, want) in cases {
        assert_eq!(request_actions(request), want, "{request}");
    }
    // a second step after "and" counts too
    assert_eq!(request_actions("Find the stale branch and delete it"), Actions::SEARCH | Actions::DELETE);
    // a participle after "is" / "are" asks nothing; the plural question asks for a list
    assert_eq!(request_actions("What environment variables are set on the api worker?"), Actions::LIST);
    assert_eq!(request_actions("Which pods are running in the default namespace?"), Actions::LIST);
    // saving, storing, resizing: a change
    assert_eq!(request_actions("Save maintenance=true under the key flags"), Actions::UPDATE);
    assert_eq!(request_actions("Store the sitemap in the bucket"), Actions::UPDATE);
    assert_eq!(request_actions("Resize the disk to 512 GB"), Actions::UPDATE);
    assert_eq!(request_actions("Increase the replicas of web to 3"), Actions::UPDATE);
    // "store" as a noun is no action
    assert_eq!(request_actions("Get the value of Api:Timeout in the configuration store"), Actions::GET);
}

#[test]
fn chinese_japanese_korean_requests_name_their_action() {
    let cases: &[(&str, Actions)] = &[
        ("删除我的消费者组", Actions::DELETE),
        ("刪除這個分支", Actions::DELETE), // Traditional, folded
        ("列出命名空间里的所有主题", Actions::LIST),
        ("帮我创建一个仓库", Actions::CREATE),
        ("修改磁盘的性能层级", Actions::UPDATE),
        ("查看 issue 412", Actions::GET),
        ("コンシューマーグループを削除して", Actions::DELETE),
        ("リポジトリを新規作成して", Actions::CREATE),
        ("名前空間のトピック一覧を見せて", Actions::LIST),
        ("ディスクの設定を変更して", Actions::UPDATE),
        ("コンシューマー 그룹을 삭제해 줘", Actions::DELETE),
        ("새 저장소를 만들어 줘", Actions::CREATE),
        ("네임스페이스의 모든 토픽 목록을 보여줘", Actions::LIST),
        ("디스크 설정을 수정해 줘", Actions::UPDATE),
        ("이슈 412를 조회해 줘", Actions::GET),
        // registering a thing creates it
        ("在系统里注册一个新用户", Actions::CREATE),
        ("新しい会社を登録して", Actions::CREATE),
        ("새 고객을 등록해 줘", Actions::CREATE),
    ];
    for &(request, want) in cases {
        assert_eq!(request_actions(request), want, "{request}");
    }
}

#[test]
fn tools_perform_the_actions_their_names_say() {
    assert_eq!(tool_actions("github_list_issues", ""), Actions::LIST);
    assert_eq!(tool_actions("github_get_issue", ""), Actions::GET);
    assert_eq!(tool_actions("createOrUpdateFile", ""), Actions::CREATE | Actions::UPDATE);
    assert_eq!(tool_actions("eventhub_consumergroup_delete", ""), Actions::DELETE);
    // a get of many is also a list
    assert_eq!(tool_actions("notion_API-get-users", ""), Actions::GET | Actions::LIST);
    // an HTTP method gives way to the name's action word, or to the description's verb
    assert_eq!(tool_actions("notion_API-post-search", "Notion | Search by title"), Actions::SEARCH);
    assert_eq!(tool_actions("notion_API-post-page", "Notion | Create a page"), Actions::CREATE);
    // no action word in the name: the description's first verb
    assert_eq!(tool_actions("browser_snapshot", "Get an accessibility snapshot"), Actions::GET);
    assert_eq!(tool_actions("weather", "Forecasts for any city"), Actions::NONE);
}

#[test]
fn only_siblings_keep_their_actions() {
    let tools = [
        ("github_list_issues", ""),
        ("github_get_issue", ""),
        ("github_add_issue_comment", ""),
        ("search_flights", "Search flights"),
        ("speech_tts_synthesize", "Synthesize speech"),
    ];
    let actions = sibling_actions(tools.iter().copied());
    assert_eq!(actions[0], Actions::LIST);
    assert_eq!(actions[1], Actions::GET);
    // one word more than its siblings' object: still a sibling
    assert_eq!(actions[2], Actions::CREATE);
    // a lone tool's verb says nothing its other words do not
    assert_eq!(actions[3], Actions::NONE);
    assert_eq!(actions[4], Actions::NONE);
}

#[test]
fn siblings_share_a_family_and_linked_objects_join_it() {
    let tools = [
        ("github_list_issues", ""),
        ("github_get_issue", ""),
        ("github_add_issue_comment", ""),
        ("calendar_create_event", ""),
        ("calendar_delete_event", ""),
        ("search_flights", "Search flights"),
    ];
    let rows = sibling_families(tools.iter().copied());
    let family = |i: usize| rows[i].1;
    assert_eq!(family(0), family(1));
    // one word more than its siblings' object: the same family
    assert_eq!(family(2), family(0));
    assert_eq!(family(3), family(4));
    assert_ne!(family(3), family(0));
    assert_ne!(family(0), NO_FAMILY);
    assert_eq!(rows[5], (Actions::NONE, NO_FAMILY));
    // the actions are sibling_actions'
    let actions: Vec<Actions> = rows.iter().map(|r| r.0).collect();
    assert_eq!(actions, sibling_actions(tools.iter().copied()));
}

#[test]
fn factor_rewards_the_asked_action_and_spares_related_ones() {
    assert_eq!(action_factor(Actions::DELETE, Actions::DELETE, 1.2, 0.7), 1.2);
    assert_eq!(action_factor(Actions::DELETE, Actions::LIST, 1.2, 0.7), 0.7);
    assert_eq!(action_factor(Actions::LIST, Actions::GET, 1.2, 0.7), 1.0);
    assert_eq!(action_factor(Actions::NONE, Actions::GET, 1.2, 0.7), 1.0);
    assert_eq!(action_factor(Actions::GET, Actions::NONE, 1.2, 0.7), 1.0);
}

/// A catalog of sibling families whose other words match any of the requests alike.
fn siblings() -> Vec<FieldDoc> {
    let tools = [
        ("github_list_issues", "List issues in a GitHub repository with filtering options"),
        ("github_get_issue", "Get details of a specific issue in a GitHub repository"),
        ("github_create_issue", "Create a new issue in a GitHub repository"),
        ("github_update_issue", "Update an existing issue in a GitHub repository"),
        ("eventhub_consumergroup_list", "List consumer groups of an Event Hub"),
        ("eventhub_consumergroup_get", "Get a consumer group of an Event Hub"),
        ("eventhub_consumergroup_delete", "Delete a consumer group of an Event Hub"),
        ("eventhub_consumergroup_update", "Create or update a consumer group of an Event Hub"),
        ("weather_forecast", "Weather forecast for a city"),
    ];
    tools.iter().map(|(n, d)| FieldDoc::new(vec![(Field::Name, (*n).to_owned()), (Field::Description, (*d).to_owned())])).collect()
}

#[test]
fn the_asked_sibling_ranks_first() {
    let docs = siblings();
    let index = EnhancedIndex::build(&docs);
    let name = |d: u32| match &docs[d as usize].fields[0] {
        (_, n) => n.clone(),
    };
    let cases = [
        ("Show me the open issues on acme/web", "github_list_issues"),
        ("Pull up issue #412 on acme/web", "github_get_issue"),
        ("File an issue: create one about the login bug", "github_create_issue"),
        ("Change the title of issue 231", "github_update_issue"),
        ("Delete my consumer group orders-cg in the event hub", "eventhub_consumergroup_delete"),
        ("列出 event hub 的所有 consumer group", "eventhub_consumergroup_list"),
        ("删除 event hub 的 consumer group orders-cg", "eventhub_consumergroup_delete"),
        ("查看 issue 412", "github_get_issue"),
        ("acme/web の issue 一覧を見せて", "github_list_issues"),
        ("issue 231 의 제목을 수정해 줘", "github_update_issue"),
        ("Event Hub のコンシューマー グループを削除して", "eventhub_consumergroup_delete"),
        ("event hub consumer group 삭제해 줘", "eventhub_consumergroup_delete"),
    ];
    // without the action factor the shared words leave most of them to chance
    let off = EnhancedIndex::build_tuned(&docs, Tuning { action_bonus: 1.0, action_penalty: 1.0, ..Tuning::default() });
    let right_off = cases.iter().filter(|(q, want)| off.search(q).first().map(|&(d, _)| name(d)).as_deref() == Some(*want)).count();
    assert!(right_off < cases.len() / 2, "{right_off} of {} right without the factor", cases.len());
    for (q, want) in cases {
        let top = index.search(q);
        assert_eq!(top.first().map(|&(d, _)| name(d)).as_deref(), Some(want), "{q}: {:?}", top.iter().map(|&(d, s)| (name(d), s)).collect::<Vec<_>>());
    }
}

#[test]
fn pruned_top_equals_full_scoring_with_action_factors() {
    let docs = siblings();
    let index = EnhancedIndex::build(&docs);
    for q in ["delete consumer group", "list issues", "get issue", "update consumer group", "weather", "删除 consumer group", "issue"] {
        let all = index.search(q);
        for limit in 1..=all.len() {
            for by_fields in [false, true] {
                for packed in [false, true] {
                    assert_eq!(index.search_top_with(q, limit, by_fields, packed)[..], all[..limit], "{q} {limit}");
                }
            }
        }
    }
}

#[test]
fn every_action_stem_passes_the_prefilter() {
    for stem in ACTION_STEMS {
        assert!(may_be_action(stem), "{stem}");
        assert!(!english_action(stem).is_empty(), "{stem}");
    }
    assert!(!may_be_action("the"));
    assert!(!may_be_action("weather"));
}

#[test]
fn a_phrasal_verb_says_the_action_not_the_subject() {
    assert_eq!(phrasal_verb_words("Pull up issue #412 on acme/web"), ["pull"]);
    assert_eq!(phrasal_verb_words("Get rid of the preview branch"), ["get", "rid"]);
    assert_eq!(phrasal_verb_words("Set up a price; look for products"), ["set", "look"]);
    // a word also used on its own stays a term
    assert!(phrasal_verb_words("Pull up the pull request").is_empty());
    assert!(phrasal_verb_words("pull the latest changes").is_empty());
    assert!(phrasal_verb_words("set the timeout").is_empty());
    // "pull up" asks for the issue, not for a tool named after pulling
    let tools = [
        ("get_issue", "Get details of a specific issue in a GitHub repository"),
        ("get_pull_request", "Get details of a specific pull request"),
        ("delete_branch", "Deletes a development branch"),
        ("get_branch", "Gets a development branch"),
    ];
    let docs: Vec<FieldDoc> = tools.iter().map(|(n, d)| FieldDoc::new(vec![(Field::Name, (*n).to_owned()), (Field::Description, (*d).to_owned())])).collect();
    let index = EnhancedIndex::build(&docs);
    let top = |q: &str| tools[index.search(q)[0].0 as usize].0;
    assert_eq!(top("Pull up issue 412"), "get_issue");
    assert_eq!(top("Get rid of the preview branch"), "delete_branch");
}
