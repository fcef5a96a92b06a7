"""Project root and store resolution (SPEC.md, The store)."""
import os
import unittest

import _support
from memory_core import paths
from memory_core.paths import StoreError, resolve_store


class ResolveStoreTest(_support.TempProject):
    def test_explicit_project_dir_is_the_root(self):
        root, store, how = resolve_store(str(self.project), env={})
        self.assertEqual(root, str(self.project))
        self.assertEqual(store, str(self.store))
        self.assertEqual(how, "--project-dir")

    def test_walk_up_finds_existing_store_before_git_top(self):
        (self.project / ".git").mkdir()
        sub = self.project / "pkg" / "inner"
        sub.mkdir(parents=True)
        (self.project / "pkg" / ".memory-3layer").mkdir()
        root, store, how = resolve_store(cwd=str(sub), env={})
        self.assertEqual(root, str(self.project / "pkg"))
        self.assertEqual(how, "existing store")

    def test_git_top_level_when_no_store(self):
        (self.project / ".git").mkdir()
        sub = self.project / "a" / "b"
        sub.mkdir(parents=True)
        root, _store, how = resolve_store(cwd=str(sub), env={})
        self.assertEqual((root, how), (str(self.project), "git top level"))

    def test_git_worktree_file_counts_as_top_level(self):
        (self.project / ".git").write_text("gitdir: /elsewhere\n")
        sub = self.project / "src"
        sub.mkdir()
        self.assertEqual(resolve_store(cwd=str(sub), env={})[0], str(self.project))

    def test_cwd_when_nothing_found(self):
        root, _store, how = resolve_store(cwd=str(self.project), env={})
        self.assertEqual((root, how), (str(self.project), "current directory"))

    def test_project_dir_in_a_git_subfolder_resolves_to_the_top_level(self):
        (self.project / ".git").mkdir()
        sub = self.project / "packages" / "a"
        sub.mkdir(parents=True)
        root, store, how = resolve_store(str(sub), env={})
        self.assertEqual((root, store), (str(self.project), str(self.store)))
        self.assertEqual(how, "git top level of %s" % sub)

    def test_project_dir_below_a_store_resolves_to_that_store(self):
        (self.project / ".git").mkdir()
        (self.project / ".memory-3layer").mkdir()
        (self.project / "packages" / ".memory-3layer").mkdir(parents=True)
        sub = self.project / "packages" / "a" / "src"
        sub.mkdir(parents=True)
        root, _store, how = resolve_store(str(sub), env={})
        self.assertEqual((root, how), (str(self.project / "packages"), "existing store above %s" % sub))
        root, _store, how = resolve_store(str(self.project / "packages"), env={})
        self.assertEqual((root, how), (str(self.project / "packages"), "--project-dir"))

    def test_project_dir_outside_git_is_itself(self):
        sub = self.project / "notes"
        sub.mkdir()
        self.assertEqual(resolve_store(str(sub), env={})[:3:2], (str(sub), "--project-dir"))
        (self.project / ".memory-3layer").mkdir()  # a store above, outside git: nothing bounds the walk, so no walk
        self.assertEqual(resolve_store(str(sub), env={})[:3:2], (str(sub), "--project-dir"))

    def test_project_dir_never_reaches_a_store_above_its_git_top_or_in_home(self):
        (self.project / ".memory-3layer").mkdir()  # a stray store above the repository
        repo = self.project / "repo"
        (repo / ".git").mkdir(parents=True)
        (repo / "sub").mkdir()
        self.assertEqual(resolve_store(str(repo / "sub"), env={})[0], str(repo))
        plain = self.project / "plain" / "sub"
        plain.mkdir(parents=True)
        from unittest import mock
        with mock.patch.dict(os.environ, {"HOME": str(self.project)}):
            self.assertEqual(resolve_store(str(plain), env={})[0], str(plain))

    def test_memory_dir_inside_project(self):
        _root, store, _how = resolve_store(str(self.project), env={"MEMORY_DIR": "docs/memory"})
        self.assertEqual(store, str(self.project / "docs" / "memory"))

    def test_memory_dir_outside_or_equal_refused(self):
        for bad in ("..", "../elsewhere", ".", "/tmp/x", "a/../../x"):
            with self.assertRaises(StoreError, msg=bad) as ctx:
                resolve_store(str(self.project), env={"MEMORY_DIR": bad})
            self.assertIn("MEMORY_DIR", ctx.exception.message + (ctx.exception.fix or ""))

    def test_symlink_on_the_way_refused(self):
        outside = self.project.parent / "outside"
        outside.mkdir()
        os.symlink(str(outside), str(self.project / ".memory-3layer"))
        with self.assertRaises(StoreError) as ctx:
            resolve_store(str(self.project), env={})
        self.assertIn("symbolic link", ctx.exception.message)
        (self.project / "docs").mkdir()
        os.symlink(str(outside), str(self.project / "docs" / "mem"))
        with self.assertRaises(StoreError):
            resolve_store(str(self.project), env={"MEMORY_DIR": "docs/mem/store"})

    def test_missing_project_dir_refused(self):
        with self.assertRaises(StoreError):
            resolve_store(str(self.project / "nope"), env={})


class TopicNameTest(unittest.TestCase):
    def test_rules(self):
        for good in ("workflow", "a", "x" * 64, "api-2"):
            self.assertIsNone(paths.topic_error(good), good)
        for bad in ("", "../x", "a/b", "x" * 65, "Upper", "a b", "a.b", "a\\b", "é"):
            self.assertIsNotNone(paths.topic_error(bad), bad)


if __name__ == "__main__":
    unittest.main()
