"""review_memory.py: reads only by default; blocked pair search; proposals applied only when named
and confirmed; nothing is ever deleted."""
import json

import _support
from _support import run_json, run_script, snapshot
from memory_core import review


def review_json(project, *args):
    return run_json("review_memory.py", "--project-dir", project, *args)


class ReviewTest(_support.TempProject):
    def setUp(self):
        super().setUp()
        self.record("The API timeout is 500ms", "--topic", "api")
        self.record("The API timeout is 900ms", "--topic", "api", "--keep-both")
        self.record("Deploys go through the staging branch", "--topic", "deploy")
        # record now skips this repeat in another topic, so it arrives as a merge from another branch would
        self._hand_add("ops", "deploys go through the staging branch!")  # other topic: duplicate
        self.record("The frontend uses pnpm", "--topic", "tools")
        self.record("The frontend uses npm", "--topic", "web", "--keep-both")  # other topic: conflict
        self.record("Logs are kept for 30 days", "--topic", "ops")

    def _hand_add(self, topic, text):
        from memory_core import store as st
        from memory_core.similarity import fact_id
        path = self.store / "areas" / "topics" / topic / "items.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        stamp = st.iso(st.utc_now())  # newer than the facts recorded before it
        path.write_bytes(st.dump_items(topic, {}, [{
            "id": fact_id(topic, text), "fact": text, "status": "active", "category": "fact", "source": "user",
            "inferred": False, "created_at": stamp, "updated_at": stamp, "superseded_by": None,
            "supersedes": [], "tags": []}]))

    def test_a_proposal_found_with_stale_days_applies_with_the_same_option(self):
        from memory_core import store as st
        from memory_core.similarity import fact_id
        path = self.store / "areas" / "topics" / "old" / "items.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        import time
        text = "The nightly export runs at 02:00 UTC"
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 20 * 86400))  # stale at 5 days, not 180
        path.write_bytes(st.dump_items("old", {}, [{
            "id": fact_id("old", text), "fact": text, "status": "active", "category": "fact", "source": "user",
            "inferred": False, "created_at": stamp, "updated_at": stamp, "superseded_by": None,
            "supersedes": [], "tags": []}]))
        code, out = review_json(self.project, "--stale-days", "5")
        stale = [f for f in out["findings"] if f["kind"] == "stale-age"]
        self.assertEqual(len(stale), 1, out["findings"])
        code, done = review_json(self.project, "--stale-days", "5", "--apply", stale[0]["proposal"], "--confirm")
        self.assertEqual(code, 0, done)
        self.assertIn("needs_review", json.dumps(done["written"]))

    def test_reports_duplicates_and_conflicts_across_topics_and_writes_nothing(self):
        before = snapshot(self.store)
        code, out = review_json(self.project)
        self.assertEqual(code, 1, out)
        self.assertEqual(before, snapshot(self.store))
        kinds = sorted((f["kind"], tuple(sorted(f["ids"]))) for f in out["findings"])
        found = dict((k, ids) for k, ids in kinds)
        self.assertIn("duplicate", found)
        self.assertEqual(sum(1 for k, _ids in kinds if k == "conflict"), 2)  # 500/900ms and pnpm/npm
        for f in out["findings"]:
            self.assertTrue(f["proposal"].startswith("P-"))
            self.assertTrue(f["evidence"])
            self.assertIn(f["action"]["op"], ("supersede", "needs_review"))

    def test_value_conflicts_are_never_merged(self):
        code, out = review_json(self.project)
        conflicts = [f for f in out["findings"] if f["kind"] == "conflict"]
        self.assertTrue(conflicts, out["findings"])  # the store holds one (500ms / 900ms)
        for f in conflicts:
            self.assertEqual(f["action"]["op"], "supersede")  # one replaces the other, never a merge

    def test_alike_wording_is_judged_by_meaning(self):
        """Two tiers' limits worded 90% alike are two scopes (no finding); a near copy with the
        same content words is a duplicate; the 500/900ms pair stays a conflict."""
        self._hand_add("limits", "Free tier is limited to 1,000 API calls per day.")
        self._hand_add("limits2", "Pro tier is limited to 100,000 API calls per day.")
        _code, out = review_json(self.project)
        texts = [f["evidence"] for f in out["findings"]]
        self.assertFalse([t for t in texts if "tier" in t], texts)
        self.assertTrue([t for t in texts if "500ms" in t and "900ms" in t], texts)

    def test_apply_needs_confirm_and_only_named_proposals(self):
        _code, out = review_json(self.project)
        dup = [f for f in out["findings"] if f["kind"] == "duplicate"][0]
        before = snapshot(self.store)
        code, shown = review_json(self.project, "--apply", dup["proposal"])
        self.assertEqual(before, snapshot(self.store))
        self.assertEqual([f["proposal"] for f in shown["would_apply"]], [dup["proposal"]])
        code, done = review_json(self.project, "--apply", dup["proposal"], "--confirm")
        self.assertEqual(code, 0, done)
        old, new = dup["action"]["old"], dup["action"]["new"]
        items = {}
        for path in self.store.glob("areas/topics/*/items.json"):
            for item in json.loads(path.read_text())["items"]:
                items[item["id"]] = item
        self.assertEqual((items[old]["status"], items[old]["superseded_by"]), ("superseded", new))
        self.assertEqual(len(items), 7)  # nothing deleted
        self.assertEqual(sum(1 for i in items.values() if i["status"] == "superseded"), 1)
        code, out = review_json(self.project, "--apply", "P-doesnotexist", "--confirm")
        self.assertEqual(code, 1)
        code, hist = review_json(self.project, "--history", old)
        self.assertEqual([e["op"] for e in hist["history"]], ["record", "review-apply"])

    def test_stale_by_age_and_corrupt_files(self):
        env = _support.clean_env(MEMORY_3LAYER_NOW="2020-01-01T00:00:00Z")
        run_json("record_memory.py", "--project-dir", self.project, "--fact", "The legacy importer reads CSV files",
                 "--topic", "old", env=env)
        (self.store / "areas/topics/broken").mkdir()
        (self.store / "areas/topics/broken/items.json").write_text("{oops")
        code, out = review_json(self.project)
        stale = [f for f in out["findings"] if f["kind"] == "stale-age"]
        self.assertEqual(len(stale), 1)
        self.assertEqual(stale[0]["action"]["op"], "needs_review")
        self.assertEqual([p["kind"] for p in out["problems"]], ["corrupt"])
        self.assertEqual((self.store / "areas/topics/broken/items.json").read_text(), "{oops")

    def test_superseded_listed_on_request(self):
        _c, out = self.record("The API timeout is 500ms", "--topic", "api")
        self.record("The API timeout is 650ms", "--topic", "api", "--supersedes", out["duplicate_of"], "--keep-both")
        code, rep = review_json(self.project, "--superseded")
        self.assertIn(out["duplicate_of"], [i["id"] for i in rep["superseded_items"]])

    def test_human_output(self):
        proc = run_script("review_memory.py", "--project-dir", self.project)
        text = proc.stdout.decode()
        self.assertIn("nothing was written", text)
        self.assertIn("evidence:", text)
        self.assertIn("proposal:", text)


