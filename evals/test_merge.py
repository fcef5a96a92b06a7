"""scripts/merge_memory.py, the git merge driver for items.json (memory_core/merging.py): field-level
three-way rules, a result that does not depend on the side, and real git merges of parallel branches."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import _support
from memory_core import merging
from memory_core import store as st


def item(item_id, fact, stamp="2026-01-01T00:00:00Z", **extra):
    out = {"id": item_id, "fact": fact, "status": "active", "category": "fact", "source": "user",
           "inferred": False, "created_at": stamp, "updated_at": stamp, "superseded_by": None,
           "supersedes": [], "tags": []}
    out.update(extra)
    return out


def doc(*items, **top):
    out = {"schema": "memory-3layer/items@1", "topic": "ops", "items": list(items)}
    out.update(top)
    return out


class MergeRulesTest(unittest.TestCase):
    def merged(self, base, ours, theirs):
        one = merging.merge_docs(base, ours, theirs)
        other = merging.merge_docs(base, theirs, ours)
        self.assertEqual(merging.canonical(one), merging.canonical(other))  # no side wins for being ours
        return dict((it["id"], it) for it in one["items"]), one

    def test_items_of_both_sides_are_kept_in_canonical_order(self):
        base = doc(item("a", "A", "2026-01-01T00:00:00Z"))
        ours = doc(base["items"][0], item("c", "C", "2026-01-03T00:00:00Z"))
        theirs = doc(base["items"][0], item("b", "B", "2026-01-02T00:00:00Z"))
        _by_id, out = self.merged(base, ours, theirs)
        self.assertEqual([it["id"] for it in out["items"]], ["a", "b", "c"])

    def test_a_field_changed_on_one_side_takes_that_side(self):
        base = doc(item("a", "A"))
        ours = doc(dict(base["items"][0], category="decision"))
        theirs = doc(dict(base["items"][0], tags=["ops"]))
        by_id, _ = self.merged(base, ours, theirs)
        self.assertEqual((by_id["a"]["category"], by_id["a"]["tags"]), ("decision", ["ops"]))
        self.assertNotIn("needs_review", by_id["a"])

    def test_both_changed_superseded_wins_lists_union_times_and_unknown_fields(self):
        base = doc(item("a", "A", tags=["x"], extra_field=1))
        ours = doc(dict(base["items"][0], status="superseded", tags=["x", "y"], updated_at="2026-02-01T00:00:00Z",
                        created_at="2025-12-31T00:00:00Z", extra_field=1, only_ours="kept"))
        theirs = doc(dict(base["items"][0], status="active", tags=["z"], updated_at="2026-03-01T00:00:00Z"),
                     future_top_level={"k": 1})
        theirs["items"][0]["status"] = "deprecated"
        by_id, out = self.merged(base, ours, theirs)
        a = by_id["a"]
        self.assertEqual(a["status"], "superseded")
        self.assertEqual(a["tags"], ["x", "y", "z"])  # both changed the list: the union of both sides
        self.assertEqual((a["created_at"], a["updated_at"]), ("2025-12-31T00:00:00Z", "2026-03-01T00:00:00Z"))
        self.assertEqual((a["extra_field"], a["only_ours"]), (1, "kept"))
        self.assertEqual(out["future_top_level"], {"k": 1})

    def test_another_field_both_changed_takes_the_later_side_and_is_flagged(self):
        base = doc(item("a", "Retries: 3"))
        ours = doc(dict(base["items"][0], category="decision", updated_at="2026-02-01T00:00:00Z"))
        theirs = doc(dict(base["items"][0], category="convention", updated_at="2026-03-01T00:00:00Z"))
        by_id, _ = self.merged(base, ours, theirs)
        self.assertEqual(by_id["a"]["category"], "convention")
        self.assertIn("both branches changed category", by_id["a"]["needs_review"])
        self.assertIn("decision", by_id["a"]["needs_review"])

    def test_competing_supersedes_keep_both_new_facts_active_and_flag_each_naming_the_other(self):
        old = item("old", "The timeout is 30 s.")
        base = doc(old)
        ours = doc(dict(old, status="superseded", superseded_by="n1", updated_at="2026-02-01T00:00:00Z"),
                   item("n1", "The timeout is 45 s.", "2026-02-01T00:00:00Z", supersedes=["old"]))
        theirs = doc(dict(old, status="superseded", superseded_by="n2", updated_at="2026-02-02T00:00:00Z"),
                     item("n2", "The timeout is 60 s.", "2026-02-02T00:00:00Z", supersedes=["old"]))
        by_id, _ = self.merged(base, ours, theirs)
        self.assertEqual(by_id["old"]["status"], "superseded")
        for new, rival, text in (("n1", "n2", "60 s"), ("n2", "n1", "45 s")):
            self.assertEqual(by_id[new]["status"], "active")
            self.assertIn("both branches superseded old", by_id[new]["needs_review"])
            self.assertIn(rival, by_id[new]["needs_review"])
            self.assertIn(text, by_id[new]["needs_review"])

    def test_contradicting_facts_added_on_each_side_stay_active_and_are_flagged_naming_each_other(self):
        ours = doc(item("p1", "We use pnpm for every package.", "2026-02-01T00:00:00Z"))
        theirs = doc(item("y1", "We use yarn for every package.", "2026-02-02T00:00:00Z"),
                     item("u1", "The CDN is CloudFront.", "2026-02-02T00:00:00Z"))
        by_id, _ = self.merged(doc(), ours, theirs)
        self.assertEqual((by_id["p1"]["status"], by_id["y1"]["status"]), ("active", "active"))
        self.assertEqual(by_id["p1"]["merge_rivals"], ["y1"])
        self.assertIn("yarn", by_id["p1"]["needs_review"])
        self.assertEqual(by_id["y1"]["merge_rivals"], ["p1"])
        self.assertNotIn("needs_review", by_id["u1"])

    def test_the_same_fact_added_on_both_sides_is_one_item(self):
        both = item("same", "Same fact.")
        by_id, out = self.merged(doc(), doc(both), doc(dict(both)))
        self.assertEqual(len(out["items"]), 1)
        self.assertNotIn("needs_review", by_id["same"])


try:
    from hypothesis import given, settings, strategies as hs
except ImportError:
    given = None


class DailyOrderTest(unittest.TestCase):
    def test_the_next_write_puts_a_merged_trail_back_in_time_order(self):
        merged = ("# 2026-12-07\n\n- 09:10Z [ops] ours one (id a)\n- 11:00Z [ops] ours two (id b)\n"
                  "<!-- a note by hand -->\n- 10:05Z [api] theirs one (id c)\n")
        self.assertEqual(st.in_time_order(merged + "- 11:30Z [ops] new (id d)\n"),
                         "# 2026-12-07\n\n- 09:10Z [ops] ours one (id a)\n- 10:05Z [api] theirs one (id c)\n"
                         "<!-- a note by hand -->\n- 11:00Z [ops] ours two (id b)\n- 11:30Z [ops] new (id d)\n")
        ordered = "# d\n\n- 01:00Z x\n- 02:00Z y\n"
        self.assertIs(st.in_time_order(ordered), ordered)


class MergePropertyTest(unittest.TestCase):
    @unittest.skipIf(given is None, "needs hypothesis (requirements.txt) for the property test")
    def test_property_the_merge_does_not_depend_on_the_side_and_drops_no_id(self):
        field = hs.sampled_from(["status", "category", "tags", "updated_at", "created_at", "fact", "custom"])
        value = hs.one_of(hs.sampled_from(["active", "superseded", "a", "b", "2026-01-01T00:00:00Z",
                                           "2026-02-01T00:00:00Z"]), hs.lists(hs.sampled_from(["x", "y"]), max_size=2))
        edits = hs.lists(hs.tuples(hs.sampled_from(["i1", "i2", "i3", "i4"]), field, value), max_size=6)

        @settings(max_examples=150, deadline=None)
        @given(base_ids=hs.sets(hs.sampled_from(["i1", "i2", "i3"])), ours_edits=edits, theirs_edits=edits)
        def check(base_ids, ours_edits, theirs_edits):
            base = [item(i, "fact " + i) for i in sorted(base_ids)]
            sides = []
            for changes in (ours_edits, theirs_edits):
                side = dict((it["id"], dict(it)) for it in base)
                for item_id, key, val in changes:
                    side.setdefault(item_id, item(item_id, "fact " + item_id))[key] = val
                sides.append(doc(*side.values()))
            one = merging.merge_docs(doc(*base), sides[0], sides[1])
            other = merging.merge_docs(doc(*base), sides[1], sides[0])
            self.assertEqual(merging.canonical(one), merging.canonical(other))
            ids = set(it["id"] for side in sides for it in side["items"])
            self.assertEqual(set(it["id"] for it in one["items"]), ids)
        check()


def git(cwd, *args):
    proc = subprocess.run(["git"] + list(args), cwd=str(cwd), capture_output=True, timeout=60,
                          env=dict(_support.clean_env(), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com",
                                   HOME=str(cwd), GIT_CONFIG_NOSYSTEM="1"))
    return proc


def record(test, repo, fact, *args, topic="ops"):
    """record_memory.py into the repository's store, which must succeed."""
    proc = _support.run_script("record_memory.py", "--project-dir", repo, "--fact", fact, "--topic", topic,
                               "--force-surface", *args)
    test.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)


