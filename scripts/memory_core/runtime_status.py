"""check_memory_3layer.py's runtime_status: per host and event, what the hook-run log shows.

  verified      an ok run whose line carries the host's own evidence (hooks.host_evidence: Claude Code's
                hook environment with the payload's session id, or a Codex transcript under
                $CODEX_HOME/sessions/), recorded by the hook when it ran
  manual run    ok runs, none with that evidence: a payload piped into run_hook.py by hand (--host only
                names a host, it proves nothing), or a line logged before runs carried evidence
  failing       runs, none ok (the host's own runs when there are any)
  not observed  configured, no line at all

Only reads: the log is parsed, never written.
"""
import json
import os

from . import install
from .hooks import HOOK_RUNS_FILE, HOST_EVIDENCE, NOT_OPTED_IN
from .paths import STORE_DIRNAME, StoreError, state_path

HOST_NAMES = {"claude": "Claude Code", "codex": "Codex"}
RUN_STEPS = {
    "claude": {"SessionStart": "start a new Claude Code session in this project (`claude` in %s)",
               "PostToolUse": "in a Claude Code session in this project, let the agent run any tool (read or edit a file)",
               "PreCompact": "run /compact in a Claude Code session in this project (or let it auto-compact)",
               "UserPromptSubmit": "send a prompt that names something the memory holds, in a Claude Code session here"},
    "codex": {"SessionStart": "start a new Codex session in this project (`codex` in %s)",
              "PostToolUse": "in a Codex session in this project, let the agent run any tool (a shell command or a patch)",
              "PreCompact": "run /compact in a Codex session in this project (or let it auto-compact)",
              "UserPromptSubmit": "send a prompt that names something the memory holds, in a Codex session here"},
}


def read_runs(store):
    from .safefs import read_bytes
    path = state_path(store, HOOK_RUNS_FILE)
    runs, bad = [], 0
    try:
        lines = (read_bytes(path) or b"").decode("utf-8", "replace").split("\n")
    except (OSError, StoreError):
        return runs, 0
    for line in lines:
        if not line.strip():
            continue
        try:
            run = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(run, dict):
            runs.append(run)
    return runs, bad


def _latest(runs):
    return max(runs, key=lambda r: str(r.get("time")))


def _is_ok(run):
    # a prompt hook run without the opt-in answered nothing: no evidence that the recall runs
    return run.get("outcome") == "ok" and run.get("reason") != NOT_OPTED_IN


def runtime_status(root, store, adapters):
    from .status import _summary, entry
    runs, bad = read_runs(store) if store else ([], 0)  # None: the store is a link, never read
    rel_log = os.path.join(STORE_DIRNAME if store is None else os.path.relpath(store, root), "state", HOOK_RUNS_FILE)
    hosts, entries = {}, []
    for name in ("claude", "codex"):
        info = adapters["hosts"][name]
        mine = [r for r in runs if r.get("host") == name]
        if not info.get("configured") and not mine:
            continue
        hosts[name] = {}
        trust_first = []
        if name == "codex" and "trust" in info:
            trust = info["trust"]
            if trust["project"] != "trusted":
                trust_first.append("trust the project (start `codex` in %s and accept the prompt)" % root)
            if any(s != "trusted" for s in trust["hooks"].values()):
                trust_first.append("trust the hooks (Codex TUI: /hooks)")
        for event in info.get("event_names") or [e for e, _m, _t in install.EVENTS]:
            ev_runs = [r for r in mine if r.get("event") == event]
            # only a line the hook logged with the host's own evidence shows the host ran it; a line
            # without the field (logged before runs carried evidence) counts as a manual run
            by_host = [r for r in ev_runs if r.get("evidence") == HOST_EVIDENCE[name]]
            proven = [r for r in by_host if _is_ok(r)]
            if proven:
                last = max(str(r.get("time")) for r in proven)
                latest = _latest(ev_runs)
                hosts[name][event] = {"status": "verified", "last_ok": last, "runs": len(ev_runs)}
                tail = "" if latest.get("outcome") == "ok" else "; latest run %s %s: %s" % (
                    latest.get("time"), latest.get("outcome"), latest.get("reason", ""))
                if not info.get("configured"):
                    tail += ("; through the Claude Code plugin (no project config needed)"
                             if any(r.get("via") == "plugin" for r in proven) else
                             "; %s is not configured now" % info["config"])
                elif trust_first:
                    tail += "; Codex will skip it until: %s" % ", ".join(trust_first)
                entries.append(entry("ok", "%s %s" % (name, event), "verified: last ok run %s (%d run(s) in %s)%s"
                                     % (last, len(ev_runs), rel_log, tail)))
                continue
            if not info.get("configured"):
                continue  # runs of a host that is not configured now: only its verified runs are shown
            step = RUN_STEPS[name][event] % root if "%s" in RUN_STEPS[name][event] else RUN_STEPS[name][event]
            steps = trust_first + [step, "then run check again"]
            manual = [r for r in ev_runs if _is_ok(r)] if not by_host else []
            if manual:
                last = max(str(r.get("time")) for r in manual)
                evidence = ("manual run: last %s; %d run(s) in %s, none with evidence that %s ran it (a payload "
                            "piped into run_hook.py proves nothing)" % (last, len(ev_runs), rel_log, HOST_NAMES[name]))
                status, extra = "manual run", {"last_manual": last}
            elif ev_runs:
                failed = by_host or ev_runs  # the host's own failures first: they are what a session meets
                latest = _latest(failed)
                evidence = "ran %d times, never ok; latest %s %s: %s" % (len(failed), latest.get("time"),
                                                                      latest.get("outcome"), latest.get("reason", ""))
                status, extra = "failing", {}
            else:
                evidence = "not observed: configured, but no %s %s line in %s" % (name, event, rel_log)
                status, extra = "not observed", {}
            hosts[name][event] = dict({"status": status, "runs": len(ev_runs), "next": "; ".join(steps)}, **extra)
            # SessionStart is what loads the memory: unobserved (or only run by hand), it is a finding.
            # The other events happen only when a session uses a tool or compacts: unobserved, they are
            # reported with the step that observes them, never as verified; a failing run is always a finding.
            level = "finding" if event == "SessionStart" or status == "failing" else "info"
            entries.append(entry(level, "%s %s" % (name, event), evidence, "; ".join(steps)))
    if not hosts:
        entries.append(entry("info", "hooks", "no host configured: manual mode, nothing runs automatically; "
                                              "%d lines in %s" % (len(runs), rel_log)))
    if bad:
        entries.append(entry("info", rel_log, "%d lines that are not JSON were ignored" % bad))
    return {"status": _summary(entries), "hosts": hosts, "entries": entries}
