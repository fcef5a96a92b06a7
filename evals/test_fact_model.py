"""The fact model (scripts/memory_core/facts.py): values in base units, aliases, Chinese numerals,
negation, and the rule-based relation of two facts (relate(), which judgement.judge() falls back to
without its model file). The learned pair model, its blind figures and record's use of it are in
test_judgement.py. The figures below are the rules' on the tune half (in-sample)."""
import collections
import json
import os
import subprocess
import sys
import unittest

import _support
from memory_core.facts import parse, relate

PAIRS = _support.REPO / "evals" / "fixtures" / "judgement"


class ChineseRunsTest(unittest.TestCase):
    """memory_core.cjk finds what the patterns over the range U+3400-U+9FFF found (they cost ~1 ms
    each to compile per process), on strings mixing the range's ends, the part of it that is not a
    word character (U+4DC0), other scripts, digits and the units and numerals the fact model reads."""
    ALPHABET = "a5 .,-/%$¥µ中文秒天个三十半一百分之\u3400\u9fff\u4dc0\u4dffかéж٣\ua000"

    def strings(self, count=3000, seed=11):
        import random
        rng = random.Random(seed)
        return ["".join(rng.choice(self.ALPHABET) for _ in range(rng.randint(0, 14))) for _ in range(count)]

    def test_runs_as_the_range_pattern_finds_them(self):
        import re
        from memory_core import cjk
        old = re.compile("[\u3400-\u9fff]+")
        for text in self.strings():
            self.assertEqual(cjk.findall(text), old.findall(text), text)
            self.assertEqual(cjk.search(text), bool(old.search(text)), text)
            for pos in range(len(text) + 1):
                found = old.match(text, pos)
                self.assertEqual(cjk.run_at(text, pos), found.group() if found else "", (text, pos))

    def test_numbers_and_units_as_the_range_patterns_read_them(self):
        import re
        from memory_core import cjk, facts
        number = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?(?:e-?\d+)?)(?:\s*(?:-\s*)?"
                            "([a-z%$¥µ/]+|[\u4e00-\u9fff]{1,3}))?")
        numeral = re.compile("(百分之)?([零〇一二两三四五六七八九十百千万亿半]+)(个)?((?:(?![零〇一二两三四五六七八九十百千万亿半])"
                             "[\u4e00-\u9fff]){0,3})")
        for text in self.strings():
            self.assertEqual([(m.start(), m.group(1)) + facts._unit_of(m) for m in facts._NUMBER.finditer(text)],
                             [(m.start(), m.group(1), m.group(2), m.end()) for m in number.finditer(text)], text)
            self.assertEqual([m.groups()[:3] + (cjk.prefix(m.group(4), cjk.HAN),)
                              for m in facts._CN_NUMBER.finditer(text)],
                             [m.groups() for m in numeral.finditer(text)], text)