def branches(test, repo, facts, *args, topic="ops", start="main", in_process=False):
    """For each (branch, fact or [facts]): a branch from start where the facts are recorded and committed;
    in_process: by the recorder itself (keeping both of a conflict), quicker than a script per fact."""
    for name, found in facts:
        git(repo, "checkout", "-q", "-b", name, start)
        for fact in [found] if isinstance(found, str) else found:
            if in_process:
                from memory_core import recording
                from memory_core.paths import resolve_store
                root, store, _how = resolve_store(repo, env={})
                recording.record_fact(root, store, fact, topic=topic, keep_both=True, force_surface=True)
            else:
                record(test, repo, fact, *args, topic=topic)
        git(repo, "add", "-A")
        test.assertEqual(git(repo, "commit", "-qm", name).returncode, 0)


def merge(test, repo, into, other):
    """Check out into and merge other into it, which must succeed."""
    git(repo, "checkout", "-q", into)
    proc = git(repo, "merge", "-q", "--no-edit", other)
    test.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)


@unittest.skipIf(shutil.which("git") is None, "needs git")
class RealGitMergeTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="m3l-merge-")
        self.addCleanup(shutil.rmtree, self.root, True)
        self.repo = os.path.join(self.root, "repo")
        os.mkdir(self.repo)
        self.assertEqual(git(self.repo, "init", "-q", "-b", "main").returncode, 0)
        driver = "%s %s %%O %%A %%B %%P" % (_support.PYTHON, _support.SCRIPTS / "merge_memory.py")
        git(self.repo, "config", "merge.memory-3layer.driver", driver)
        with open(os.path.join(self.repo, ".gitattributes"), "w") as fh:
            fh.write(".memory-3layer/areas/topics/*/items.json merge=memory-3layer\n.memory-3layer/memory/*.md merge=union\n")
        with open(os.path.join(self.repo, ".gitignore"), "w") as fh:
            fh.write(".memory-3layer/state/\n")
        record(self, self.repo, "The deploy script is tools/deploy.sh.")
        git(self.repo, "add", "-A")
        self.assertEqual(git(self.repo, "commit", "-qm", "base").returncode, 0)

    def items_bytes(self):
        with open(os.path.join(self.repo, ".memory-3layer", "areas", "topics", "ops", "items.json"), "rb") as fh:
            return fh.read()

    def test_two_branches_merge_in_either_order_with_every_fact_and_the_same_bytes(self):
        branches(self, self.repo, [("left", ["The staging database is Postgres 16.", "Releases are tagged vX.Y.Z."]),
                                   ("right", ["Feature flags live in flags.yaml.", "The CDN is CloudFront."])],
                 "--keep-both")
        results = []
        for first, second in (("left", "right"), ("right", "left")):
            git(self.repo, "checkout", "-q", "-B", "m-" + first, first)
            proc = git(self.repo, "merge", "-q", "--no-edit", second)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            data = self.items_bytes()
            _doc, items = st.parse_items(data.decode("utf-8"), "items.json")
            self.assertEqual(len(items), 5)
            results.append(data)
        self.assertEqual(results[0], results[1])

    def test_many_branches_merge_in_any_order_rebase_and_cherry_pick_without_conflicts(self):
        shared = "Every service logs in JSON lines."  # the same fact, the same id, on every branch
        services = ("billing", "search", "auth")
        branches(self, self.repo, [(service, ["The %s service listens on port %d." % (service, 7000 + 10 * n + k)
                                              for k in range(12)] + [shared]) for n, service in enumerate(services)],
                 in_process=True)
        results = []
        for order in (services, tuple(reversed(services))):
            git(self.repo, "checkout", "-q", "-B", "all-" + order[0], "main")
            for name in order:
                proc = git(self.repo, "merge", "-q", "--no-edit", name)
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            results.append(self.items_bytes())
        self.assertEqual(results[0], results[1])
        _doc, items = st.parse_items(results[0].decode("utf-8"), "items.json")
        self.assertEqual(len(items), 1 + 3 * 12 + 1)
        self.assertEqual(len(set(it["id"] for it in items)), len(items))
        branches(self, self.repo, [("late", ["The cache service listens on port 7100.",
                                             "The mail service listens on port 7101."])], in_process=True)
        proc = git(self.repo, "rebase", "-q", "all-" + services[0])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        _doc, items = st.parse_items(self.items_bytes().decode("utf-8"), "items.json")
        self.assertEqual(len(items), 38 + 2)
        branches(self, self.repo, [("picked", "The queue service listens on port 7200.")], in_process=True)
        pick = git(self.repo, "rev-parse", "HEAD").stdout.decode().strip()
        git(self.repo, "checkout", "-q", "all-" + services[0])
        proc = git(self.repo, "cherry-pick", pick)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        _doc, items = st.parse_items(self.items_bytes().decode("utf-8"), "items.json")
        self.assertIn("The queue service listens on port 7200.", [it["fact"] for it in items])
        self.assertEqual(len(items), 38 + 1)

    def test_a_topic_both_branches_created_merges_with_the_driver_and_resolves_without_it(self):
        for with_driver in (True, False):
            if not with_driver:
                git(self.repo, "config", "--unset", "merge.memory-3layer.driver")
            suffix = "1" if with_driver else "2"
            branches(self, self.repo, [("a" + suffix, "Search uses OpenSearch 2."),
                                       ("b" + suffix, "Search results are cached.")], topic="search" + suffix)
            proc = git(self.repo, "merge", "-q", "--no-edit", "a" + suffix)  # on b: the file was added on both
            if not with_driver:
                self.assertNotEqual(proc.returncode, 0)
                proc = _support.run_script("merge_memory.py", "--resolve", "--project-dir", self.repo, cwd=self.repo)
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
                self.assertEqual(git(self.repo, "commit", "-qm", "resolved").returncode, 0)
            else:
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            path = os.path.join(self.repo, ".memory-3layer", "areas", "topics", "search" + suffix, "items.json")
            with open(path, encoding="utf-8") as fh:
                self.assertEqual(len(json.load(fh)["items"]), 2)
            git(self.repo, "checkout", "-q", "main")

    def test_a_side_that_is_not_json_is_a_conflict_left_as_it_was(self):
        folder = os.path.join(self.root, "sides")
        os.mkdir(folder)
        paths = []
        for name, text in (("base", "{}"), ("ours", "{ not json"), ("theirs", json.dumps(doc(item("a", "A"))))):
            paths.append(os.path.join(folder, name))
            with open(paths[-1], "w") as fh:
                fh.write(text)
        proc = _support.run_script("merge_memory.py", *paths)
        self.assertEqual(proc.returncode, 1)
        self.assertIn(b"our side is not valid JSON", proc.stderr)
        with open(paths[1]) as fh:
            self.assertEqual(fh.read(), "{ not json")

    def test_a_clone_without_the_driver_is_repaired_with_resolve(self):
        git(self.repo, "config", "--unset", "merge.memory-3layer.driver")  # as in a fresh clone
        branches(self, self.repo, [("left", "The staging database is Postgres 16."),
                                   ("right", "Feature flags live in flags.yaml.")], "--keep-both")
        git(self.repo, "checkout", "-q", "main")
        git(self.repo, "merge", "-q", "--no-edit", "left")
        proc = git(self.repo, "merge", "-q", "--no-edit", "right")
        self.assertNotEqual(proc.returncode, 0)  # git's text merge stops in items.json
        self.assertIn(b"<<<<<<<", self.items_bytes())
        code, load = _support.run_json("load_memory.py", "--project-dir", self.repo)
        self.assertIn("merge conflict", json.dumps(load["report"]["skipped"]))
        self.assertIn("merge_memory.py --resolve", json.dumps(load["report"]["skipped"]))
        code, check = _support.run_json("check_memory_3layer.py", "--project-dir", self.repo)
        self.assertIn("merge conflict", json.dumps(check))
        code, review = _support.run_json("review_memory.py", "--project-dir", self.repo)
        self.assertIn("merge conflict", json.dumps(review))
        proc = _support.run_script("merge_memory.py", "--resolve", "--project-dir", self.repo, cwd=self.repo)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn(b"git commit", proc.stdout)
        self.assertEqual(git(self.repo, "commit", "-qm", "merged").returncode, 0)
        _doc, items = st.parse_items(self.items_bytes().decode("utf-8"), "items.json")
        self.assertEqual(sorted(it["fact"] for it in items), ["Feature flags live in flags.yaml.",
                                                             "The deploy script is tools/deploy.sh.",
                                                             "The staging database is Postgres 16."])

    def test_competing_supersedes_are_reported_by_review_marked_by_load_and_settled_by_its_proposal(self):
        old_id = json.loads(self.items_bytes())["items"][0]["id"]
        branches(self, self.repo, [("left", "The deploy script is tools/release.sh."),
                                   ("right", "The deploy script is scripts/ship.sh.")], "--supersedes", old_id)
        merge(self, self.repo, "left", "right")
        code, load = _support.run_json("load_memory.py", "--project-dir", self.repo)
        self.assertEqual(load["context"].count("[needs review]"), 2)
        code, review = _support.run_json("review_memory.py", "--project-dir", self.repo)
        found = [f for f in review["findings"] if f["kind"] == "conflict"]
        self.assertEqual(len(found), 1, review["findings"])
        self.assertIn("tools/release.sh", found[0]["evidence"])
        self.assertIn("scripts/ship.sh", found[0]["evidence"])
        proc = _support.run_script("review_memory.py", "--project-dir", self.repo, "--apply", found[0]["proposal"],
                                   "--confirm")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        items = dict((it["id"], it) for it in json.loads(self.items_bytes())["items"])
        kept, replaced = items[found[0]["ids"][1]], items[found[0]["ids"][0]]
        self.assertEqual((kept["status"], replaced["status"]), ("active", "superseded"))
        self.assertNotIn("needs_review", kept)
        self.assertNotIn("merge_rivals", kept)


