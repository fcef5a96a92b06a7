"""load_memory.py: order, budget, fairness, traceability, masking, corrupt files, never writes."""
import json
import os
import re
import unittest

import _support
from _support import run_json, run_script, snapshot
from memory_core import loading, store as st
from memory_core.similarity import fact_id

try:
    from hypothesis import given, settings, strategies as hs
except ImportError:  # hypothesis is in requirements.txt; without it the property test is skipped
    given = None


def make_item(topic, text, stamp, status="active", **extra):
    item = {"id": fact_id(topic, text), "fact": text, "status": status, "category": "fact", "source": "user",
            "inferred": False, "created_at": stamp, "updated_at": stamp, "superseded_by": None,
            "supersedes": [], "tags": []}
    item.update(extra)
    return item


def write_topic(store, topic, items):
    path = store / "areas/topics" / topic / "items.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(st.dump_items(topic, {}, items))
    return path


def write_daily(store, day, lines):
    path = store / "memory" / ("%s.md" % day)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# %s\n\n%s\n" % (day, "\n".join(lines)), "utf-8")
    return path


SETTINGS = {"max_chars": 9000, "max_items": 60, "daily_days": 3, "topics": None}


class LoadOrderTest(_support.TempProject):
    def setUp(self):
        super().setUp()
        (self.store / "MEMORY.md").parent.mkdir(parents=True)
        (self.store / "MEMORY.md").write_text("# Project memory\n\n## Decisions\n- Money in integer cents\n"
                                              "<!-- a comment that costs nothing -->\n## Empty\n", "utf-8")
        write_daily(self.store, "2026-11-28", ["- 10:00Z oldest day line"])
        write_daily(self.store, "2026-11-29", ["- 10:00Z middle day line"])
        write_daily(self.store, "2026-11-30", ["- 09:00Z today first", "- 10:00Z today second"])
        write_daily(self.store, "2026-11-20", ["- 10:00Z too old to load"])
        self.old = make_item("api", "The API timeout is 500ms", "2026-11-01T00:00:00Z", status="superseded")
        self.new = make_item("api", "The API timeout is 900ms", "2026-11-02T00:00:00Z")
        self.newest = make_item("ops", "Logs are kept for 30 days", "2026-11-03T00:00:00Z")
        write_topic(self.store, "api", [self.old, self.new])
        write_topic(self.store, "ops", [self.newest])

    def test_layers_in_order_active_only_newest_first(self):
        code, out = self.load()
        self.assertEqual(code, 0, out)
        text = out["context"]
        i3, i2, i1 = text.index("[Layer 3]"), text.index("[Layer 2]"), text.index("[Layer 1]")
        self.assertLess(i3, i2)
        self.assertLess(i2, i1)
        self.assertIn("Money in integer cents", text)
        self.assertNotIn("a comment that costs nothing", text)
        self.assertNotIn("## Empty", text)
        self.assertNotIn("500ms", text)
        self.assertLess(text.index("Logs are kept"), text.index("900ms"))
        self.assertLess(text.index("today first"), text.index("today second"))
        self.assertLess(text.index("today second"), text.index("middle day line"))
        self.assertNotIn("too old to load", text)
        self.assertTrue(text.rstrip().endswith("loading wrote nothing."))

    def test_every_line_traceable(self):
        _code, out = self.load()
        text = out["context"]
        for fact_line in re.findall(r"^- \[([a-z0-9-]+)\]", text.split("[Layer 1]")[1], re.M):
            topic = fact_line.rsplit("-", 1)[0]
            items = json.loads((self.store / "areas/topics" / topic / "items.json").read_text())["items"]
            self.assertIn(fact_line, [i["id"] for i in items])
        self.assertIn("(memory/2026-11-30.md)", text)
        self.assertIn("MEMORY.md", text.split("[Layer 3]")[1].split("\n")[0])

    def test_report_counts(self):
        _code, out = self.load()
        layers = out["report"]["layers"]
        self.assertEqual(layers["layer1"]["included"], 2)
        self.assertEqual(layers["layer1"]["active_facts"], 2)
        self.assertEqual(layers["layer2"]["daily_files"], {"read": 3, "total": 4})
        self.assertEqual(layers["layer3"]["included"], 1)
        self.assertIn("included L3 1/1", out["context"])

    def test_env_defaults_and_flags(self):
        env = _support.clean_env(MEMORY_MAX_ITEMS="1", MEMORY_DAILY_DAYS="1", MEMORY_TOPICS="api")
        code, out = run_json("load_memory.py", "--project-dir", self.project, env=env)
        self.assertEqual(code, 0)
        text = out["context"]
        self.assertIn("900ms", text)
        self.assertNotIn("Logs are kept", text)
        self.assertNotIn("middle day line", text)
        code, out = run_json("load_memory.py", "--project-dir", self.project, "--topics", "ops",
                             "--daily-days", "2", env=env)
        self.assertIn("Logs are kept", out["context"])
        self.assertIn("middle day line", out["context"])
        code, out = run_json("load_memory.py", "--project-dir", self.project,
                             env=_support.clean_env(MEMORY_MAX_CHARS="lots"))
        self.assertEqual(code, 2)
        self.assertIn("MEMORY_MAX_CHARS", out["error"])

    def test_format_json_gives_entries_with_sources(self):
        proc = run_script("load_memory.py", "--project-dir", self.project, "--format", "json")
        data = json.loads(proc.stdout)
        self.assertEqual(data["layer1"][0]["source"], "areas/topics/ops/items.json")
        self.assertTrue(all(e["source"] for layer in data.values() for e in layer))

    def test_loading_never_writes(self):
        before = snapshot(self.project)
        self.load()
        run_script("load_memory.py", "--project-dir", self.project)
        self.assertEqual(before, snapshot(self.project))
        self.assertFalse((self.store / "state").exists())

    def test_secrets_in_hand_edited_files_masked(self):
        token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
        with open(str(self.store / "MEMORY.md"), "a") as fh:
            fh.write("- deploy token is %s\n" % token)
        write_daily(self.store, "2026-11-30", ["- 11:00Z pasted password=Sup3rS3cretValue99"])
        _code, out = self.load()
        self.assertNotIn(token, out["context"])
        self.assertNotIn("Sup3rS3cretValue99", out["context"])
        self.assertIn("[redacted:", out["context"])
        self.assertTrue(out["report"]["masked"])


