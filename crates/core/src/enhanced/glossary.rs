//! Common software vocabulary across languages: Chinese, Japanese and Korean words for the
//! things and operations tools are about, with the English words tool names and
//! descriptions use for them.
//!
//! Most catalogs (and every real MCP server we know) describe their tools in English, while
//! users ask in their own language: "ファイルを読んで" shares no unit with `read_file`, and
//! the action lexicon ([`super::action`]) only tells which of a file's siblings is meant. A
//! request's CJK text is scanned for these words (longest first, so 数据库 is a database and
//! not data plus a stray character) and their English words join the query as if the user
//! had typed them ([`super::index`] weighs them). Only general software vocabulary, written
//! from general knowledge: no product, server or tool names. Traditional Chinese needs no
//! entries of its own script: requests and keys are both folded to Simplified ([`normalize`]);
//! where Taiwan's vocabulary differs (资料库 for 数据库, 伺服器 for 服务器), its words are here
//! in their folded form.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::analyzer::normalize;

/// English words, then the words for them in Chinese (Simplified), Japanese and Korean, in any
/// order. A key of one character is too ambiguous to be here (表: table, surface, watch …).
#[rustfmt::skip]
const GLOSSARY: &[(&str, &[&str])] = &[
    // files and code hosting
    ("file", &["文件", "档案", "ファイル", "파일"]),
    // (tools say directory as often as folder)
    ("folder directory", &["资料夹", "文件夹", "フォルダ", "フォルダー", "폴더"]),
    ("directory", &["目录", "ディレクトリ", "ディレクトリー", "디렉터리", "디렉토리"]),
    ("path", &["路径", "パス", "경로"]),
    ("repository", &["储存库", "仓库", "代码库", "存储库", "リポジトリ", "レポジトリ", "저장소", "리포지토리", "레포지토리", "레포"]),
    ("branch", &["分支", "ブランチ", "브랜치"]),
    ("commit", &["提交记录", "コミット", "커밋"]),
    ("issue", &["议题", "工单", "イシュー", "課題", "이슈"]),
    ("pull request", &["拉取请求", "プルリクエスト", "プルリク", "풀 리퀘스트", "풀리퀘스트", "풀리퀘"]),
    ("merge request", &["合并请求", "マージリクエスト", "머지 리퀘스트"]),
    ("code", &["代码", "源代码", "ソースコード", "コード", "소스 코드", "코드"]),
    ("review", &["审查", "审核", "评审", "レビュー", "리뷰", "검토"]),
    ("approve", &["批准", "承认", "承認", "승인"]),
    ("release", &["发行版", "リリース", "릴리스", "릴리즈"]),
    ("tag", &["タグ", "태그"]),
    ("label", &["标签", "ラベル", "라벨", "레이블"]),
    ("milestone", &["里程碑", "マイルストーン", "마일스톤"]),
    ("assignee", &["负责人", "经办人", "担当者", "담당자"]),
    ("fork", &["派生", "フォーク", "포크"]),
    ("star", &["星标", "スター", "스타"]),
    ("version", &["版本", "バージョン", "버전"]),
    ("diff", &["差异", "差分", "차이점"]),
    // documents and content
    ("page", &["页面", "网页", "ページ", "페이지"]),
    ("document", &["文档", "ドキュメント", "文書", "문서"]),
    ("note", &["笔记", "备注", "ノート", "メモ", "노트", "메모"]),
    ("comment", &["评论", "留言", "コメント", "댓글", "코멘트"]),
    ("block", &["区块", "ブロック", "블록"]),
    ("paragraph", &["段落", "문단", "단락"]),
    ("content", &["内容", "本文", "내용", "본문"]),
    ("text", &["文本", "文字", "テキスト", "텍스트"]),
    ("title", &["标题", "タイトル", "見出し", "제목"]),
    ("description", &["描述", "说明", "説明", "설명"]),
    ("workbook", &["工作簿", "活页簿", "ワークブック", "워크북"]),
    ("notebook", &["ノートブック", "노트북"]),
    ("template", &["范本", "模板", "テンプレート", "템플릿"]),
    ("image", &["图片", "图像", "镜像", "画像", "イメージ", "이미지", "사진"]),
    ("video", &["影片", "视频", "動画", "ビデオ", "동영상", "비디오"]),
    ("audio", &["音频", "音声", "オーディオ", "오디오", "음성"]),
    ("markdown", &["マークダウン", "마크다운"]),
    ("summary", &["摘要", "总结", "要約", "요약"]),
    ("translate", &["翻译", "翻訳", "번역"]),
    // data
    ("database", &["资料库", "数据库", "データベース", "데이터베이스"]),
    ("table", &["资料表", "数据表", "表格", "テーブル", "테이블"]),
    ("column", &["列名", "カラム", "컬럼", "열 이름"]),
    ("row", &["行数据", "レコード行", "행 데이터"]),
    ("record", &["纪录", "记录", "レコード", "레코드"]),
    ("data", &["资料", "数据", "データ", "데이터"]),
    ("field", &["栏位", "字段", "フィールド", "필드"]),
    ("property", &["属性", "プロパティ", "속성", "프로퍼티"]),
    ("schema", &["架构", "结构定义", "スキーマ", "스키마"]),
    ("query", &["クエリ", "クエリー", "쿼리"]),
    ("index", &["索引", "インデックス", "인덱스"]),
    ("migration", &["迁移", "マイグレーション", "移行", "마이그레이션"]),
    ("backup", &["备份", "バックアップ", "백업"]),
    ("snapshot", &["快照", "スナップショット", "스냅샷"]),
    ("object", &["对象", "オブジェクト", "객체", "오브젝트"]),
    ("entity", &["实体", "エンティティ", "엔티티"]),
    ("relation", &["关系", "関係", "リレーション", "관계"]),
    ("observation", &["观察", "観察", "관찰"]),
    ("graph", &["图谱", "グラフ", "그래프"]),
    ("memory", &["记忆体", "记忆", "内存", "記憶", "メモリ", "メモリー", "기억", "메모리"]),
    ("type", &["类型", "種類", "タイプ", "유형", "타입", "종류"]),
    ("key", &["金钥", "键值", "キー", "密钥"]),
    ("cache", &["缓存", "キャッシュ", "캐시"]),
    ("queue", &["队列", "キュー", "대기열"]),
    ("topic", &["主题", "トピック", "토픽"]),
    // people and organisations
    ("user", &["用户", "使用者", "ユーザー", "ユーザ", "사용자", "유저"]),
    ("member", &["成员", "メンバー", "멤버", "구성원"]),
    ("team", &["团队", "チーム", "팀원"]),
    ("organization", &["组织", "組織", "조직"]),
    ("workspace", &["工作区", "工作空间", "ワークスペース", "워크스페이스", "작업 공간"]),
    ("project", &["专案", "项目", "プロジェクト", "프로젝트"]),
    ("account", &["帐号", "账户", "账号", "帐户", "アカウント", "계정"]),
    ("contact", &["联系人", "連絡先", "コンタクト", "연락처"]),
    ("company", &["公司", "会社", "企業", "회사", "기업"]),
    ("owner", &["所有者", "オーナー", "所有者", "소유자"]),
    ("role", &["角色", "ロール", "役割", "역할"]),
    ("permission", &["权限", "権限", "パーミッション", "권한"]),
    ("policy", &["策略", "政策", "ポリシー", "정책"]),
    ("profile", &["个人资料", "プロフィール", "프로필"]),
    // commerce
    ("customer", &["客户", "顾客", "顧客", "カスタマー", "고객"]),
    ("payment", &["付款", "支付", "支払い", "支払", "決済", "ペイメント", "결제", "지불"]),
    ("invoice", &["发票", "账单", "請求書", "インボイス", "인보이스", "청구서"]),
    ("refund", &["退款", "返金", "払い戻", "환불"]),
    ("subscription", &["订阅", "サブスクリプション", "サブスク", "購読", "구독"]),
    ("price", &["价格", "定价", "価格", "料金", "値段", "가격", "요금"]),
    ("product", &["产品", "商品", "製品", "プロダクト", "상품", "제품"]),
    ("coupon", &["优惠券", "クーポン", "쿠폰"]),
    ("discount", &["折扣", "割引", "할인"]),
    ("balance", &["余额", "残高", "잔액"]),
    ("deal", &["交易", "商机", "取引", "商談", "거래"]),
    ("order", &["订单", "注文", "주문"]),
    ("plan", &["套餐", "计划", "プラン", "플랜", "요금제"]),
    ("cost", &["费用", "成本", "コスト", "費用", "비용"]),
    ("usage", &["用量", "使用量", "사용량"]),
    // communication
    ("email", &["邮件", "电子邮件", "邮箱", "メール", "電子メール", "이메일", "메일"]),
    ("message", &["讯息", "消息", "メッセージ", "메시지"]),
    ("channel", &["频道", "チャンネル", "チャネル", "채널"]),
    ("thread", &["线程", "スレッド", "스레드"]),
    ("reaction", &["表情回应", "リアクション", "반응"]),
    ("notification", &["通知", "알림"]),
    ("calendar", &["行事历", "日历", "カレンダー", "캘린더", "달력"]),
    ("event", &["事件", "活动", "イベント", "이벤트"]),
    ("meeting", &["会议", "会議", "ミーティング", "회의"]),
    ("schedule", &["排程", "日程", "スケジュール", "予定", "일정", "스케줄"]),
    // browser and UI
    ("browser", &["浏览器", "ブラウザ", "ブラウザー", "브라우저"]),
    ("screenshot", &["萤幕截图", "萤幕快照", "截图", "截屏", "屏幕截图", "スクリーンショット", "スクショ", "스크린샷", "캡처"]),
    ("screen", &["萤幕", "屏幕", "画面", "スクリーン", "화면"]),
    ("tab", &["标签页", "タブ"]),
    ("window", &["视窗", "窗口", "ウィンドウ", "ウインドウ"]),
    ("dialog", &["对话框", "弹窗", "ダイアログ", "대화 상자", "대화상자"]),
    ("button", &["按钮", "ボタン", "버튼"]),
    ("link", &["连结", "链接", "リンク", "링크"]),
    ("url", &["网址", "アドレス", "주소"]),
    ("form", &["表单", "フォーム", "양식"]),
    ("dropdown", &["下拉", "ドロップダウン", "드롭다운"]),
    ("element", &["元素", "要素", "エレメント", "요소"]),
    ("click", &["点击", "单击", "クリック", "클릭"]),
    ("type", &["输入", "入力", "입력"]),
    ("select", &["选择", "選択", "선택"]),
    ("hover", &["悬停", "ホバー", "호버"]),
    ("drag", &["拖动", "拖拽", "ドラッグ", "드래그"]),
    ("navigate", &["导航", "跳转", "ナビゲート"]),
    ("console", &["主控台", "控制台", "コンソール", "콘솔"]),
    ("network", &["网路", "网络", "ネットワーク", "네트워크"]),
    ("request", &["请求", "リクエスト", "요청"]),
    ("response", &["响应", "レスポンス", "応答", "응답"]),
    ("key press", &["按键", "キー入力", "키 입력"]),
    ("upload", &["上传", "アップロード", "업로드"]),
    ("download", &["下载", "ダウンロード", "다운로드"]),
    // operations on things
    ("copy", &["复制", "拷贝", "コピー", "複製", "복사"]),
    ("move", &["移动", "挪到", "移動", "이동", "옮겨"]),
    ("rename", &["重命名", "改名", "名前を変更", "名前変更", "リネーム", "이름 변경", "이름을 바꿔"]),
    ("write", &["写入", "写到", "書き込", "書き出", "書いて", "쓰기", "작성"]),
    ("edit", &["编辑", "編集", "편집"]),
    ("archive", &["归档", "アーカイブ", "보관"]),
    ("restore", &["恢复", "还原", "復元", "リストア", "복원"]),
    ("pause", &["暂停", "一時停止", "중지", "일시 중지", "일시중지"]),
    ("resume", &["继续", "再開", "재개"]),
    ("start", &["启动", "起動", "開始", "시작"]),
    ("stop", &["停止", "止めて", "정지", "멈춰"]),
    ("restart", &["重启", "再起動", "재시작", "재부팅"]),
    ("scale", &["扩容", "缩容", "扩展到", "スケール", "스케일"]),
    ("lock", &["锁定", "ロック", "잠금", "잠가"]),
    ("unlock", &["解锁", "ロック解除", "잠금 해제"]),
    ("cancel", &["取消", "キャンセル", "解約", "취소", "해지"]),
    ("compare", &["比较", "对比", "比較", "비교"]),
    ("validate", &["验证", "校验", "検証", "검증"]),
    ("analyze", &["分析", "분석"]),
    ("report", &["报告", "报表", "レポート", "報告", "보고서", "리포트"]),
    ("statistics", &["统计", "統計", "통계"]),
    ("count", &["数量", "计数", "件数", "개수"]),
    ("status", &["状态", "状態", "ステータス", "상태"]),
    ("details", &["详情", "详细", "詳細", "상세", "세부"]),
    ("information", &["信息", "情報", "정보"]),
    ("history", &["历史", "履歴", "히스토리", "기록"]),
    ("log", &["日志", "ログ", "로그"]),
    ("error", &["错误", "报错", "エラー", "오류", "에러"]),
    ("exception", &["异常", "例外", "예외"]),
    ("alert", &["警示", "告警", "警报", "アラート", "경고"]),
    ("metric", &["指标", "メトリクス", "メトリック", "메트릭", "지표"]),
    ("monitor", &["监控", "監視", "モニタリング", "모니터링"]),
    ("trace", &["追踪", "トレース", "트레이스"]),
    ("performance", &["效能", "性能", "パフォーマンス", "성능"]),
    ("security", &["安全", "セキュリティ", "보안"]),
    ("recommendation", &["建议", "推奨", "アドバイス", "추천", "권장"]),
    ("documentation", &["官方文档", "公式ドキュメント", "공식 문서"]),
    // cloud and infrastructure
    ("server", &["伺服器", "服务器", "サーバー", "サーバ", "서버"]),
    ("service", &["服务", "サービス", "서비스"]),
    ("cluster", &["丛集", "集群", "クラスター", "クラスタ", "클러스터"]),
    ("node", &["节点", "ノード", "노드"]),
    ("container", &["容器", "コンテナ", "コンテナー", "컨테이너"]),
    ("namespace", &["命名空间", "名前空間", "ネームスペース", "네임스페이스"]),
    ("pod", &["ポッド", "파드", "포드"]),
    ("deployment", &["部署", "デプロイ", "デプロイメント", "배포", "디플로이먼트"]),
    ("job", &["作业", "ジョブ"]),
    ("volume", &["存储卷", "ボリューム", "볼륨"]),
    ("context", &["上下文", "コンテキスト", "컨텍스트"]),
    ("virtual machine", &["虚拟机器", "虚拟机", "仮想マシン", "가상 머신", "가상머신"]),
    ("storage", &["存储", "ストレージ", "스토리지"]),
    ("bucket", &["存储桶", "バケット", "버킷"]),
    ("resource group", &["资源群组", "资源组", "リソースグループ", "リソース グループ", "리소스 그룹", "리소스그룹"]),
    ("resource", &["资源", "リソース", "리소스"]),
    ("subscription", &["サブスクリプション"]),
    ("region", &["区域", "地域", "リージョン", "리전", "지역"]),
    ("environment", &["环境", "環境", "환경"]),
    ("environment variable", &["环境变数", "环境变量", "環境変数", "환경 변수", "환경변수"]),
    ("configuration", &["配置", "設定", "構成", "구성", "설정"]),
    ("setting", &["设定", "设置", "設定", "설정"]),
    ("secret", &["机密", "密钥", "シークレット", "秘密", "시크릿", "비밀"]),
    ("password", &["密码", "パスワード", "비밀번호", "암호"]),
    ("certificate", &["证书", "証明書", "인증서"]),
    ("token", &["权杖", "令牌", "トークン", "토큰"]),
    ("credential", &["凭证", "凭据", "凭证", "認証情報", "자격 증명"]),
    ("firewall", &["防火墙", "ファイアウォール", "방화벽"]),
    ("rule", &["规则", "ルール", "규칙"]),
    ("domain", &["网域", "域名", "ドメイン", "도메인"]),
    ("dns", &["域名解析"]),
    ("route", &["路由", "ルート", "라우트"]),
    ("function", &["函式", "函数", "関数", "ファンクション", "함수"]),
    ("worker", &["ワーカー", "워커"]),
    ("script", &["脚本", "スクリプト", "스크립트"]),
    ("workflow", &["工作流", "ワークフロー", "워크플로", "워크플로우"]),
    ("pipeline", &["流水线", "管道", "パイプライン", "파이프라인"]),
    ("build", &["构建", "ビルド", "빌드"]),
    ("test", &["测试", "テスト", "테스트"]),
    ("app", &["应用程式", "应用", "アプリ", "アプリケーション", "앱", "애플리케이션", "어플리케이션"]),
    ("site", &["网站", "站点", "サイト", "ウェブサイト", "사이트", "웹사이트"]),
    ("endpoint", &["端点", "エンドポイント", "엔드포인트"]),
    ("api", &["接口"]),
    ("webhook", &["ウェブフック", "웹훅"]),
    ("extension", &["扩展", "拡張機能", "확장"]),
    ("terminal", &["终端机", "终端", "ターミナル", "터미널"]),
    ("command", &["指令", "命令", "コマンド", "명령"]),
    ("process", &["进程", "プロセス", "프로세스"]),
    ("port", &["连接埠", "端口", "ポート", "포트"]),
    ("variable", &["变数", "变量", "変数", "변수"]),
    ("invocation", &["调用", "呼び出し", "호출"]),
    ("analytics", &["分析数据", "アナリティクス", "애널리틱스"]),
    ("task", &["任务", "タスク", "작업", "태스크"]),
    ("work item", &["工作项", "作業項目", "작업 항목"]),
    ("sprint", &["冲刺", "スプリント", "스프린트"]),
    ("cycle", &["迭代", "周期", "サイクル", "사이클"]),
    ("module", &["模组", "模块", "モジュール", "모듈"]),
    ("worklog", &["工时", "作業ログ", "작업 로그"]),
    ("date", &["日期", "日付", "날짜"]),
    ("time", &["时间", "時間", "時刻", "시간"]),
];

