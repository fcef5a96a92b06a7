"""Tests for scripts/memory_core/classification.py and scripts/classify_memory.py.

The labelled set is evals/fixtures/classification.jsonl: {"text", "surface", "lang"} per line, half
Chinese, every surface. Its secrets are random strings generated once for this file; none was ever
a real credential. Tokens built in this test are assembled from pieces (see _tok), as in
test_redaction.py. references/classification.md says how the set was written and measured.
"""
import json
import time
import unittest

import _support
from memory_core.classification import (PRECEDENCE, SURFACES, _MARKERS, _norm_marker, classify, gate,
                                        load_extra_markers)
from memory_core.paths import topic_error
from memory_core.redaction import find_secrets

FIXTURE = _support.REPO / "evals" / "fixtures" / "classification.jsonl"
ALNUM = "q8Zt3vLp0XmR7cWk2NbY5hGd9FjS4aUe1TyQ6oIr8PzK3wMx0VnB7sDl2CgH5fJ4bE6nA9uV1iO7kT3rY5eW8"
MIN_MACRO_F1 = 0.90


def _tok(*parts):
    return "".join(parts)


# Secret-looking items are stored with "{{}}" inside each long token, so no repository secret scanner
# (or push protection) flags the fixture; loading removes it.
SPLIT_MARK = "{{}}"


