"""Deterministic classifier: which surface a candidate memory item belongs to.

classify(text) -> {"surface", "topic", "confidence", "signals", "reason"}. Rules and markers only: no
model, no network, no randomness. English and Chinese marker families, plus the shape of the text
(numbered steps, command lines, sequence words, imperative clauses, progressive aspect, questions).
Secrets come from the project's own detector (redaction.find_secrets) and always win.

How a verdict is reached (references/classification.md has the long version):
1. find_secrets finds anything -> "secret".
2. Every family collects the distinct markers and shapes that fired; its score is the sum of their
   weights (3: decides on its own, e.g. TODO or numbered steps; 2: strong; 1-1.5: normal; 0.25-0.5:
   weak). Markers from config.yaml weigh EXTRA_MARKER_WEIGHT (2).
3. "fact" is the default: it starts at 0.75 and gains a little from specifics (versions, paths, ports).
4. The highest score wins; a tie goes to the family earlier in PRECEDENCE.

Stdlib only, Python 3.8. Nothing is compiled at import; the few regexes compile on first use and
marker tables are built once per process (and once per distinct set of extra markers).
"""
import re

SURFACES = ("fact", "decision", "preference", "convention", "todo", "procedure", "ephemeral",
            "speculation", "secret")
# Tie-break order, strongest claim first: a secret must never be stored; a hedge makes anything
# unconfirmed; open work is not a fact even when it states one; a how-to's shape outweighs its
# vocabulary; "right now" dates everything else; then the durable kinds, most specific first.
PRECEDENCE = ("secret", "speculation", "todo", "procedure", "ephemeral", "decision", "convention",
              "preference", "fact")
REFUSED_SURFACES = ("todo", "procedure", "ephemeral", "speculation", "secret")
DURABLE = ("fact", "decision", "convention", "preference")
# The calibrated gate (gate()): refuse when the model (which has the rules' verdict among its
# features) gives the non-durable surfaces together at least GATE_REFUSE where the rules read a
# non-durable surface too, or GATE_OVERRULE where the rules read a durable one (the model alone
# overrules them only when near certain: "Backups run nightly." read as a log line at 0.936).
# GATE_REFUSE is chosen by 5-fold cross-validation on our tune data (evals/tools/train_surface_model.py).
GATE_REFUSE, GATE_OVERRULE = 0.85, 0.97

FACT_BASE = 0.75
EXTRA_MARKER_WEIGHT = 2.0

# Where each surface belongs; the reason line ends with it.
ADVICE = {
    "fact": "a durable project fact: record it in Layer 1",
    "decision": "a decision: record it in Layer 1 with --category decision (add the why)",
    "preference": "a person's preference: record it in Layer 1 with --category preference",
    "convention": "a project rule: record it in Layer 1 with --category convention",
    "todo": "a task, not a fact: track it in the issue tracker or today's daily trail",
    "procedure": "a how-to: put it in docs or a references file, not in memory",
    "ephemeral": "true only right now: leave it in the session, at most today's daily trail",
    "speculation": "unconfirmed: check it, then record it with --inferred",
    "secret": "holds a secret: never store it; keep it in a secret manager",
}