/// Glossary keys (folded as requests are) → their English words; the longest key in characters.
struct Lookup {
    words: FxHashMap<String, Vec<&'static str>>,
    longest: usize,
}

fn lookup() -> &'static Lookup {
    static LOOKUP: OnceLock<Lookup> = OnceLock::new();
    LOOKUP.get_or_init(|| {
        let mut words: FxHashMap<String, Vec<&'static str>> = FxHashMap::default();
        for &(english, keys) in GLOSSARY {
            for key in keys {
                let entry = words.entry(normalize(key)).or_default();
                for word in english.split(' ') {
                    if !entry.contains(&word) {
                        entry.push(word);
                    }
                }
            }
        }
        let longest = words.keys().map(|k| k.chars().count()).max().unwrap_or(0);
        Lookup { words, longest }
    })
}

/// The English words of the glossary entries in `text` (already [`normalize`]d), each once,
/// in text order. At each position the longest key there wins and the scan goes on after
/// it; text without CJK characters has none.
pub fn glossary_words(text: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    if text.is_ascii() {
        return out;
    }
    let lookup = lookup();
    // (char boundaries of the text, so keys are sliced by characters)
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len())).collect();
    let chars = bounds.len() - 1;
    let mut at = 0;
    while at < chars {
        let first = text[bounds[at]..].chars().next().unwrap_or(' ');
        let mut matched = 0;
        // (every key starts with a CJK character)
        if super::analyzer::is_cjk(first) {
            for len in (2..=lookup.longest.min(chars - at)).rev() {
                if let Some(words) = lookup.words.get(&text[bounds[at]..bounds[at + len]]) {
                    for &w in words {
                        if !out.contains(&w) {
                            out.push(w);
                        }
                    }
                    matched = len;
                    break;
                }
            }
        }
        at += matched.max(1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::index::{EnhancedIndex, Field, FieldDoc, Tuning};
    use super::*;

    fn words(request: &str) -> Vec<&'static str> {
        glossary_words(&normalize(request))
    }

    #[test]
    fn finds_vocabulary_in_each_language() {
        assert_eq!(words("帮我读取这个文件"), ["file"]);
        // Traditional Chinese is folded like the keys: 檔案 / 資料庫 as 档案 / 数据库
        assert_eq!(words("把資料庫裡的使用者列出來"), ["database", "user"]);
        assert_eq!(words("このファイルをフォルダーに移動して"), ["file", "folder", "directory", "move"]);
        // Korean particles stay attached; the key is found inside the word
        assert_eq!(words("고객에게 인보이스를 보내 줘"), ["customer", "invoice"]);
        assert_eq!(words("풀 리퀘스트 목록"), ["pull", "request"]);
    }

    #[test]
    fn longest_key_wins() {
        // 数据库 is a database, not data; 文件夹 a folder, not a file
        assert_eq!(words("创建一个数据库"), ["database"]);
        assert_eq!(words("新建文件夹"), ["folder", "directory"]);
        assert_eq!(words("환경 변수를 설정해 줘"), ["environment", "variable", "configuration", "setting"]);
    }

    #[test]
    fn english_and_unknown_text_have_none() {
        assert!(words("read the file in the folder").is_empty());
        assert!(words("今天天气怎么样").is_empty());
        assert!(words("").is_empty());
    }

    /// English-described tools, asked for in Chinese, Japanese and Korean: the request shares
    /// no unit with its tool but for the glossary.
    #[test]
    fn cjk_requests_find_english_tools() {
        let tools = [
            ("read_file", "Read the complete contents of a file from the file system."),
            ("list_directory", "Get a detailed listing of all files and directories in a specified path."),
            ("create_refund", "Refund a payment that was previously charged to a customer."),
            ("list_invoices", "List the invoices of a customer."),
            ("take_screenshot", "Take a screenshot of the current page in the browser."),
            ("create_branch", "Create a new branch in a GitHub repository."),
            ("send_message", "Send a message to a channel."),
        ];
        let docs: Vec<FieldDoc> = tools
            .iter()
            .map(|(id, d)| FieldDoc::new(vec![(Field::Name, (*id).into()), (Field::Description, (*d).into())]))
            .collect();
        let cases = [
            ("帮我读一下 notes.txt 这个文件的内容", "read_file"),
            ("这笔付款全额退款", "create_refund"),
            ("ブラウザで今のページのスクリーンショットを撮って", "take_screenshot"),
            ("acme/api リポジトリに新しいブランチを作って", "create_branch"),
            ("この顧客の請求書を一覧で見せて", "list_invoices"),
            ("src 디렉터리에 뭐가 있는지 보여 줘", "list_directory"),
            ("#general 채널에 메시지 보내 줘", "send_message"),
        ];
        let top = |index: &EnhancedIndex, q: &str| index.search(q).first().map(|&(d, _)| tools[d as usize].0);
        let on = EnhancedIndex::build(&docs);
        // (shapes off too: notes.txt, acme/api and #general would tell without any glossary)
        let off = EnhancedIndex::build_tuned(&docs, Tuning { w_glossary: 0.0, w_shape: 0.0, ..Tuning::default() });
        let right_off = cases.iter().filter(|(q, want)| top(&off, q) == Some(*want)).count();
        assert!(right_off < cases.len() / 2, "{right_off} of {} right without the glossary", cases.len());
        for (q, want) in cases {
            assert_eq!(top(&on, q), Some(want), "{q}");
        }
        // an English request is unchanged
        assert_eq!(on.search("refund the payment"), off.search("refund the payment"));
    }
}
