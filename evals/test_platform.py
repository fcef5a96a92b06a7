"""Supported systems: POSIX (Linux, tested; macOS, the same calls, untested here). Windows is not
supported, and no Windows-only branch is left to rot untested."""
import builtins
import os
import unittest

import _support
from memory_core import store as st
from memory_core.paths import StoreError


class PosixOnlyTest(_support.TempProject):
    def test_without_fcntl_the_lock_says_what_is_needed(self):
        real_import = builtins.__import__

        def no_fcntl(name, *args, **kw):
            if name == "fcntl":
                raise ImportError("No module named 'fcntl'")
            return real_import(name, *args, **kw)

        os.makedirs(str(self.store))
        builtins.__import__ = no_fcntl
        try:
            with self.assertRaises(StoreError) as ctx:
                with st.StoreLock(str(self.store)):
                    pass
        finally:
            builtins.__import__ = real_import
        self.assertEqual(ctx.exception.exit_code, 2)
        self.assertIn("POSIX", str(ctx.exception))
        self.assertIn("WSL", ctx.exception.fix)

    def test_no_windows_branch_in_the_code(self):
        read = 0
        for folder in (_support.SCRIPTS, _support.HOOKS):
            for root, _dirs, files in os.walk(str(folder)):
                for name in files:
                    if name.endswith(".py"):
                        text = open(os.path.join(root, name), encoding="utf-8").read()
                        read += 1
                        for needle in ("msvcrt", 'os.name == "nt"', 'os.name != "nt"', "O_BINARY"):
                            self.assertNotIn(needle, text, os.path.join(root, name))
        self.assertGreater(read, 40)

    def test_the_readme_says_which_systems(self):
        readme = (_support.REPO / "README.md").read_text("utf-8")
        self.assertIn("Linux", readme)
        self.assertIn("Windows is not supported", readme)


if __name__ == "__main__":
    unittest.main()