# ---------------------------------------------------------------------------------------------
# Marker families. Each weight maps to "|"-separated markers. ASCII markers match whole words
# (case-insensitive, a phrase is a run of words); markers with CJK characters match as substrings,
# and where two overlap the longer one wins (应该是 over 应该, 待确认 over 确认, 要不要 over 不要).
# Family "-" consumes a phrase so that a shorter marker inside it does not fire (不可能 is no hedge).
_MARKERS = {
    "speculation": {
        2: "probably|maybe|perhaps|possibly|presumably|likely|i think|i guess|i suspect|suspect|my guess|"
           "my hunch|not sure|unsure|unconfirmed|unverified|not confirmed|haven't confirmed|might|"
           "could be|may be|seems|seem|seemed|seems like|looks like|appears to|i believe|hypothesis|"
           "i wonder|would explain|not certain|i'm guessing|chances are|might be|i'd bet|is it possible|"
           "could it be|fairly sure|pretty sure|fairly confident|my theory|"
           "可能|我猜|猜测|也许|或许|大概|好像|似乎|估计|怀疑|应该是|应该会|不确定|说不定|疑似|推测|八成|"
           "貌似|看起来|也有可能|大概率|多半|恐怕|没准|没验证|未验证|还没验证|没确认|未确认|还没确认|"
           "不太确定|感觉是",
        1.5: "我觉得|我认为",
        # "X 可能导致 Y" states a risk (often a rule's reason), not a guess about a cause: weak.
        # "may" alone states a bound or a permission ("builds may take up to 20 minutes"), not a guess.
        1: "could|guess|guessing|theory|suspicion|apparently|seemingly|"
           "感觉|猜|可能导致|可能会导致|可能造成|可能引起",
    },
    "todo": {
        3: "todo|fixme|"
           "待办|待确认|待定|待处理|待修复|待补充|待拍板|待验证|待讨论",
        2: "pending|still need|still needs|remember to|don't forget|do not forget|follow up|next step|"
           "next steps|open question|not yet|yet to|still missing|blocked on|blocked by|to be decided|"
           "tbd|action item|at some point|someday|some day|when we get a chance|still not|still aren't|"
           "still isn't|still don't|still doesn't|still haven't|still hasn't|still can't|not implemented|"
           "unimplemented|not started|unfinished|needs fixing|when there is time|when there's time|"
           "when we have time|when i have time|someone has to|somebody has to|someone needs to|"
           "somebody needs to|someone should|somebody should|"
           "还没|尚未|还需要|需要补|回头|记得|别忘了|下一步|未完成|有空再|以后再|先记下来|还缺|没做|没写|"
           "没修|未实现|待做|抽空|改天|找时间|跟进|排期|提个|确认一下|问一下|有空|有时间",
        1.5: "need to|needs to|has to be|have to be|haven't|hasn't|waiting on|waiting for|we should|"
             "we ought to|"
             "后续|要补|要不要|是否|缺少|等…再|要做|需要找|要找|还差",
        1: "ticket|have to|has to|missing|out of date|outdated|later|yet|eventually|next week|"
           "next sprint|next month|tomorrow|"
           "要重构|再继续|下周|下个月|明天|下个迭代|要把",
        0.5: "一下",
    },
    "procedure": {
        1.5: "how to|steps to|step by step|runbook|to reproduce|walkthrough|checklist|the way to|"
             "步骤|如何|怎么做|操作如下|教程|流程如下|按以下|清单|检查项",
        1: "steps|procedure|instructions|recipe|setup|"
           "流程|方法|操作|办法|做法|如下",
    },
    "ephemeral": {
        2: "right now|at the moment|just now|this morning|this afternoon|this evening|tonight|today|"
           "temporarily|for now|in the middle of|currently running|still running|as we speak|"
           "for the moment|at present|this session|this week|halfway through|partway through|working on|"
           "i'm working|at the minute|minutes ago|an hour ago|hours ago|yesterday|last night|i just|"
           "we just|just pushed|just merged|"
           "刚才|刚刚|正在|此刻|这会儿|临时|暂时|今天|今晚|今早|今天下午|这次会话|本次会话|眼下|"
           "还在|昨天|我先去|挂了|一会儿|稍等|等一下|稍后",
        # "now" and 已经 alone mark a changed fact ("requests now time out after 800 ms"), not a moment.
        1: "currently|still|temporary|at this point|in progress|my laptop|my machine|keeps|ago|wip|"
           "目前|这次|当前|晚点|这周|马上|刚|连不上|现在",
    },
    "decision": {
        2: "we decided|decided to|decided that|decided against|it was decided|decision|we chose|chose|"
           "chosen|we picked|picked over|was picked|agreed to|agreed that|we agreed|agreed with|"
           "settled on|going with|go with|went with|opted to|opted for|concluded that|we switched|"
           "switched from|switched to|we rejected|rejected|ruled out|we'll use|we will use|voted|"
           "in favour of|in favor of|final call|we've decided|has been decided|decided|consensus|"
           "we adopted|we selected|we're dropping|we are dropping|we dropped|we're keeping|"
           "standardizing on|standardising on|standardize on|standardise on|standardized on|it's settled|"
           "we voted|"
           "决定|决议|选定|选用|拍板|敲定|定了|确定采用|确定用|改用|一致同意|最后选|最终选|最终方案|"
           "放弃了|不再支持|不再使用|定下来|定下了|拍了板|选了|选型|决策|共识|达成一致|定为|弃用|淘汰|"
           "评审通过|审批通过|投票",
        1.5: "going forward|from now on|instead of|rather than|moving to|migrated to|settled|"
             "同意|换成|替代|取代|采用|从现在起|今后|以后都|换用|迁移到|不用|不再用",
        1: "approved|signed off|over|accepted|adopt|adopted|the plan is|we'll|we will|"
           "生效|选择|确认过|确定|商量后|讨论后|评审后|最终|改成|而不是|放弃",
    },
    "convention": {
        2: "always|never|must|must not|mustn't|do not|should not|shouldn't|not allowed|forbidden|"
           "no exceptions|by convention|the convention|is required|are required|required to|follow the|"
           "follows the|at all times|under no circumstances|mandatory|the rule is|only ever|"
           "is expected to|are expected to|"
           "必须|不得|禁止|一律|统一|规范|约定|都应该|应当|务必|不允许|不准|不能|严禁|一定要|都得|强制|"
           "原则上|只允许|不可以|硬编码",
        1.5: "should|convention|conventional|follow|follows|naming|named|prefixed|suffixed|camelcase|"
             "pascalcase|snake_case|kebab case|per file|one per|standard|policy|rule|rules|goes through|"
             "go through|"
             "不要|应该|命名|都要|都走|才能|至少要|要同步|都用|要求|规则|结尾|开头|前缀|后缀",
        1: "every|each|need|needs|don't|avoid|only use|prefix|suffix|"
           "每个|所有|只能|需要|一般",
    },
    "preference": {
        2: "i prefer|i like|i love|i hate|i dislike|i don't like|i'd rather|i would rather|i want|"
           "i'd like|i would like|i find|i'm more comfortable|i am more comfortable|my preference|"
           "prefers|prefer|likes|the user wants|personally|for me|to me|i'd prefer|not a fan|i enjoy|"
           "i can't stand|how i like|i tend to|i usually|i always|i never|the user likes|would rather|"
           "would prefer|"
           "我喜欢|喜欢|不喜欢|偏好|习惯|倾向|讨厌|希望|更愿意|宁愿|宁可|我个人|我不需要|我看着|我没耐心|"
           "更喜欢|我爱|我一般|我通常|我总是|我想要|别给我|看不懂|看不惯|受不了",
        1: "please|my behalf|asking me|give me|show me|tell me|remind me|send me|"
           "请|给我|尽量|就行|个人|我比较",
        0.5: "my|me",
    },
    "fact": {
        0.25: "uses|is|are|runs on|lives in|live in|stored in|kept in|located|owns|defaults to|based on|"
              "built with|served by|managed with|"
              "是|使用|基于|位于|存放|默认|用的是|包含|跑在|由",
    },
    "-": {
        0: "不可能|可能性|尽可能|命名空间",
    },
}