class BlockingTest(_support.TempProject):
    def test_pairs_grow_subquadratically(self):
        import random
        rng = random.Random(3)
        words = ["w%d" % i for i in range(3000)]
        facts = [{"_norm": " ".join(rng.sample(words, 8)), "id": str(i)} for i in range(4000)]
        pairs = review.candidate_pairs(facts)
        self.assertLess(len(pairs), 4000 * 50)  # quadratic would be ~8,000,000
        twin = dict(facts[0])
        twin["id"] = "twin"
        self.assertIn((0, 4000), review.candidate_pairs(facts + [twin]))


class SupersedeChainTest(_support.TempProject):
    def test_chain_loads_only_the_head_and_cycles_are_refused(self):
        _c, a = self.record("The API timeout is 500ms", "--topic", "api")
        _c, b = self.record("The API timeout is 700ms", "--topic", "api", "--supersedes", a["id"])
        _c, c = self.record("The API timeout is 900ms", "--topic", "api", "--supersedes", b["id"])
        layer1 = self.load()[1]["context"].split("[Layer 1]")[1]
        self.assertIn("900ms", layer1)
        self.assertNotIn("700ms", layer1)
        self.assertNotIn("500ms", layer1)
        # bringing back a superseded text would close the loop a -> b -> c -> a
        code, out = self.record("The API timeout is 500ms", "--topic", "api", "--supersedes", c["id"])
        self.assertEqual(code, 1, out)
        code, out = self.record("The API timeout is 650ms", "--topic", "api", "--supersedes", a["id"])
        self.assertEqual(code, 1, out)  # a is no longer the head of its chain
        self.assertIn("already superseded", out["error"])
        items = json.loads((self.store / "areas/topics/api/items.json").read_text())["items"]
        self.assertEqual([i["status"] for i in items], ["superseded", "superseded", "active"])


class NeedsReviewLoadTest(_support.TempProject):
    def test_flagged_fact_loads_marked(self):
        env = _support.clean_env(MEMORY_3LAYER_NOW="2020-01-01T00:00:00Z")
        run_json("record_memory.py", "--project-dir", self.project, "--fact", "The legacy importer reads CSV files",
                 "--topic", "old", env=env)
        self.record("A recent fact about the build cache", "--topic", "old")
        _code, out = review_json(self.project)
        pid = [f["proposal"] for f in out["findings"] if f["kind"] == "stale-age"][0]
        review_json(self.project, "--apply", pid, "--confirm")
        layer1 = self.load()[1]["context"].split("[Layer 1]")[1]
        self.assertIn("[needs review] The legacy importer reads CSV files", layer1)
        self.assertNotIn("[needs review] A recent fact", layer1)