@unittest.skipIf(shutil.which("git") is None, "needs git")
class InstallerWiringTest(unittest.TestCase):
    """install_hooks.py wires the driver in a git repository; a clone lacks the local config, check says
    so with the command, and re-running the installer there registers it and changes nothing else."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="m3l-wiring-")
        self.addCleanup(shutil.rmtree, self.root, True)
        self.repo = os.path.join(self.root, "repo")
        os.mkdir(self.repo)
        git(self.repo, "init", "-q", "-b", "main")
        with open(os.path.join(self.repo, ".gitattributes"), "w") as fh:
            fh.write("*.png binary\n")

    def install(self, *extra, project=None):
        code, out = _support.run_json("install_hooks.py", "--project-dir", project or self.repo, "--platform", "claude",
                                      *extra, env=_support.clean_env(HOME=self.root, GIT_CONFIG_NOSYSTEM="1"))
        self.assertEqual(code, 0, out)
        return out

    def driver(self, repo=None):
        proc = git(repo or self.repo, "config", "--get", "merge.memory-3layer.driver")
        return proc.stdout.decode().strip() if proc.returncode == 0 else None

    def test_install_wires_reinstall_changes_nothing_and_uninstall_removes_exactly_it(self):
        out = self.install()
        with open(os.path.join(self.repo, ".gitattributes")) as fh:
            attributes = fh.read()
        self.assertTrue(attributes.startswith("*.png binary\n"))
        self.assertIn(".memory-3layer/areas/topics/*/items.json merge=memory-3layer", attributes)
        self.assertIn(".memory-3layer/memory/*.md merge=union", attributes)
        self.assertEqual(self.driver(), "python3 .claude/skills/memory-3layer/scripts/merge_memory.py %O %A %B %P")
        self.assertFalse(self.install()["changed"])
        self.install("--uninstall")
        with open(os.path.join(self.repo, ".gitattributes")) as fh:
            self.assertEqual(fh.read(), "*.png binary\n")
        self.assertIsNone(self.driver())
        self.install("--no-git-merge")
        self.assertIsNone(self.driver())

    def test_a_clone_is_told_and_a_reinstall_there_registers_the_driver_only(self):
        self.install()
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-qm", "memory")
        clone = os.path.join(self.root, "clone")
        self.assertEqual(git(self.root, "clone", "-q", self.repo, clone).returncode, 0)
        self.assertIsNone(self.driver(clone))
        code, report = _support.run_json("check_memory_3layer.py", "--project-dir", clone)
        found = [e for e in report["artifact_status"]["entries"] if e["what"] == "git merge driver"]
        self.assertEqual(len(found), 1, report["artifact_status"])
        self.assertEqual(found[0]["level"], "finding")
        self.assertIn("git config merge.memory-3layer.driver", found[0]["fix"])
        out = self.install(project=clone)
        self.assertEqual([c for c in out["changes"] if "merge driver" not in c], [])
        self.assertEqual(self.driver(clone), "python3 .claude/skills/memory-3layer/scripts/merge_memory.py %O %A %B %P")
        code, report = _support.run_json("check_memory_3layer.py", "--project-dir", clone)
        self.assertFalse([e for e in report["artifact_status"]["entries"] if e["what"] == "git merge driver"])

    def test_the_registered_driver_merges_two_branches(self):
        self.install()
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-qm", "memory")
        branches(self, self.repo, [("left", "The staging database is Postgres 16."),
                                   ("right", "Feature flags live in flags.yaml.")])
        merge(self, self.repo, "left", "right")
        with open(os.path.join(self.repo, ".memory-3layer", "areas", "topics", "ops", "items.json"), encoding="utf-8") as fh:
            self.assertEqual(len(json.load(fh)["items"]), 2)

    def test_a_linked_worktree_records_loads_runs_hooks_and_merges_with_its_own_state(self):
        self.install()
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-qm", "memory")
        tree = os.path.join(self.root, "tree")
        self.assertEqual(git(self.repo, "worktree", "add", "-q", "-b", "feature", tree).returncode, 0)
        record(self, tree, "Feature flags live in flags.yaml.")
        code, load = _support.run_json("load_memory.py", "--project-dir", tree)
        self.assertIn("flags.yaml", load["context"])
        payload = json.dumps({"session_id": "wt", "cwd": tree, "source": "startup"}).encode()
        proc = _support.run_script("run_hook.py", "SessionStart", "--host", "claude", "--project-dir", tree,
                                   input=payload, cwd=tree)
        self.assertIn(b"flags.yaml", proc.stdout)
        self.assertTrue(os.path.isdir(os.path.join(tree, ".memory-3layer", "state")))
        self.assertFalse(os.path.exists(os.path.join(self.repo, ".memory-3layer", "state", "hook-runs.jsonl")))
        _support.wait_for_rebuild(os.path.join(tree, ".memory-3layer"))
        git(tree, "add", "-A")
        git(tree, "commit", "-qm", "feature")
        record(self, self.repo, "The staging database is Postgres 16.")
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-qm", "main")
        proc = git(tree, "merge", "-q", "--no-edit", "main")  # the driver, run from the linked worktree
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with open(os.path.join(tree, ".memory-3layer", "areas", "topics", "ops", "items.json"), encoding="utf-8") as fh:
            self.assertEqual(len(json.load(fh)["items"]), 2)