# Topic families: the first family with the most hits names the topic; none -> "general".
_TOPICS = (
    ("testing", "test|tests|testing|pytest|unittest|jest|vitest|coverage|fixture|fixtures|mock|mocks|"
                "flaky|e2e|测试|单测|用例|覆盖率"),
    ("deploy", "deploy|deploys|deployed|deploying|deployment|release|releases|releasing|staging|"
               "production|prod|rollout|rollback|helm|kubectl|k8s|kubernetes|k3s|nginx|caddy|cdn|"
               "certificate|certificates|tag|部署|发布|上线|回滚|灰度|生产|运维|证书|打包"),
    ("ci", "ci|pipeline|pipelines|github actions|jenkins|gitlab runner|runner|流水线"),
    ("database", "database|databases|db|postgres|postgresql|mysql|sqlite|mongodb|migration|migrations|"
                 "alembic|sql|schema|table|tables|query|clickhouse|orm|transactions|"
                 "数据库|表名|迁移|慢查询|"
                 "主键|字段|从库|生产库|读写分离"),
    ("api", "api|apis|endpoint|endpoints|rest|graphql|grpc|http|webhook|webhooks|gateway|"
            "接口|请求|网关"),
    ("style", "lint|linter|format|formatting|prettier|black|ruff|eslint|naming|camelcase|pascalcase|"
              "snake_case|indent|indentation|tabs|spaces|docstring|docstrings|comments|emoji|emojis|"
              "spelling|type hints|f-strings|命名|格式|缩进|注释|代码风格|魔法数字|常量"),
    ("architecture", "architecture|service|services|module|modules|microservice|microservices|"
                     "monolith|layer|layers|queue|monorepo|架构|模块|服务|微服务|拆分|分层|队列|子项目"),
    ("workflow", "git|branch|branches|commit|commits|pr|prs|pull request|merge|merged|rebase|review|"
                 "squash|main|分支|提交|合并|评审|代码审查"),
    ("dependencies", "dependency|dependencies|pnpm|npm|yarn|pip|poetry|package|packages|lockfile|"
                     "依赖"),
    ("security", "secret|secrets|token|tokens|password|passwords|credential|credentials|auth|"
                 "authentication|jwt|permission|permissions|signing key|密码|密钥|令牌|权限|认证|口令"),
    ("frontend", "react|vue|css|component|components|ui|page|safari|browser|frontend|前端|组件|页面|"
                 "样式"),
    ("performance", "performance|latency|slow|leak|timeout|timeouts|cache|caching|benchmark|性能|延迟|"
                    "超时|缓存|内存|压测"),
    ("observability", "log|logs|logging|metrics|monitoring|loki|sentry|grafana|alert|alerts|"
                      "日志|监控|告警|埋点|指标"),
    ("docs", "docs|documentation|readme|changelog|文档"),
    ("communication", "answer|answers|explanation|explanations|explain|recap|summary|回答|解释|结论|周报"),
)