class NoRepetitionTest(_support.TempProject):
    """No fact is shown twice in one load, across the three layers."""

    def record_ok(self, fact, *args):
        code, out = self.record(fact, "--topic", "conventions", *args)
        self.assertEqual(code, 0, out)
        return out["id"]

    def test_a_fact_in_layer1_is_not_repeated_by_its_trail_line(self):
        facts = ["We use pnpm for every JavaScript package.", "The request timeout is 500 ms in api/config.py.",
                 "Audit logs are retained for 400 days."]
        for fact in facts:
            self.record_ok(fact)
        code, out = self.load()
        self.assertEqual(code, 0, out)
        for fact in facts:
            self.assertEqual(out["context"].count(fact), 1, out["context"])

    def test_a_supersede_keeps_its_ids_and_the_old_fact_is_gone(self):
        old = self.record_ok("The request timeout is 500 ms in api/config.py.")
        new = self.record_ok("The request timeout is 800 ms in api/config.py.", "--supersedes", old)
        text = self.load()[1]["context"]
        self.assertNotIn("500 ms", text)  # neither its trail line nor a fact
        self.assertEqual(text.count("800 ms"), 1)
        self.assertIn("%s supersedes %s" % (new, old), text)  # the trail's note: ids, never the old text

    def test_a_promoted_fact_shows_in_layer3_only_unless_layer3_is_cut(self):
        promoted = "Money is stored in integer cents."
        self.record_ok(promoted, "--promote", "--confirmed", "--category", "decision")
        self.record_ok("Logs are kept for 30 days.")
        text = self.load()[1]["context"]
        self.assertEqual(text.count(promoted), 1)
        self.assertLess(text.index(promoted), text.index("[Layer 1]"))
        self.assertNotIn("[Layer 2]", text)  # both trail lines repeat a fact shown above
        # its section too long for the budget: the promoted line (its last) is cut, so Layer 1 shows it
        memory_md = self.store / "MEMORY.md"
        lines = "".join("- Hand-written decision %d: %s\n" % (i, "x" * 300) for i in range(40))
        memory_md.write_text(memory_md.read_text("utf-8").replace("## Decisions\n", "## Decisions\n" + lines), "utf-8")
        code, out = self.load("--max-chars", "4000")
        self.assertEqual(code, 0, out)
        text = out["context"]
        self.assertEqual(text.count(promoted), 1, text)
        self.assertGreater(text.index(promoted), text.index("[Layer 1]"))