def load_fixture():
    with open(str(FIXTURE), encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    for row in rows:
        row["text"] = row["text"].replace(SPLIT_MARK, "")
    return rows


def f1_by_surface(pairs):
    """{surface: F1} from (gold, predicted) pairs."""
    out = {}
    for s in SURFACES:
        tp = sum(1 for g, p in pairs if g == s and p == s)
        fp = sum(1 for g, p in pairs if g != s and p == s)
        fn = sum(1 for g, p in pairs if g == s and p != s)
        precision = tp / float(tp + fp) if tp + fp else 0.0
        recall = tp / float(tp + fn) if tp + fn else 0.0
        out[s] = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return out


def macro(f1s):
    return sum(f1s.values()) / len(f1s)


class FixtureTest(unittest.TestCase):
    """The labelled set itself: big enough, bilingual, every surface, secrets consistent."""

    def test_shape(self):
        items = load_fixture()
        self.assertGreaterEqual(len(items), 240)
        self.assertGreaterEqual(sum(1 for i in items if i["lang"] == "zh") * 2, len(items))
        self.assertEqual(len({i["text"] for i in items}), len(items), "duplicate texts")
        for item in items:
            self.assertEqual(set(item), {"text", "surface", "lang"}, item)
            self.assertIn(item["surface"], SURFACES)
            self.assertIn(item["lang"], ("en", "zh"))
        for surface in SURFACES:
            self.assertGreaterEqual(sum(1 for i in items if i["surface"] == surface), 20, surface)

    def test_languages_are_labelled(self):
        # An English item holds no Chinese; a Chinese item may be a bare command list from a
        # Chinese session (one is), but nearly all hold Chinese text.
        bare = []
        for item in load_fixture():
            has_cjk = any("\u4e00" <= c <= "\u9fff" for c in item["text"])
            if item["lang"] == "en":
                self.assertFalse(has_cjk, item["text"])
            elif not has_cjk:
                bare.append(item["text"])
        self.assertLessEqual(len(bare), 2, bare)


class AccuracyTest(unittest.TestCase):
    """Macro-F1 over the labelled set, overall and per language; per-surface F1 reported."""

    @classmethod
    def setUpClass(cls):
        cls.items = load_fixture()
        started = time.perf_counter()
        cls.results = [classify(i["text"]) for i in cls.items]
        cls.ms_per_item = (time.perf_counter() - started) * 1000.0 / len(cls.items)

    def pairs(self, lang=None):
        return [(i["surface"], r["surface"]) for i, r in zip(self.items, self.results)
                if lang is None or i["lang"] == lang]

    def test_macro_f1_overall(self):
        f1s = f1_by_surface(self.pairs())
        _support.report_metric("classification macro-F1", "%.3f (%d items)" % (macro(f1s), len(self.items)))
        _support.report_metric("classification F1 per surface",
                               ", ".join("%s %.2f" % (s, f1s[s]) for s in SURFACES))
        misses = ["%s -> %s: %s" % (i["surface"], r["surface"], i["text"][:70])
                  for i, r in zip(self.items, self.results) if i["surface"] != r["surface"]]
        self.assertGreaterEqual(macro(f1s), MIN_MACRO_F1, "\n".join(misses))
        for surface, value in f1s.items():
            self.assertGreaterEqual(value, 0.8, "%s collapsed:\n%s" % (surface, "\n".join(misses)))

    def test_macro_f1_per_language(self):
        for lang in ("en", "zh"):
            value = macro(f1_by_surface(self.pairs(lang)))
            _support.report_metric("classification macro-F1 %s" % lang, "%.3f" % value)
            self.assertGreaterEqual(value, MIN_MACRO_F1, lang)

    def test_speed(self):
        _support.report_metric("classification ms per item (warm)", "%.3f" % self.ms_per_item)
        self.assertLess(self.ms_per_item, 5.0)

    def test_secret_label_matches_the_detector(self):
        self.assertTrue(self.items and len(self.items) == len(self.results))
        self.assertTrue([r for r in self.results if r["surface"] == "secret"])
        for item, result in zip(self.items, self.results):
            self.assertEqual(bool(find_secrets(item["text"])), result["surface"] == "secret", item["text"])


class ResultShapeTest(unittest.TestCase):
    def assertValid(self, result):
        self.assertEqual(set(result), {"surface", "topic", "confidence", "signals", "reason"})
        self.assertIn(result["surface"], SURFACES)
        self.assertIsNone(topic_error(result["topic"]), result["topic"])
        self.assertIsInstance(result["confidence"], float)
        self.assertTrue(0.0 <= result["confidence"] <= 1.0)
        self.assertEqual(result["confidence"], round(result["confidence"], 2))
        self.assertIsInstance(result["signals"], list)
        for signal in result["signals"]:
            family, _, marker = signal.partition(":")
            self.assertIn(family, SURFACES, signal)
            self.assertTrue(marker, signal)
        self.assertIsInstance(result["reason"], str)
        self.assertTrue(result["reason"].strip())
        self.assertNotIn("\n", result["reason"])

    def test_every_fixture_result_is_valid(self):
        items = load_fixture()
        self.assertGreater(len(items), 100)
        for item in items:
            self.assertValid(classify(item["text"]))

    def test_odd_inputs(self):
        for text in ("x", "?", "1. 2.", "`", "了", "\u2460\u2461", "a" * 5000, "不可能", "TODO",
                     "ls\nls -la\n", "我" * 3000, "we're", "needs", "：：：", "\ud7ff"):
            self.assertValid(classify(text))

    def test_surfaces_and_precedence_cover_each_other(self):
        self.assertEqual(set(SURFACES), set(PRECEDENCE))
        self.assertEqual(PRECEDENCE[0], "secret")
        self.assertEqual(PRECEDENCE[-1], "fact")

    def test_builtin_markers_are_normalized(self):
        # The lexicon uses built-in markers as written; they must look like the text will.
        for family, by_weight in _MARKERS.items():
            for markers in by_weight.values():
                for marker in markers.split("|"):
                    self.assertEqual(_norm_marker(marker), marker, (family, marker))


class BehaviourTest(unittest.TestCase):
    def test_deterministic(self):
        for item in load_fixture()[::7]:
            self.assertEqual(classify(item["text"]), classify(item["text"]))

    def test_empty_text_raises_value_error(self):
        for text in ("", "   ", "\n\t"):
            with self.assertRaises(ValueError):
                classify(text)
        with self.assertRaises(ValueError):
            classify(None)

    def test_english_families(self):
        cases = {
            "decision": ("We decided to move the jobs to RQ.", "decision:we decided"),
            "convention": ("Never push directly to main.", "convention:never"),
            "preference": ("I prefer short answers.", "preference:i prefer"),
            "todo": ("TODO: add retries to the webhook client.", "todo:todo"),
            "procedure": ("1. build the image\n2. push it\n3. roll out", "procedure:numbered steps"),
            "ephemeral": ("The migration is running right now.", "ephemeral:right now"),
            "speculation": ("It's probably a race condition in the pool.", "speculation:probably"),
            "fact": ("The API is served by uvicorn on port 8000.", None),
        }
        for surface, (text, signal) in cases.items():
            result = classify(text)
            self.assertEqual(result["surface"], surface, (text, result))
            if signal:
                self.assertIn(signal, result["signals"])

    def test_chinese_families(self):
        cases = {
            "decision": ("我们决定用 Go 重写网关。", "decision:决定"),
            "convention": ("接口必须返回统一的错误码。", "convention:必须"),
            "preference": ("我喜欢简短的回答。", "preference:我喜欢"),
            "todo": ("待办：补充订单模块的单元测试。", "todo:待办"),
            "procedure": ("部署步骤：1. 构建镜像 2. 推送镜像 3. 滚动更新", "procedure:numbered steps"),
            "ephemeral": ("集成测试正在跑，先别合并。", "ephemeral:正在"),
            "speculation": ("可能是缓存没有刷新。", "speculation:可能"),
            "fact": ("订单服务的数据库是 PostgreSQL 14。", None),
        }
        for surface, (text, signal) in cases.items():
            result = classify(text)
            self.assertEqual(result["surface"], surface, (text, result))
            if signal:
                self.assertIn(signal, result["signals"])

    def test_chinese_longest_marker_wins(self):
        self.assertNotIn("speculation:可能", classify("这种写法不可能出错。")["signals"])
        self.assertIn("speculation:应该是", classify("应该是上游限流了。")["signals"])
        self.assertNotIn("convention:应该", classify("应该是上游限流了。")["signals"])
        self.assertEqual(classify("待确认：退款要不要审批。")["surface"], "todo")

    def test_hard_cases(self):
        # A todo without the word TODO, a convention with "should", a decision phrased as a fact.
        for text, surface in (("We still need to add rate limiting to uploads.", "todo"),
                              ("Every migration should be reversible.", "convention"),
                              ("Postgres was picked over MongoDB for transactions.", "decision"),
                              ("git fetch && git rebase origin/main && git push", "procedure")):
            self.assertEqual(classify(text)["surface"], surface, text)

    def test_numbered_steps_but_not_versions(self):
        for text in ("1、更新版本号 2、打 tag 3、推送", "(1) build (2) push", "第一步拉代码，第二步重启服务",
                     "Setup:\n1. install pyenv\n2. pyenv install 3.11"):
            self.assertIn("procedure:numbered steps", classify(text)["signals"], text)
        for text in ("CI runs Python 3.8 through 3.12.", "Bumped to v2.0 and 2.1 last week."):
            self.assertNotIn("procedure:numbered steps", classify(text)["signals"], text)

    def test_precedence_breaks_ties(self):
        extra = {"decision": ["zqx alpha"], "convention": ["zqx beta"], "speculation": ["zqx gamma"]}
        self.assertEqual(classify("zqx alpha zqx beta", extra)["surface"], "decision")
        self.assertEqual(classify("zqx beta zqx gamma", extra)["surface"], "speculation")

    def test_confidence_follows_agreement(self):
        one = classify("We decided to use RQ.")["confidence"]
        two = classify("We decided and agreed to use RQ; the decision is final.")["confidence"]
        mixed = classify("We decided to use RQ, but maybe not.")["confidence"]
        self.assertGreater(two, one)
        self.assertLess(mixed, one)
        self.assertLessEqual(classify("The service is written in Go.")["confidence"], 0.7)

    def test_refused_surfaces_say_where_it_belongs(self):
        for text, words in (("TODO: add retries", "issue tracker"), ("maybe the cache", "--inferred"),
                            ("the build is running right now", "right now"),
                            ("1. build 2. push 3. deploy", "docs")):
            self.assertIn(words, classify(text)["reason"])

    def test_topics(self):
        self.assertEqual(classify("Tests run with pytest and coverage.")["topic"], "testing")
        self.assertEqual(classify("部署到生产前要灰度。")["topic"], "deploy")
        self.assertEqual(classify("Never commit directly to the main branch.")["topic"], "workflow")
        self.assertEqual(classify("Hello there.")["topic"], "general")


class SecretTest(unittest.TestCase):
    def test_provider_token_is_secret_and_not_echoed(self):
        token = _tok("gh", "p_", ALNUM[:36])
        for text in ("deploy token: " + token, "部署用的令牌是 " + token):
            result = classify(text)
            self.assertEqual(result["surface"], "secret")
            self.assertEqual(result["topic"], "security")
            self.assertIn("secret:github-token", result["signals"])
            self.assertNotIn(token, json.dumps(result))

    def test_chinese_password_assignment(self):
        result = classify(_tok("数据库密码：", ALNUM[5:19]))
        self.assertEqual(result["surface"], "secret")
        self.assertIn("secret:password-assignment", result["signals"])

    def test_secret_beats_every_other_family(self):
        result = classify("TODO: maybe rotate it, we decided: " + _tok("gl", "pat-", ALNUM[3:23]))
        self.assertEqual(result["surface"], "secret")

    def test_extra_secret_patterns(self):
        text = "internal key ACMEK-" + "7" * 4 + "-abc"
        self.assertNotEqual(classify(text)["surface"], "secret")
        patterns = [("acme", r"ACMEK-\d{4}-\w+")]
        self.assertEqual(classify(text, secret_patterns=patterns)["surface"], "secret")


class ExtraMarkersTest(unittest.TestCase):
    def test_load_extra_markers(self):
        notes = []
        config = {"classifier": {"markers": {"todo": ["backlog item", 3, " "], "secret": ["x"],
                                             "nonsense": ["y"], "decision": "定调"}}}
        self.assertEqual(load_extra_markers(config, notes),
                         {"todo": ["backlog item"], "decision": ["定调"]})
        self.assertEqual(len(notes), 3, notes)
        self.assertEqual(load_extra_markers({}), {})
        self.assertEqual(load_extra_markers({"classifier": "oops"}), {})

    def test_extra_markers_change_the_verdict(self):
        text = "Dark mode for the settings page is a backlog item."
        self.assertNotEqual(classify(text)["surface"], "todo")
        result = classify(text, {"todo": ["backlog item"]})
        self.assertEqual(result["surface"], "todo")
        self.assertIn("todo:backlog item", result["signals"])
        zh = "老板定调了，只做国内市场。"
        self.assertNotEqual(classify(zh)["surface"], "decision")
        self.assertEqual(classify(zh, {"decision": ["定调"]})["surface"], "decision")


class ScriptTest(_support.TempProject):
    def run_cls(self, *args, **kw):
        return _support.run_script("classify_memory.py", "--project-dir", self.project, *args, **kw)

    def test_text_human_line(self):
        proc = self.run_cls("--text", "We decided to drop Python 3.7 support.")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        line = proc.stdout.decode("utf-8").strip()
        self.assertTrue(line.startswith("decision"), line)
        self.assertIn("confidence", line)
        self.assertEqual(len(line.splitlines()), 1)
        self.assertFalse(self.store.exists(), "classifying must not create the store")

    def test_text_json(self):
        proc = self.run_cls("--text", "可能是连接池太小", "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = json.loads(proc.stdout.decode("utf-8"))
        self.assertTrue(out["ok"])
        self.assertEqual(out["surface"], "speculation")
        self.assertEqual({k: out[k] for k in ("surface", "topic", "confidence", "signals", "reason")},
                         {k: v for k, v in gate("可能是连接池太小").items() if k in ("surface", "topic", "confidence", "signals", "reason")})
        self.assertIn("refuse", out)

    def test_stdin_json_lines_round_trip(self):
        items = load_fixture()[::9]
        lines = [json.dumps({"text": i["text"], "id": "item-%d" % n}, ensure_ascii=False) for n, i in enumerate(items)]
        lines[1:1] = ["not json", json.dumps({"text": "   "}), json.dumps({"txt": "x"}), ""]
        proc = self.run_cls("--stdin", input=("\n".join(lines) + "\n").encode("utf-8"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        answers = [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines()]
        self.assertEqual(len(answers), len(items) + 3)  # the blank line gets no answer
        errors = answers[1:4]
        self.assertTrue(all("error" in e for e in errors), errors)
        self.assertIn("line 2", errors[0]["error"])
        for n, (item, answer) in enumerate(zip(items, answers[:1] + answers[4:])):
            self.assertEqual(answer.pop("id"), "item-%d" % n)  # each input's id is echoed
            self.assertEqual(answer, gate(item["text"]))

    def test_stdin_output_is_independent_of_hash_seed(self):
        data = "\n".join(json.dumps({"text": i["text"]}, ensure_ascii=False) for i in load_fixture()[::5])
        outs = set()
        for seed in ("1", "2", "12345"):
            proc = self.run_cls("--stdin", input=data.encode("utf-8"),
                                env=_support.clean_env(PYTHONHASHSEED=seed))
            self.assertEqual(proc.returncode, 0, proc.stderr)
            outs.add(proc.stdout)
        self.assertEqual(len(outs), 1)

    def test_config_markers(self):
        text = "Dark mode for the settings page is a backlog item."
        before = json.loads(self.run_cls("--text", text, "--json").stdout.decode("utf-8"))
        self.store.mkdir()
        (self.store / "config.yaml").write_text(
            json.dumps({"classifier": {"markers": {"todo": ["backlog item"]}}}), "utf-8")
        after = json.loads(self.run_cls("--text", text, "--json").stdout.decode("utf-8"))
        self.assertNotEqual(before["surface"], "todo")
        self.assertEqual(after["surface"], "todo")

    def test_config_secret_patterns_and_bad_sections(self):
        self.store.mkdir()
        (self.store / "config.yaml").write_text(json.dumps({
            "secrets": {"extra_patterns": [{"kind": "acme", "regex": "ACMEK-[0-9]{4}"}]},
            "classifier": {"markers": {"secret": ["nope"]}}}), "utf-8")
        proc = self.run_cls("--text", "key ACMEK-1234 for the test box", "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout.decode("utf-8"))["surface"], "secret")
        self.assertIn("classifier.markers.secret ignored", proc.stderr.decode("utf-8"))

    def test_empty_text_is_a_usage_error(self):
        for args in (("--text", ""), ("--text", "   "), ("--text", " ", "--json")):
            proc = self.run_cls(*args)
            self.assertEqual(proc.returncode, 2, args)
            self.assertIn("empty", (proc.stdout + proc.stderr).decode("utf-8"))

    def test_usage_errors(self):
        self.assertEqual(self.run_cls().returncode, 2)
        self.assertEqual(self.run_cls("--text", "a", "--stdin").returncode, 2)

    def test_help_mentions_project_dir(self):
        proc = _support.run_script("classify_memory.py", "--help")
        self.assertEqual(proc.returncode, 0)
        self.assertIn("--project-dir", proc.stdout.decode("utf-8"))


if __name__ == "__main__":
    unittest.main()