# Words that start an imperative clause in a how-to.
_IMPERATIVE = set(
    "run|install|open|click|restart|stop|start|create|copy|add|set|export|generate|upload|wait|"
    "remove|delete|merge|push|pull|tag|bump|build|deploy|check|apply|switch|fix|rerun|restore|"
    "translate|register|drain|attach|enable|disable|configure|update|clone|checkout|edit|replace|"
    "rebuild|reset|verify|select|scale|commit|approve|download|login|log|type|go|navigate|"
    "execute|compile|publish|rotate|revoke|paste|rename|move|upgrade|downgrade|init|kill|tick|"
    "uncheck|enter|fill|sign|press|drag|choose|visit|import|save|close|delete|invite|grant".split("|"))
_IMPERATIVE_ZH = ("运行", "执行", "安装", "打开", "点击", "重启", "停止", "启动", "创建", "复制", "添加",
                  "设置", "导入", "导出", "生成", "上传", "等待", "删除", "合并", "推送", "拉取", "构建",
                  "部署", "检查", "切换", "修改", "注册", "翻译", "定义", "实现", "选择", "观察", "清空",
                  "提交", "提单", "申请", "跑", "配置", "更新", "找", "打", "填写", "登录", "下载", "编辑",
                  "进入", "输入", "确认", "回滚", "备份", "恢复", "杀掉", "清理", "分析", "查看", "勾选",
                  "取消", "保存", "关闭", "拖", "填", "访问", "授权", "邀请", "核对", "通知", "记录")
# A single imperative sentence starting with one of these states a rule: "Use X instead of Y".
_RULE_VERBS = frozenset("use|avoid|keep|put|name|place|store|wrap|return|prefix|pin|prefer|"
                        "validate|log|declare|import|call|handle".split("|"))
# ... and one starting with one of these asks for a piece of work: "Add a metric for queue depth".
_TASK_VERBS = frozenset("add|ask|fix|implement|refactor|migrate|investigate|remove|clean|find|look|"
                        "write|update|document|delete|rename|upgrade|replace|finish|ping|email|"
                        "contact|review|profile|measure|benchmark".split("|"))
_CONNECTIVES_EN = ("first", "then", "next", "finally", "afterwards", "after that", "lastly")
_CONNECTIVES_ZH = ("首先", "然后", "接着", "最后", "之后", "随后", "再", "先")
_COMMANDS = set(
    "git|npm|pnpm|yarn|npx|pip|pip3|python|python3|make|docker|docker-compose|kubectl|helm|cargo|go|"
    "mvn|gradle|terraform|curl|wget|ssh|scp|bash|sh|alembic|pytest|coverage|mkcert|brew|apt|apt-get|"
    "poetry|uv|node|export|cd|rm|cp|mv|chmod|sudo|systemctl|pre-commit|pyenv|bundle|composer|dotnet|"
    "flutter|psql|mysql|redis-cli|aws|gcloud|az|tox|nox|ruff|black|eslint|tsc|deno|bun|rustup|"
    "ansible|vagrant|gh".split("|"))

