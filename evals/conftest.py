"""pytest glue: print the figures tests measured (see _support.report_metric) in the summary, also
when pytest-xdist runs the tests in worker processes (each sends its figures back when it ends)."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _support  # noqa: E402


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)  # set only in an xdist worker
    if workeroutput is not None:
        workeroutput["m3l_metrics"] = json.dumps(_support.METRICS)


def pytest_testnodedown(node, error):  # an xdist hook, called in the controller
    _support.METRICS.update(json.loads(getattr(node, "workeroutput", {}).get("m3l_metrics", "{}")))


def pytest_terminal_summary(terminalreporter):
    if _support.METRICS:
        terminalreporter.section("memory-3layer measured figures")
        for name in sorted(_support.METRICS):
            terminalreporter.write_line("%s: %s" % (name, _support.METRICS[name]))
