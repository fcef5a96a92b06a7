#!/usr/bin/env python3
"""Run memory-3layer's main job on a throw-away demo project and show each step.

  python3 evals/demo.py            # uses a temp folder, removed afterwards
  python3 evals/demo.py --keep DIR # keep the demo project in DIR to look around
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(os.path.dirname(HERE), "scripts")
HOOKS = os.path.join(os.path.dirname(HERE), "hooks")


def step(title, script, *args, stdin=None):
    folder = HOOKS if script.endswith("_hook.py") or script.startswith("install_") else SCRIPTS
    print("\n$ %s %s%s" % (script, " ".join(a if " " not in a else repr(a) for a in args),
                           " < payload.json" if stdin else ""))
    print("  (%s)" % title)
    proc = subprocess.run([sys.executable, os.path.join(folder, script)] + list(args), input=stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    for line in proc.stdout.rstrip().split("\n"):
        print("  | " + line)
    print("  exit %d" % proc.returncode)
    step.output = proc.stdout
    return proc.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", metavar="DIR", help="make the demo project in DIR and keep it")
    args = parser.parse_args()
    project = args.keep or tempfile.mkdtemp(prefix="memory-3layer-demo-")
    os.makedirs(project, exist_ok=True)
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", project], check=False)
    p = ["--project-dir", project]
    codes = [
        step("record a fact: creates .memory-3layer/ from the template", "record_memory.py", *p,
             "--fact", "This project uses pnpm, never npm", "--topic", "workflow"),
        step("the same fact again is reported as a duplicate", "record_memory.py", *p,
             "--fact", "this project uses pnpm; never npm.", "--topic", "workflow"),
        step("a secret is refused and nothing is written", "record_memory.py", *p,
             "--fact", "deploy with token ghp_" + "Q2w3E4r5T6y7U8i9O0p1A2s3D4f5G6h7J8k9", "--topic", "deploy"),
        step("record a value", "record_memory.py", *p, "--fact", "The API timeout is 500ms", "--topic", "api"),
        step("a conflicting value is refused until you choose", "record_memory.py", *p,
             "--fact", "The API timeout is 900ms", "--topic", "api"),
    ]
    import json
    out = subprocess.run([sys.executable, os.path.join(SCRIPTS, "record_memory.py")] + p +
                         ["--fact", "The API timeout is 500ms", "--topic", "api", "--json"],
                         stdout=subprocess.PIPE, universal_newlines=True).stdout
    old_id = json.loads(out)["duplicate_of"]
    codes += [
        step("supersede: the old value is kept as superseded", "record_memory.py", *p,
             "--fact", "The API timeout is 900ms", "--topic", "api", "--supersedes", old_id),
        step("a person confirmed it: promote to Layer 3", "record_memory.py", *p,
             "--fact", "Money is stored as integer cents", "--topic", "billing", "--category", "decision",
             "--promote", "--confirmed"),
        step("what a new session starts with", "load_memory.py", *p),
        step("wire Claude Code and Codex hooks into the project", "install_hooks.py", *p, "--platform", "both"),
        step("what Claude Code's SessionStart hook hands the model (JSON, exit 0 always)", "run_hook.py",
             "SessionStart", "--host", "claude", "--project-dir", project,
             stdin='{"session_id": "demo", "source": "startup", "cwd": "%s"}' % project.replace("\\", "/")),
        step("check: the hook piped in by hand is a manual run, never 'verified' (only a session in the host "
             "verifies it); exit 1 until one runs", "check_memory_3layer.py", *p),
    ]
    expected = [0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1]
    if "claude SessionStart: manual run" not in step.output:
        print("demo FAILED: check did not report the hand-run SessionStart as a manual run")
        return 1
    print("\ndemo project: %s" % project)
    if not args.keep:
        shutil.rmtree(project, ignore_errors=True)
        print("(removed; pass --keep DIR to keep it)")
    if codes != expected:
        print("demo FAILED: exit codes %s, expected %s" % (codes, expected))
        return 1
    print("demo OK: every step behaved as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