# Words skipped before phrase matching: "I really don't like" is "I don't like".
_ADVERBS = frozenset("really|actually|strongly|definitely|truly|honestly|quite|also|generally".split("|"))
# A command word followed by one of these is prose: "Docker is restarting", "make the page".
_PROSE_WORDS = frozenset("is|are|was|were|has|have|had|the|a|an|and|will|can|should|must|runs|uses|to|"
                         "on|in|for|of|it|we|i|that|this|which|keeps|seems|sure".split("|"))

_CLAUSE_SEP = {ord(c): "\n" for c in ",，;；：、"}
_AUX = frozenset("am|is|are|was|were|i'm|we're|they're|you're|it's|he's|she's".split("|"))

_word_rx = []
_rx = {}


def _re(name):
    """The one structural regex beyond the word splitter, compiled only when a text has 步."""
    rx = _rx.get(name)
    if rx is None:
        rx = _rx[name] = re.compile({"zh_step": r"第([一二三四五六七八九十\d]{1,2})步"}[name])
    return rx


_LIST_BEFORE = frozenset(" \t\n:：，,;；(（")
_LIST_AFTER = frozenset(".)）、")


def _list_numbers(text):
    """Numbers used as list items: "1." "2)" "(3)" "4、" at the start or after a space, a colon or a
    comma, and not followed by an ASCII letter or digit (so "Python 3.8" and "v2.0" are not items)."""
    found, i, n = set(), 0, len(text)
    while i < n:
        if text[i].isdigit() and (i == 0 or text[i - 1] in _LIST_BEFORE):
            j = i + 1
            if j < n and text[j].isdigit():
                j += 1
            after = text[j + 1:j + 2]
            if j < n and text[j] in _LIST_AFTER and not (after.isascii() and after.isalnum()):
                found.add(text[i:j])
            i = j
        else:
            i += 1
    return found


def _words(low):
    """Lower-case words of a text: letters, digits, "_" and one apostrophe (don't, we're)."""
    if not _word_rx:
        _word_rx.append(re.compile(r"[a-z0-9_]+(?:'[a-z]+)?"))
    return [w for w in _word_rx[0].findall(low) if w not in _ADVERBS]


_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_' ")


def _norm_marker(marker):
    """A marker as the text will be seen: ASCII markers as space-joined words, CJK as they are."""
    marker = marker.strip().lower().replace("\u2019", "'")
    if not marker.isascii():
        return marker
    if _PLAIN.issuperset(marker) and "'" not in marker:
        return " ".join(marker.split())  # the common case, without the regex
    return " ".join(_words(marker))


class _Lexicon(object):
    """Marker tables, built once per process and set of extra markers. ASCII markers are looked up
    as word n-grams (longest first), CJK markers as substrings (longest wins an overlap)."""

    def __init__(self, extra):
        ascii_, cjk = {}, []
        # Built-in markers are written normalized already (a test checks it); extras are not.
        tables = [(family, float(w), markers.split("|")) for family, by_weight in _MARKERS.items()
                  for w, markers in by_weight.items()]
        tables += [(family, EXTRA_MARKER_WEIGHT, [_norm_marker(m) for m in markers])
                   for family, markers in (extra or {}).items()]
        for family, weight, markers in tables:
            pair = (family, weight)
            for key in markers:
                if not key:
                    continue
                if key.isascii():
                    old = ascii_.get(key)
                    ascii_[key] = (pair,) if old is None else old + (pair,)
                else:
                    cjk.append((key, family, weight))
        cjk.sort(key=lambda e: -len(e[0]))
        self.ascii = ascii_    # "we decided" -> ((family, weight), ...)
        self.cjk = cjk         # (marker, family, weight), longest first
        self.firsts = {k.partition(" ")[0] for k in ascii_}
        self.longest = 1 + max(k.count(" ") for k in ascii_)


_lexicons = {}


def _lexicon(extra):
    key = tuple(sorted((f, tuple(m)) for f, m in (extra or {}).items()))
    lex = _lexicons.get(key)
    if lex is None:
        if len(_lexicons) > 16:
            _lexicons.clear()
        lex = _lexicons[key] = _Lexicon(extra)
    return lex


