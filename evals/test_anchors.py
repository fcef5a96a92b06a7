"""Facts anchored to code: stored hashes, and [stale?] once the file changes or goes."""
import json
import shutil
import subprocess
import unittest

import _support


class AnchorTest(_support.TempProject):
    def setUp(self):
        super().setUp()
        (self.project / "src").mkdir()
        self.config = self.project / "src" / "config.py"
        self.config.write_text("TIMEOUT = 500\n")

    def layer1(self):
        _code, out = self.load()
        return out["context"].split("[Layer 1]")[1]

    def test_git_blob_id_when_in_git(self):
        if shutil.which("git") is None:
            self.skipTest("git not installed")
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        code, out = self.record("The timeout lives in src/config.py", "--anchor", "src/config.py")
        self.assertEqual(code, 0, out)
        expected = subprocess.run(["git", "hash-object", str(self.config)], capture_output=True,
                                  universal_newlines=True).stdout.strip()
        self.assertEqual(out["anchors"], [{"path": "src/config.py", "hash": "git:" + expected}])
        item = json.loads((self.store / "areas/topics/general/items.json").read_text())["items"][0]
        self.assertEqual(item["anchors"], out["anchors"])

    def test_sha256_outside_git_and_stale_after_change_or_removal(self):
        code, out = self.record("The timeout lives in src/config.py", "--anchor", "src/config.py")
        self.assertTrue(out["anchors"][0]["hash"].startswith("sha256:"))
        self.record("An unanchored fact about logging levels")  # second write: loads come from the index
        self.assertNotIn("[stale?]", self.layer1())
        self.config.write_text("TIMEOUT = 900\n")
        self.assertIn("[stale?] The timeout lives", self.layer1())
        self.assertNotIn("[stale?] An unanchored", self.layer1())
        self.config.write_text("TIMEOUT = 500\n")
        self.assertNotIn("[stale?]", self.layer1())
        self.config.unlink()
        self.assertIn("[stale?] The timeout lives", self.layer1())

    def test_bad_anchors_refused_and_nothing_written(self):
        outside = self.project.parent / "outside.py"
        outside.write_text("x")
        for bad in (str(outside), "missing.py", "src", "../outside.py"):
            code, out = self.record("A fact with a bad anchor", "--anchor", bad)
            self.assertEqual(code, 2, (bad, out))
            self.assertIn("--anchor", out["error"])
        self.assertFalse(self.store.exists())


if __name__ == "__main__":
    unittest.main()
