"""pytest glue: print the figures tests measured (see _support.report_metric) in the summary."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _support  # noqa: E402


def pytest_terminal_summary(terminalreporter):
    if _support.METRICS:
        terminalreporter.section("memory-3layer measured figures")
        for name in sorted(_support.METRICS):
            terminalreporter.write_line("%s: %s" % (name, _support.METRICS[name]))