class ValuesTest(unittest.TestCase):
    def values(self, text):
        return sorted(parse(text).values)

    def test_the_same_quantity_in_other_units_is_one_value(self):
        self.assertEqual(self.values("The request timeout is 500 ms."), [("time", 0.5)])
        self.assertEqual(self.values("Requests time out after half a second."), [("time", 0.5)])
        self.assertEqual(self.values("日志保留 7 天"), self.values("日志只留一周"))
        self.assertEqual(self.values("The API rate limit is 600 requests per minute."),
                         self.values("Clients may send at most 10 requests per second."))

    def test_a_chinese_unit_followed_by_more_chinese(self):
        # "天后过" is no unit, "天" is: until 2026-12-07 800 Chinese tune pair texts read such a
        # duration as a plain number ("每 5 分钟上报一次", "30 秒内", "7 天后过期")
        self.assertEqual(self.values("会话 7 天后过期"), self.values("会话一周后过期"))
        self.assertEqual(self.values("网关每 5 分钟上报一次"), [("time", 300.0)])
        self.assertEqual(self.values("审计日志保存 3 年以上"), [("time", 3 * 365 * 86400.0)])
        self.assertEqual(self.values("单笔超过 1 万元需要复核"), [("money", 10000.0)])
        for text in ("2023 年我们放弃了自建 IDC", "Google Play 8 月底截止", "1 日起生效",  # dates
                     "数据分成 3 分区", "每台 4 块盘", "8 周岁以上"):  # counts and an age
            self.assertFalse([x for x in self.values(text) if x[0] in ("time", "money")], text)

    def test_chinese_numerals(self):
        self.assertEqual(self.values("单笔提现上限 5 万元"), [("money", 50000.0)])
        self.assertEqual(self.values("单笔提现上限调成两万元"), [("money", 20000)])
        self.assertEqual(self.values("灰度第一批放百分之五的流量"), [("percent", 5)])

    def test_aliases_and_versions(self):
        a, b = parse("The primary database is PG 14."), parse("Primary DB is PostgreSQL 16 now.")
        self.assertEqual(a.entities, b.entities)
        self.assertEqual((a.versions["postgresql"], b.versions["postgresql"]), ("14", "16"))
        self.assertEqual(parse("服务跑在 JDK 17 上").entities, parse("Java 版本是 21").entities)

    def test_a_version_of_an_unknown_tool_at_the_end_of_a_sentence(self):
        # "v1.13." closes the sentence; "1.14" is a version, not also a count
        self.assertEqual(self.values("Autopilot firmware is based on PX4 v1.13."), [("version", "1.13")])
        self.assertEqual(self.values("We rebased the autopilot onto PX4 1.14."), [("version", "1.14")])

    def test_negation_names_the_entity(self):
        self.assertEqual(parse("We stopped using Spark last year.").negated, frozenset(["spark"]))
        fact = parse("Serving moved to vLLM; TorchServe was decommissioned.")
        self.assertIn("torchserve", fact.negated)
        self.assertNotIn("vllm", fact.negated)


class DroppedWordsTest(unittest.TestCase):
    """A negation retracts the words it names, tool or not: "We replaced grid A* with a lattice
    planner" takes back "grid", which the older "A* on a grid map" states."""

    def test_the_words_after_a_negation_up_to_the_clause_end(self):
        self.assertEqual(parse("We replaced grid A* with a lattice-based planner.").dropped, frozenset(["grid"]))
        self.assertEqual(parse("We dropped Cython; the speedups module is Rust via PyO3 now.").dropped,
                         frozenset(["cython"]))

    def test_the_words_before_a_negation_that_follows_them(self):
        self.assertEqual(parse("Sensors detect cars with radar only; the magnetometer was removed.").dropped,
                         frozenset(["magnetomet"]))

    def test_a_change_from_one_thing_to_another(self):
        self.assertEqual(parse("We switched the odds provider from Betradar to Genius Sports.").dropped,
                         frozenset(["betradar"]))
        self.assertEqual(parse("Node firmware was ported from Zephyr to FreeRTOS.").dropped, frozenset(["zephyr"]))
        self.assertEqual(parse("Events flow from Kafka to S3.").dropped, frozenset())  # no change said
        self.assertEqual(parse("Timeout raised from 30 s to 60 s.").dropped, frozenset())  # numbers are values

    def test_chinese(self):
        self.assertIn("kafka", parse("我们不再用 Kafka 了").dropped)
        self.assertIn("旧网", parse("弃用旧网关").dropped)

    def test_a_plain_statement_drops_nothing(self):
        self.assertEqual(parse("Path planning uses A* on a grid map.").dropped, frozenset())


class SameReadingInEveryProcessTest(unittest.TestCase):
    def test_a_version_goes_to_the_same_tool_whatever_the_hash_seed(self):
        # "openapi" and its alias "swagger" are the same length; taken in a set's order, the version
        # went to OpenAPI 3 under one string hash seed and to Swagger 2 under another
        code = ("import sys; sys.path.insert(0, %r)\n"
                "from memory_core.facts import parse\n"
                "print(parse('接口文档使用 SpringDoc 生成 OpenAPI 3，不再使用 Swagger 2。').versions)\n"
                % str(_support.REPO / "scripts"))
        seen = set()
        for seed in ("3", "4"):
            env = dict(os.environ, PYTHONHASHSEED=seed)
            done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            seen.add(done.stdout.strip())
        self.assertEqual(seen, {"{'openapi': '3'}"})


