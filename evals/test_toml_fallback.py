"""The TOML reader that Pythons 3.8-3.10 use for Codex's config.toml (no tomllib there): the same
answers as tomllib on the configs Codex writes, checked here by forcing the fallback, and on a real
Python 3.8 interpreter when one is found (M3L_PYTHON38, `python3.8` on PATH, or pyenv's 3.8)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import _support
from memory_core import status

# What Codex writes: trusted projects, trusted hook hashes under keys holding paths and colons,
# feature flags, comments, and settings the trust check does not read.
CONFIGS = [
    '[projects."/home/dev/src/app"]\ntrust_level = "trusted"\n',
    '# written by codex\nmodel = "gpt-5"\napproval_policy = \'on-request\'\n\n[features]\nhooks = true\n'
    'web_search = false  # off\nmax_threads = 4\n',
    '[hooks.state."/srv/p/.codex/hooks.json:session_start:0:0"]\n'
    'trusted_hash = "sha256:0f3c9ab1e2d4c6b8a0f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4a3b"\n\n'
    '[hooks.state."/srv/p/.codex/hooks.json:post_tool_use:1:0"]\ntrusted_hash = "sha256:ab"\n',
    '[projects."/tmp/with \\"quote\\" and \\\\ slash"]\ntrust_level = "untrusted"\n'
    "[projects.'/tmp/literal key']\ntrust_level = 'trusted'\n",
    '[model_providers.fake]\nname = "fake"\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "responses"\n'
    'request_max_retries = 0\nstream_max_retries = -1\n',
]


def _tomllib():
    try:
        import tomllib  # novermin: 3.11+; the expected answers come from it
    except ImportError:
        return None
    return tomllib


class TomlFallbackTest(unittest.TestCase):
    def setUp(self):
        self.tomllib = _tomllib()
        if self.tomllib is None:
            self.skipTest("the expected answers come from tomllib (Python 3.11+); this Python is %d.%d"
                          % sys.version_info[:2])

    def test_the_fallback_reads_what_tomllib_reads(self):
        for text in CONFIGS:
            self.assertEqual(status._mini_toml(text), self.tomllib.loads(text), text)

    def test_on_python_3_8_read_toml_gives_tomllibs_answer(self):
        py38 = _support.python38()
        if py38 is None:
            self.skipTest("no Python 3.8 interpreter (set M3L_PYTHON38, or put python3.8 on PATH)")
        tmp = tempfile.mkdtemp(prefix="m3l-toml38-")
        self.addCleanup(shutil.rmtree, tmp, True)
        code = ("import json, sys; sys.path.insert(0, %r); from memory_core import status\n"
                "import importlib.util; assert importlib.util.find_spec('tomllib') is None\n"
                "print(json.dumps([status.read_toml(p) for p in sys.argv[1:]]))" % str(_support.SCRIPTS))
        paths = []
        for n, text in enumerate(CONFIGS):
            path = os.path.join(tmp, "config%d.toml" % n)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            paths.append(path)
        out = subprocess.run([py38, "-c", code] + paths, capture_output=True, universal_newlines=True,
                             env=_support.clean_env(), timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        got = json.loads(out.stdout)
        self.assertEqual(got, [[self.tomllib.loads(text), None] for text in CONFIGS])


if __name__ == "__main__":
    unittest.main()