def load_extra_markers(config, notes=None):
    """{surface: [marker, ...]} from a parsed config.yaml: classifier: {markers: {surface: [...]}}.
    Unknown surfaces, "secret" (the detector decides secrets; see secrets.extra_patterns) and
    non-text entries are left out; when notes is a list, a line says what was ignored."""
    section = config.get("classifier") if isinstance(config, dict) else None
    markers = section.get("markers") if isinstance(section, dict) else None
    if not isinstance(markers, dict):
        if section is not None and notes is not None:
            notes.append("config.yaml classifier ignored: expected classifier: {markers: {surface: [...]}}")
        return {}
    out = {}
    for surface, entries in markers.items():
        if surface not in SURFACES or surface == "secret":
            if notes is not None:
                notes.append("config.yaml classifier.markers.%s ignored: %s" % (
                    surface, "secrets come from the detector (secrets.extra_patterns)"
                    if surface == "secret" else "not a surface (%s)" % ", ".join(SURFACES[:-1])))
            continue
        if isinstance(entries, str):
            entries = [entries]
        if not isinstance(entries, (list, tuple)):
            if notes is not None:
                notes.append("config.yaml classifier.markers.%s ignored: expected a list" % surface)
            continue
        kept = [e.strip() for e in entries if isinstance(e, str) and e.strip()]
        if len(kept) != len(entries) and notes is not None:
            notes.append("config.yaml classifier.markers.%s: non-text entries ignored" % surface)
        if kept:
            out[surface] = kept
    return out


# ---------------------------------------------------------------------------------------------
# Matching.

def _lexical_hits(low, words, lex, hits):
    i, n = 0, len(words)
    while i < n:
        step = 1
        if words[i] in lex.firsts:
            for size in range(min(lex.longest, n - i), 0, -1):
                found = lex.ascii.get(" ".join(words[i:i + size]))
                if found:
                    key = " ".join(words[i:i + size])
                    hits.extend((family, weight, key) for family, weight in found)
                    step = size
                    break
        i += step
    taken = []
    for marker, family, weight in lex.cjk:
        if "…" in marker:  # "等…再": the second part somewhere after the first
            head, _, tail = marker.partition("…")
            at = low.find(head)
            if at >= 0 and low.find(tail, at + len(head)) >= 0:
                hits.append((family, weight, marker))
            continue
        start = low.find(marker)
        while start >= 0:
            end = start + len(marker)
            if not any(s < end and start < e for s, e in taken):
                taken.append((start, end))
                hits.append((family, weight, marker))
            start = low.find(marker, end)


def _clause_head(clause):
    clause = clause.strip(" \t`'\"*-•>$")
    if clause[:1].isdigit() or "\u2460" <= clause[:1] <= "\u2468":  # 1. / 2) / ①
        clause = clause.lstrip("0123456789\u2460\u2461\u2462\u2463\u2464\u2465\u2466\u2467\u2468")
        clause = clause.lstrip(".)）、 \t")
    for c in _CONNECTIVES_ZH + ("并", "and "):
        if clause.startswith(c):
            clause = clause[len(c):].lstrip()
    return clause


def _is_command(line):
    parts = _clause_head(line).split()
    return (len(parts) >= 2 and parts[0].lower() in _COMMANDS and parts[1][:1] not in ",.;:"
            and parts[1].lower() not in _PROSE_WORDS)


def _heading(low):
    """A how-to title: "To release:", "How to ...:", "Setting up X:", "发布流程：", "处理办法："."""
    first = low.split("\n", 1)[0]
    for colon in (":", "："):
        at = first.find(colon)
        if 0 < at <= 80:
            head = first[:at].strip()
            if head.endswith(("步骤", "流程", "方法", "办法", "做法", "操作")) and len(head) <= 24:
                return True
            parts = head.split()
            if parts and (parts[0] == "how" and parts[1:2] == ["to"] or parts[0] == "to" and len(parts) > 1
                          or len(parts[0]) > 4 and parts[0].endswith("ing")):
                return True
    return False