class RelateTest(unittest.TestCase):
    def relation(self, a, b):
        return relate(parse(a), parse(b))[0]

    def test_conflicts(self):
        for a, b in [("We use pnpm as the package manager.", "The repo uses yarn for installs."),
                     ("The request timeout is 500 ms.", "Requests now time out after 800 ms."),
                     ("The primary database is PG 14.", "Primary DB is PostgreSQL 16 now."),
                     ("Error tracking is done with Sentry.", "We never adopted Sentry; errors go to Rollbar."),
                     ("代码缩进用 2 个空格", "代码缩进统一用 4 个空格")]:
            self.assertEqual(self.relation(a, b), "conflict", (a, b))

    @unittest.expectedFailure  # not yet: "api" is read as a scope word, so one word tells them apart
    def test_two_ports(self):
        self.assertNotEqual(self.relation("The API port is 8080.", "The metrics port is 9090."), "conflict")

    @unittest.expectedFailure  # not yet: access and refresh differ in one word of four
    def test_two_tokens(self):
        self.assertNotEqual(self.relation("Access tokens expire after 15 minutes.",
                                          "Refresh tokens expire after 30 days."), "conflict")

    def test_compatible(self):
        for a, b in [("Prod uses Postgres 16.", "Staging uses Postgres 15."),
                     ("生产 api-server 副本数 5", "预发环境 api-server 只跑 1 个副本")]:
            self.assertNotEqual(self.relation(a, b), "conflict", (a, b))

    def test_paraphrase(self):
        self.assertEqual(self.relation("The request timeout is 500 ms.", "Requests time out after half a second."),
                         "duplicate")