class RankingTest(_support.TempProject):
    """Layer 1 is ranked (ranking.py), not merely the newest: importance, recency, relevance, coverage."""

    def big_store(self, indexed=True):
        """2,000 facts in 20 topics, a fact a minute; the 10 oldest are conventions."""
        stamp = "2026-01-01T%02d:%02d:00Z"
        for t in range(20):
            items = []
            for k in range(100):
                n = t * 100 + k
                category = "convention" if n % 200 == 0 else "fact"
                items.append(make_item("topic%02d" % t, "Fact number %d of topic %d: service s%d uses port %d." % (n, t, n, 8000 + n),
                                       stamp % (n // 60 if category == "fact" else 0, n % 60), category=category))
            write_topic(self.store, "topic%02d" % t, items)
        if indexed:
            from memory_core import index
            with st.StoreLock(str(self.store)):
                index.refresh_all(str(self.store))

    def test_old_conventions_all_appear_and_no_fact_twice(self):
        for indexed in (True, False):
            self.big_store(indexed)
            code, out = self.load()
            self.assertEqual(code, 0, out)
            text = out["context"]
            for n in range(0, 2000, 200):
                self.assertEqual(text.count("Fact number %d of topic" % n), 1, (indexed, n))
            why = dict((w["id"], w["why"]) for w in out["report"]["layers"]["layer1"]["why"])
            self.assertIn("convention", why[fact_id("topic00", "Fact number 0 of topic 0: service s0 uses port 8000.")])
            shown = re.findall(r"Fact number (\d+) of topic", text)
            self.assertEqual(len(shown), len(set(shown)))
            topics = set(int(n) // 100 for n in shown)
            self.assertEqual(len(topics), 20)  # coverage: every topic has a say

    def test_a_fact_anchored_to_a_file_just_edited_appears_however_old(self):
        (self.project / "src").mkdir()
        (self.project / "src" / "billing.py").write_text("RATE = 1\n", "utf-8")
        code, out = self.record("Billing rounds half-even in src/billing.py.", "--topic", "ports0",
                                "--anchor", "src/billing.py", env=_support.clean_env(MEMORY_3LAYER_NOW="2026-01-01T00:00:00Z"))
        self.assertEqual(code, 0, out)
        recorded = json.loads((self.store / "areas/topics/ports0/items.json").read_text("utf-8"))["items"]
        for t in range(3):  # 40 newer facts push it out of the newest
            write_topic(self.store, "ports%d" % t, (recorded if t == 0 else []) + [
                make_item("ports%d" % t, "Service s%d listens on port %d." % (n, 9000 + n), "2026-02-01T00:%02d:00Z" % n)
                for n in range(40) if n % 3 == t])
        text = self.load("--max-items", "20", "--daily-days", "0")[1]["context"]  # Layer 1 alone
        self.assertNotIn("half-even", text)
        (self.project / "src" / "billing.py").write_text("RATE = 2\n", "utf-8")
        code, out = self.load("--max-items", "20", "--daily-days", "0")
        self.assertIn("half-even", out["context"])
        why = [w["why"] for w in out["report"]["layers"]["layer1"]["why"] if w["id"] == fact_id(
            "ports0", "Billing rounds half-even in src/billing.py.")]
        self.assertIn("anchored file changed", why[0])

    def test_an_old_anchored_fact_is_not_pushed_out_by_many_newer_decisions(self):
        from memory_core.anchors import make_anchors
        (self.project / "src").mkdir()
        (self.project / "src" / "billing.py").write_text("RATE = 1\n", "utf-8")
        anchors = make_anchors(str(self.project), str(self.store), ["src/billing.py"])
        old = make_item("billing", "Billing rounds half-even in src/billing.py.", "2025-01-01T00:00:00Z",
                        anchors=anchors)
        write_topic(self.store, "billing", [old] + [
            make_item("billing", "Decision %d: service d%d uses queue q%d." % (n, n, n),
                      "2026-01-01T%02d:%02d:00Z" % (n // 60, n % 60), category="decision") for n in range(300)])
        (self.project / "src" / "billing.py").write_text("RATE = 2\n", "utf-8")
        for indexed in (False, True):
            if indexed:
                from memory_core import index
                with st.StoreLock(str(self.store)):
                    index.refresh_all(str(self.store))
            code, out = self.load("--max-items", "20", "--daily-days", "0")
            self.assertEqual(code, 0, out)
            self.assertIn("half-even", out["context"], indexed)

    def test_a_cold_and_a_warm_load_rank_the_same_facts(self):
        self.big_store(indexed=False)
        cold = self.load()[1]["report"]["layers"]["layer1"]["why"]
        from memory_core import index
        with st.StoreLock(str(self.store)):
            index.refresh_all(str(self.store))
        warm = self.load()[1]["report"]["layers"]["layer1"]["why"]
        self.assertEqual(cold, warm)

    def test_a_topic_named_in_the_branch_ranks_higher(self):
        from memory_core import ranking
        git = self.project / ".git"
        git.mkdir()
        (git / "HEAD").write_text("ref: refs/heads/feature/payments-retry\n", "utf-8")
        self.assertEqual(ranking.branch_words(str(self.project)), frozenset(["feature", "payments", "retry"]))
        rows = [["2026-01-01T00:%02d:00Z" % (59 - i), "x%d" % i, "fact %d" % i, "", [], "ops"] for i in range(20)]
        rows.append(["2026-01-01T00:00:00Z", "p1", "old payments fact", "", [], "payments"])
        ranked = ranking.rank(rows, 3, str(self.project), branch=ranking.branch_words(str(self.project)))
        self.assertIn("p1", [r[1] for r, _why in ranked])
        self.assertNotIn("p1", [r[1] for r, _why in ranking.rank(rows, 3, str(self.project))])

    def test_a_file_or_topic_touched_this_session_ranks_higher(self):
        from memory_core import ranking
        rows = [["2026-01-01T00:%02d:00Z" % (59 - i), "x%d" % i, "fact %d" % i, "", [], "ops"] for i in range(20)]
        from memory_core.anchors import make_anchors
        (self.project / "src").mkdir()
        (self.project / "src" / "app.py").write_text("x = 1\n", "utf-8")
        anchors = make_anchors(str(self.project), str(self.store), ["src/app.py"])  # unchanged since
        rows.append(["2026-01-01T00:00:00Z", "a1", "old anchored fact", "", anchors, "ops"])
        rows.append(["2026-01-01T00:00:00Z", "p1", "old payments fact", "", [], "payments"])
        plain = [r[1] for r, _why in ranking.rank(rows, 3, str(self.project))]
        self.assertFalse({"a1", "p1"} & set(plain))
        ranked = dict((r[1], why) for r, why in ranking.rank(rows, 3, str(self.project),
                                                             touched=frozenset(["src/app.py", "payments/api.py"])))
        self.assertIn("anchored file touched this session", ranked["a1"])
        self.assertIn("topic matches a path touched this session", ranked["p1"])


class Layer3SectionsTest(_support.TempProject):
    """Layer 3 that does not fit is shortened by section: every heading stays, with its first lines
    and a count of what was left out."""

    def test_every_section_keeps_its_heading_first_lines_and_a_count(self):
        sections = ["## Decisions", "## Conventions", "## Glossary"]
        body = "# Project memory\n\n"
        for name in sections:
            body += name + "\n" + "".join("- %s line %d: %s\n" % (name[3:], i, "y" * 120) for i in range(30))
        (self.store).mkdir(parents=True)
        (self.store / "MEMORY.md").write_text(body, "utf-8")
        code, out = self.load("--max-chars", "3000")
        self.assertEqual(code, 0, out)
        text = out["context"]
        self.assertLessEqual(len(text), 3000)
        for name in sections:
            self.assertIn(name + "\n- %s line 0:" % name[3:], text)  # its heading and its first line
        notes = re.findall(r"- \((\d+) more line\(s\) of this section left out: MEMORY.md\)", text)
        self.assertEqual(len(notes), 3)
        layer3 = out["report"]["layers"]["layer3"]
        self.assertEqual(layer3["available"], 90)
        self.assertEqual(layer3["included"] + sum(int(n) for n in notes), 90)

    def test_one_section_alone_over_the_budget_shows_its_first_lines_and_the_count(self):
        (self.store).mkdir(parents=True)
        (self.store / "MEMORY.md").write_text("## Runbook\n" + "".join("- step %d: %s\n" % (i, "z" * 200)
                                                                      for i in range(200)), "utf-8")
        code, out = self.load("--max-chars", "2500")
        self.assertEqual(code, 0, out)
        text = out["context"]
        self.assertIn("## Runbook\n- step 0:", text)
        shown = out["report"]["layers"]["layer3"]["included"]
        self.assertIn("- (%d more line(s) of this section left out: MEMORY.md)" % (200 - shown), text)


class CorruptFilesTest(_support.TempProject):
    def test_corrupt_files_skipped_reported_untouched(self):
        write_topic(self.store, "good", [make_item("good", "Healthy fact survives", "2026-11-01T00:00:00Z")])
        bad_json = self.store / "areas/topics/bad/items.json"
        bad_json.parent.mkdir(parents=True)
        bad_json.write_bytes(b'{"items": [')
        write_daily(self.store, "2026-11-30", ["- fine"])
        bad_daily = self.store / "memory/2026-11-29.md"
        bad_daily.write_bytes(b"- caf\xe9 latin-1 line\n")
        binary = self.store / "memory/2026-11-28.md"
        binary.write_bytes(b"\x00\x01\x02PNG")
        (self.store / "MEMORY.md").write_bytes(b"\xff\xfe\x00M\x00")
        before = snapshot(self.project)
        code, out = self.load()
        self.assertEqual(code, 0, out)
        self.assertEqual(before, snapshot(self.project))
        skipped = {s["path"]: s["reason"] for s in out["report"]["skipped"]}
        self.assertIn("invalid JSON", skipped[os.path.join("areas", "topics", "bad", "items.json")])
        self.assertIn("UTF-8", skipped["memory/2026-11-29.md"])
        self.assertIn("binary", skipped["memory/2026-11-28.md"])
        self.assertIn("MEMORY.md", skipped)
        self.assertIn("Healthy fact survives", out["context"])
        self.assertIn("skipped unreadable", out["context"])

    def test_empty_and_missing_store(self):
        code, out = self.load()
        self.assertEqual(code, 0)
        self.assertIn("No project memory yet", out["context"])
        self.assertIn("record_memory.py", out["context"])
        self.assertFalse(self.store.exists())
        self.store.mkdir()
        code, out = self.load()
        self.assertEqual(code, 0)
        self.assertIn("empty", out["context"])


class BudgetTest(_support.TempProject):
    def build(self, facts=300, daily_lines=1500, memory_lines=200):
        items = [make_item("t%d" % (i % 5), "Fact number %d says component %s owns queue %s" % (i, i * 7, i * 13),
                           "2026-11-%02dT%02d:00:00Z" % (1 + i % 28, i % 24)) for i in range(facts)]
        for t in range(5):
            write_topic(self.store, "t%d" % t, [it for it in items if it["id"].startswith("t%d-" % t)])
        write_daily(self.store, "2026-11-30", ["- 10:00Z a long daily trail entry %d %s" % (i, "x" * 60)
                                               for i in range(daily_lines)])
        (self.store / "MEMORY.md").write_text("\n".join("- confirmed rule %d %s" % (i, "y" * 50)
                                                        for i in range(memory_lines)), "utf-8")

    def test_budget_is_never_exceeded_and_no_layer_starves(self):
        self.build()
        for budget in (300, 1000, 4000, 9000, 20000):
            text, report = loading.load_context(str(self.project), str(self.store),
                                                dict(SETTINGS, max_chars=budget))
            self.assertLessEqual(len(text), budget, budget)
            if budget >= 4000:
                for layer in ("layer1", "layer2", "layer3"):
                    self.assertGreater(report["layers"][layer]["included"], 3, (budget, layer))

    def test_long_daily_file_cannot_push_out_layer1(self):
        self.build(facts=40, daily_lines=3000, memory_lines=0)
        text, report = loading.load_context(str(self.project), str(self.store), SETTINGS)
        self.assertLessEqual(len(text), 9000)
        self.assertEqual(report["layers"]["layer1"]["included"], 40)

    def test_small_layers_give_room_to_big_ones(self):
        self.build(facts=3, daily_lines=3000, memory_lines=2)
        text, report = loading.load_context(str(self.project), str(self.store), SETTINGS)
        self.assertGreater(len(text), 8000)  # the unused shares went to Layer 2
        self.assertLessEqual(len(text), 9000)

    def test_giant_single_line_is_clipped(self):
        (self.store).mkdir()
        (self.store / "MEMORY.md").write_text("- " + "z" * 50000, "utf-8")
        write_topic(self.store, "a", [make_item("a", "Small fact stays", "2026-11-01T00:00:00Z")])
        text, _r = loading.load_context(str(self.project), str(self.store), SETTINGS)
        self.assertIn("Small fact stays", text)
        self.assertLessEqual(len(text), 9000)

    if given is not None:
        @settings(max_examples=40, deadline=None)
        @given(budget=hs.integers(min_value=500, max_value=12000),
               lines=hs.lists(hs.text(min_size=0, max_size=300), max_size=40),
               facts=hs.lists(hs.text(min_size=1, max_size=500), max_size=40))
        def test_property_output_within_budget(self, budget, lines, facts):
            import shutil
            shutil.rmtree(str(self.store), ignore_errors=True)
            self.store.mkdir()
            (self.store / "MEMORY.md").write_text("\n".join(lines), "utf-8", errors="replace")
            write_daily(self.store, "2026-11-30", [l.replace("\n", " ") for l in lines])
            write_topic(self.store, "p", [make_item("p", f or "x", "2026-11-01T00:00:%02dZ" % (i % 60))
                                          for i, f in enumerate(facts)])
            text, report = loading.load_context(str(self.project), str(self.store),
                                                dict(SETTINGS, max_chars=budget))
            self.assertLessEqual(len(text), budget)
            self.assertIn("[memory-3layer]", text)
    else:
        def test_property_output_within_budget(self):
            self.skipTest("needs hypothesis (requirements.txt) for this property test")


if __name__ == "__main__":
    unittest.main()


class QuickArgsTest(unittest.TestCase):
    """load_memory.py parses its usual options by hand (argparse costs a load ~12 ms) and leaves
    --help, errors and anything unusual to argparse."""

    def test_usual_options_and_fallbacks(self):
        from memory_core.cli import quick_args
        spec = {"--project-dir": str, "--max-chars": int, "--json": bool}
        args = quick_args(["--project-dir", "/p", "--max-chars=4000", "--json"], spec)
        self.assertEqual((args.project_dir, args.max_chars, args.json), ("/p", 4000, True))
        self.assertIsNone(quick_args(["--help"], spec))
        self.assertIsNone(quick_args(["--max-chars", "x"], spec))
        self.assertIsNone(quick_args(["--max-chars"], spec))
        self.assertIsNone(quick_args(["--json=yes"], spec))
        self.assertEqual(quick_args([], spec).max_chars, None)