def _shape_hits(text, low, words, hits):
    """Structure: numbered steps, commands, sequence words, imperative clauses, tense, questions."""
    if any(c.isdigit() or "\u2460" <= c <= "\u2468" for c in text):
        nums = _list_numbers(text)
        nums.update(c for c in text if "\u2460" <= c <= "\u2468")  # ① ② ③
        if len(nums) >= 2:
            hits.append(("procedure", 3.0, "numbered steps"))
        hits.append(("fact", 0.25, "specifics"))
    elif "/" in text:
        hits.append(("fact", 0.25, "specifics"))
    if "步" in text and len(set(_re("zh_step").findall(text))) >= 2:
        hits.append(("procedure", 3.0, "numbered steps"))
    # Commands: `code spans`, command lines, && chains.
    commands = 0
    if "`" in text:
        for span in text.split("`")[1:-1:2]:
            span = span.strip()
            if span and (" " in span or ":" in span or span.split()[0].lower() in _COMMANDS):
                commands += 1
    for line in text.split("\n"):
        for part in line.split("&&"):
            if _is_command(part):
                commands += 1
    if commands:
        hits.append(("procedure", min(3.0, float(commands)),
                     "command line" if commands == 1 else "command sequence"))
    # Sequence words.
    seq = sum(words.count(c) for c in _CONNECTIVES_EN) + low.count("after that")
    if not low.isascii():
        zh = low.replace("不再", "")  # "no longer", not "again/then"
        seq += sum(zh.count(c) for c in _CONNECTIVES_ZH)
    if seq:
        hits.append(("procedure", min(2.25, 0.75 * seq), "sequence words"))
    # Imperative clauses: a how-to is a run of them; a single one is a rule or a task.
    split = low.replace("&&", "\n").replace(": ", "\n").replace(" and ", "\n").replace(" then ", "\n")
    imperative = 0
    for clause in split.translate(_CLAUSE_SEP).split("\n"):
        head = _clause_head(clause)
        first = head.split(" ", 1)[0] if head else ""
        if first in _IMPERATIVE or (first and not first.isascii() and head.startswith(_IMPERATIVE_ZH)):
            imperative += 1
    first = words[0] if words and low[:1].isascii() else ""
    if imperative >= 2:
        hits.append(("procedure", min(3.0, float(imperative - 1)), "imperative clauses"))
    elif first in _RULE_VERBS:
        hits.append(("convention", 1.0, "imperative rule"))
    elif first in _TASK_VERBS:
        hits.append(("todo", 1.0, "imperative task"))
    if _heading(low):
        hits.append(("procedure", 1.0, "how-to heading"))
    # Tense: "is running" (progressive), a sentence-final 了 (a change that just happened).
    for i, word in enumerate(words):
        if word in _AUX:
            nxt = [w for w in words[i + 1:i + 4] if w not in ("still", "now", "re", "not")][:1]
            if nxt and len(nxt[0]) > 4 and nxt[0].endswith("ing"):
                hits.append(("ephemeral", 1.0, "progressive aspect"))
                break
    if "了" in text and text.rstrip(" \t\n。！!.…~").endswith("了"):
        hits.append(("ephemeral", 1.0, "sentence-final 了"))
    # Open work: a question, "needs fixing".
    if "?" in text or "？" in text or "吗" in text:
        hits.append(("todo", 1.0, "open question"))
    for i in range(len(words) - 1):
        if words[i] in ("need", "needs") and len(words[i + 1]) > 5 and words[i + 1].endswith("ing"):
            hits.append(("todo", 1.5, "needs doing"))
            break


_topic_table = []


def _topic(low, words):
    if not _topic_table:
        for name, keys in _TOPICS:
            keys = [_norm_marker(k) for k in keys.split("|")]  # "f-strings" -> "f strings"
            _topic_table.append((name, frozenset(k for k in keys if k.isascii() and " " not in k),
                                 tuple(k for k in keys if not k.isascii() or " " in k)))
    wordset = set(words)
    joined = " " + " ".join(words) + " "
    best, best_n = "general", 0
    for name, single, other in _topic_table:
        n = len(single & wordset)
        for key in other:
            n += (key in low) if not key.isascii() else ((" " + key + " ") in joined)
        if n > best_n:
            best, best_n = name, n
    return best


def _confidence(surface, scores, fired):
    """0-1: how strong the winner is and how far ahead of the runner-up."""
    if surface == "fact":
        rivals = sum(1 for s, v in scores.items() if s != "fact" and v > 0)
        own = sum(1 for f in fired if f[0] == "fact")
        return max(0.3, min(0.7, 0.5 + 0.05 * min(own, 3) - 0.1 * rivals))
    top = scores[surface]
    # The fact baseline is no evidence; only what fact markers added to it competes.
    second = max([v - FACT_BASE if s == "fact" else v for s, v in scores.items() if s != surface])
    strength = min(1.0, top / 4.0)
    margin = max(0.0, (top - second) / top) if top else 0.0
    return min(0.99, 0.35 + 0.35 * strength + 0.29 * margin)


