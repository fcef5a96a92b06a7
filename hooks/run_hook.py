#!/usr/bin/env python3
"""memory-3layer hook entry: the one command every host config calls.

  run_hook.py EVENT [--host claude|codex|manual] [--project-dir DIR] [--via-plugin] < payload.json

EVENT is SessionStart, PostToolUse or PreCompact. Reads the host's JSON payload on stdin and
always exits 0 with one JSON object on stdout, so a problem here never blocks the host; when it
skips something, a one-line "systemMessage" says why. Every run is logged to
.memory-3layer/state/hook-runs.jsonl: the evidence that hooks really run. --via-plugin (the Claude
Code plugin's hooks/hooks.json) steps aside, answering {}, where the project runs its own copy.
"""
import os
import sys


def main():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
    from memory_core.hooks import main as run
    return run(sys.argv[1:], __doc__)


if __name__ == "__main__":
    try:
        code = main()
    except BaseException:  # even a broken install answers its host with valid JSON and exit 0
        sys.stdout.write('{"systemMessage": "memory-3layer: hook failed to start"}\n')
        code = 0
    sys.exit(code)