class TunePairsFigureTest(unittest.TestCase):
    """Reports the rules' in-sample figures on the tune half (a floor, not a target)."""

    def test_report_tune_half(self):
        rows = []
        for lang in ("en", "zh"):
            path = PAIRS / ("pairs.%s.tune.jsonl" % lang)
            if not path.is_file():
                raise unittest.SkipTest("%s not present" % path)
            rows.extend(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
        counts = collections.Counter()
        for row in rows:
            counts[(row["lang"], row["label"], relate(parse(row["a"]), parse(row["b"]))[0])] += 1
        for lang in ("en", "zh"):
            total = lambda label: sum(n for (l, lab, _v), n in counts.items() if l == lang and lab == label)
            conflict = counts[(lang, "conflict", "conflict")] / float(total("conflict"))
            caught = (counts[(lang, "paraphrase", "duplicate")] + counts[(lang, "paraphrase", "conflict")]) / float(
                total("paraphrase"))
            refused = counts[(lang, "compatible", "conflict")] / float(total("compatible"))
            _support.report_metric("fact rules tune (in-sample) %s" % lang,
                                   "conflict recall %.2f, paraphrases caught %.2f, compatible refused %.2f"
                                   % (conflict, caught, refused))
            # a floor against breaking the rules, not the target: on the tune pairs of rounds 1-6
            # (5,368) the rules measured 0.39 (EN) and 0.29 (ZH); of rounds 1-12, 14 and 15 (14,942,
            # two of them written to a harder brief) 0.34 and 0.25
            self.assertGreater(conflict, 0.22)


if __name__ == "__main__":
    unittest.main()



class KeyVocabTableTest(unittest.TestCase):
    """data/fact_keys.tsv (key_vocab.py): the judgement keys' vocabulary as a lookup table, so a
    query keys its text without preparing the whole vocabulary. It must be current and give the
    very keys the full vocabulary gives."""

    def texts(self):
        fixtures = _support.REPO / "evals" / "fixtures"
        out = []
        for path in sorted((fixtures / "recall").glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                project = json.loads(line)
                out.extend(f["text"] for f in project["facts"])
                out.extend(q["q"] for q in project["queries"])
        for path in sorted((fixtures / "judgement").glob("pairs.*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                pair = json.loads(line)
                out.extend((pair["a"], pair["b"]))
        for line in (fixtures / "classification.jsonl").read_text(encoding="utf-8").splitlines():
            out.append(json.loads(line)["text"])
        return out

    def test_the_table_is_current(self):
        proc = subprocess.run([sys.executable, str(_support.REPO / "evals" / "tools" / "build_fact_keys.py"), "--check"],
                              capture_output=True, universal_newlines=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_looked_up_keys_equal_the_full_vocabularys(self):
        from memory_core.candidate_keys import fact_keys
        from memory_core.key_vocab import key_vocab
        self.assertIsNotNone(key_vocab())
        texts = self.texts()
        self.assertGreater(len(texts), 3000)
        for text in texts:
            self.assertEqual(fact_keys(text, light=True), fact_keys(text), text)

    TRICKY = ["a-b. v1.2.3 1,000.5ms 3:30pm 12% x# c++ .net node.js glicko-2 grch37 hg38 500ms max_party_size",
              "\u0663\u0664 ms \uff11\uff12 ٣.٤ 中文é中 \u4dc0\u4dff 中\u9fff\u3400 a__b..c--d _x_ -y- 3.",
              "ab- a+ a#b ..a 1.2.3.4 1..2 1,,2 1.x q1 a1b2 zz-9 zz-9x zz-x9 GlickO-2 İstanbul ǅ ŉ",
              "生产环境部署必须走发布流水线，禁止手动上传。2026年12月20日 三十秒 PostgreSQL 16"]

    def test_the_light_tokenizer_finds_what_the_expressions_find(self):
        from memory_core import candidate_keys as ck, cjk
        import random
        rng = random.Random(5)
        alphabet = "ab z-_.+#:,%9 0\u0663\uff11中文\u4dc0\u9fffé\n\tİ"
        texts = self.TRICKY + ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(3000)]
        for text in texts:
            low = text.lower()
            self.assertEqual(ck.light_words(low), ck._rx("raw").findall(low), repr(text))
            self.assertEqual(cjk.light_runs(low), cjk.findall(low), repr(text))
            for word in ck._rx("raw").findall(low) + low.split():
                self.assertEqual(ck._name_with_digits(word, True), ck._name_with_digits(word, False), repr(word))
                self.assertEqual(ck._id_parts(word, True), ck._id_parts(word, False), repr(word))
                self.assertEqual(ck._has_digit(word, True), ck._has_digit(word, False), repr(word))
            self.assertEqual(ck.fact_keys(text, light=True), ck.fact_keys(text), repr(text))

    def test_a_query_imports_no_regular_expressions(self):
        code = ("import sys; sys.path.insert(0, %r)\n"
                "from memory_core.candidate_keys import fact_keys\n"
                "fact_keys('Which PG version runs the 生产 orders service, v16?', light=True)\n"
                "print('re' in sys.modules)\n" % str(_support.SCRIPTS))
        out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, universal_newlines=True,
                             env=_support.clean_env())  # -S: no site hooks (some import re)
        self.assertEqual(out.stdout.strip(), "False", out.stderr)

    def test_a_table_of_another_vocabulary_is_not_used(self):
        import shutil
        import tempfile
        from unittest import mock
        from memory_core import key_vocab
        folder = tempfile.mkdtemp(prefix="m3l-keyvocab-")
        self.addCleanup(shutil.rmtree, folder, True)
        stale = os.path.join(folder, "fact_keys.tsv")
        with open(key_vocab.TABLE, "rb") as fh:
            data = fh.read()
        with open(stale, "wb") as fh:
            fh.write(data.replace(b"source=", b"source=0", 1))
        from memory_core import recall
        from_table = recall.recall_vocab()
        with mock.patch.object(key_vocab, "TABLE", stale), mock.patch.object(key_vocab, "_LOADED", []), \
                mock.patch.object(recall, "_RECALL_VOCAB", []):
            self.assertIsNone(key_vocab.key_vocab())
            from memory_core.candidate_keys import fact_keys
            self.assertEqual(fact_keys("We use pnpm, not yarn.", light=True), fact_keys("We use pnpm, not yarn."))
            from_file = recall.recall_vocab()  # prepared from recall_vocab.json itself
            self.assertIsNot(from_file, from_table)
            self.assertEqual((from_file.asking, from_file.asking_zh, from_file.group(3), from_file.plain("oncall")),
                             (from_table.asking, from_table.asking_zh, from_table.group(3), from_table.plain("oncall")))