def classify(text, extra_markers=None, secret_patterns=()):
    """Classify one candidate memory item; see the module docstring. Raises ValueError when text is
    not a string or is empty after stripping (there is nothing to classify). extra_markers:
    {surface: [marker, ...]} (see load_extra_markers), each worth EXTRA_MARKER_WEIGHT.
    secret_patterns: (kind, regex) pairs from config.yaml secrets.extra_patterns."""
    if not isinstance(text, str):
        raise ValueError("text must be a string, not %s" % type(text).__name__)
    text = text.strip()
    if not text:
        raise ValueError("text is empty: nothing to classify")
    from .redaction import find_secrets
    findings = find_secrets(text, secret_patterns or ())
    low = text.lower().replace("\u2019", "'")
    if findings:
        kinds = list(dict.fromkeys(f.kind for f in findings))
        return {"surface": "secret", "topic": "security", "confidence": 0.99,
                "signals": ["secret:" + k for k in kinds],
                "reason": "secret (%s): %s" % (", ".join(kinds[:3]), ADVICE["secret"])}
    hits = []
    words = _words(low)
    _lexical_hits(low, words, _lexicon(extra_markers), hits)
    _shape_hits(text, low, words, hits)
    scores = dict.fromkeys(SURFACES[:-1], 0.0)
    scores["fact"] = FACT_BASE
    fired, seen = [], set()
    for family, weight, marker in hits:
        if family == "-" or (family, marker) in seen:
            continue
        seen.add((family, marker))
        fired.append((family, marker))
        scores[family] += weight
    scores["fact"] = min(scores["fact"], FACT_BASE + 0.25)
    surface = max(scores, key=lambda s: (scores[s], -PRECEDENCE.index(s)))
    # The winner's signals first, then the rest in the order they fired.
    fired.sort(key=lambda f: f[0] != surface)
    signals = ["%s:%s" % f for f in fired]
    own = [m for f, m in fired if f == surface]
    why = ", ".join(own[:3]) if own else "no other family fired"
    return {"surface": surface, "topic": _topic(low, words),
            "confidence": round(_confidence(surface, scores, fired), 2), "signals": signals,
            "reason": "%s (%s): %s" % (surface, why, ADVICE[surface])}


def gate_outcome(rule_surface, probs, refuse_at=None, overrule_at=None):
    """(refuse, surface shown, looks_like, non-durable probability) of the gate, from the rules'
    surface and the model's probabilities (None without a model). The model's non-durable
    probability is held against the threshold that fits the rules' reading: GATE_REFUSE when they
    read a non-durable surface, else GATE_OVERRULE. A refusal is named by the model's likeliest
    non-durable surface, which cross-validated better; a recorded text keeps a durable surface and
    says what the rules read."""
    if rule_surface == "secret":
        return True, "secret", "secret", None
    if probs is None:  # no model shipped: the rules alone, as before
        return rule_surface not in DURABLE, rule_surface, rule_surface, None
    other = dict((k, p) for k, p in probs.items() if k not in DURABLE and k != "secret")
    p_other = sum(other.values())
    durable_reading = rule_surface in DURABLE
    if durable_reading:
        at = GATE_OVERRULE if overrule_at is None else overrule_at
    else:
        at = GATE_REFUSE if refuse_at is None else refuse_at
    if p_other >= at:
        looks = max(other, key=other.get)
        return True, looks, looks, p_other
    if durable_reading:
        return False, rule_surface, rule_surface, p_other
    durable = dict((k, p) for k, p in probs.items() if k in DURABLE)
    return False, max(durable, key=durable.get), rule_surface, p_other


def gate(text, extra_markers=None, secret_patterns=(), model=None):
    """The surface gate of record: classify()'s verdict plus "refuse" (bool) and "looks_like". A
    todo, procedure, ephemeral or speculation is refused only when the learned model
    (surface_model.py, which weighs the rules' verdict too) is confident (gate_outcome); otherwise
    the text is recorded and the caller says what it looks like. A secret is always refused."""
    verdict = classify(text, extra_markers, secret_patterns)
    probs = None
    if verdict["surface"] != "secret":
        from . import surface_model
        probs = surface_model.predict(text, model, rule_surface=verdict["surface"])[0]
    refuse, surface, looks, p_other = gate_outcome(verdict["surface"], probs)
    out = dict(verdict, surface=surface, refuse=refuse, looks_like=looks)
    if p_other is not None:
        out["model_confidence"] = round(p_other, 3)
    return out
