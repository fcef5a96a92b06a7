#!/usr/bin/env python3
"""memory-3layer hook entry: the one command every host config calls.

  run_hook.py EVENT [--host claude|codex|manual] [--project-dir DIR] < payload.json

EVENT is SessionStart, PostToolUse or PreCompact. Reads the host's JSON payload on stdin and
always exits 0 with one JSON object on stdout, so a problem here never blocks the host; when it
skips something, a one-line "systemMessage" says why. Every run is logged to
.memory-3layer/state/hook-runs.jsonl: the evidence that hooks really run.
"""
import os
import sys
import time

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts")


def parse_argv(argv):
    """EVENT and options, parsed by hand: argparse would cost every hook run ~6 ms."""
    event, options, rest = None, {}, list(argv)
    while rest:
        arg = rest.pop(0)
        if arg in ("--host", "--project-dir") and rest:
            options[arg[2:].replace("-", "_")] = rest.pop(0)
        elif arg.startswith(("--host=", "--project-dir=")):
            key, value = arg[2:].split("=", 1)
            options[key.replace("-", "_")] = value
        elif event is None and not arg.startswith("-"):
            event = arg
    return event, options


def main(argv=None):
    started = time.monotonic()
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    event, options = parse_argv(argv)
    out, store, host, outcome, reason, session_id = {}, None, options.get("host") or "unknown", "ok", None, None
    try:
        sys.path.insert(0, SCRIPTS)
        from memory_core import hooks
        raw = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read(hooks.MAX_PAYLOAD + 1)
        try:
            payload = hooks.parse_payload(raw)
        except hooks.Skip:
            payload = {}
            raise
        finally:
            host = hooks.detect_host(options.get("host"), os.environ, payload)
            session_id = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
        if event not in hooks.EVENTS:
            raise hooks.Skip("unknown event %r (expected %s)" % (event, ", ".join(hooks.EVENTS)))
        out, store = hooks.handle(event, host, payload, os.environ, options.get("project_dir"))
    except BaseException as exc:  # fail open: whatever happened, the host gets valid JSON and exit 0
        outcome = "skipped" if type(exc).__name__ in ("Skip", "StoreError", "CorruptFile") else "error"
        reason = " ".join(str(getattr(exc, "message", None) or exc or type(exc).__name__).split())[:300]
        out = {"systemMessage": "memory-3layer: %s %s: %s" % (event or "hook", outcome, reason)}
        if store is None:
            store = _store_for_log(host, options)
    try:
        from memory_core import hooks
        hooks.log_run(store, host, event or "?", outcome, reason, started, session_id)
    except BaseException:
        pass
    try:
        from memory_core.fastjson import dumps
    except BaseException:  # the core itself failed to import: the json module still answers
        from json import dumps
    sys.stdout.write(dumps(out) + "\n")
    return 0


def _store_for_log(host, options):
    """Where to log a run that failed before its store was known; None when that fails too."""
    try:
        from memory_core import hooks
        return hooks.project_for(host, {}, os.environ, options.get("project_dir"))[1]
    except BaseException:
        return None


if __name__ == "__main__":
    try:
        code = main()
    except BaseException:
        sys.stdout.write('{"systemMessage": "memory-3layer: hook failed"}\n')
        code = 0
    sys.exit(code)
