"""Session state: the minimal recoverable state of a working session. Runtime only (state/ is
git-ignored).

  state/files-touched.jsonl  one line per PostToolUse that named files: {"session_id", "time",
                             "files"}. Appended with one small O_APPEND write, so the hook after
                             every tool call needs no lock and no rewrite; bounded in size.
  state/session.json         saved before a compaction (PreCompact, or compact_memory.py by hand):
                             time, host, trigger, session id, files touched, the last request as
                             one redacted line, count of compactions. Never the transcript, never
                             tool output. Shown first by the next SessionStart after a compaction
                             or resume.
"""
import os

from .paths import state_path

SESSION_FILE = "session.json"
TOUCHED_FILE = "files-touched.jsonl"
TOUCHED_MAX_BYTES = 128 * 1024  # past this, the older half of the log is dropped
SESSION_SCHEMA = "memory-3layer/session@1"
MAX_SESSIONS = 20        # most recent sessions kept
MAX_FILES = 50           # files touched kept per session, most recent last
MAX_REQUEST_CHARS = 300  # the last request, one line
MAX_SUMMARY_CHARS = 1500
TRANSCRIPT_TAIL = 256 * 1024  # only the end of a transcript is read, to find the last request


def session_path(store):
    return state_path(store, SESSION_FILE)


def read_sessions(store):
    """The whole session file as a dict; an unreadable one raises CorruptFile (never rewritten)."""
    from . import store as st
    from .fastjson import loads  # PreCompact stays clear of the json package (and of `re`)
    path = session_path(store)
    text = st.read_text(path)
    if text is None:
        return {"schema": SESSION_SCHEMA, "sessions": {}}
    try:
        data = loads(text)
    except ValueError as exc:
        raise st.CorruptFile(path, "invalid JSON (%s)" % exc)
    if not isinstance(data, dict) or not isinstance(data.get("sessions"), dict):
        raise st.CorruptFile(path, "expected an object with a \"sessions\" object")
    return data


def _write_sessions(store, data):
    from . import store as st
    from .fastjson import dumps
    sessions = data["sessions"]
    if len(sessions) > MAX_SESSIONS:  # keep the most recently updated
        keep = sorted(sessions, key=lambda sid: str(sessions[sid].get("updated_at", "")))[-MAX_SESSIONS:]
        data["sessions"] = dict((sid, sessions[sid]) for sid in keep)
    data["schema"] = SESSION_SCHEMA
    # one sorted-key line: runtime state (git-ignored), written by a hook that avoids the json package
    st.atomic_write_bytes(session_path(store), (dumps(data) + "\n").encode("utf-8"))


def _session(data, session_id, host):
    entry = data["sessions"].get(session_id)
    if not isinstance(entry, dict):
        entry = data["sessions"][session_id] = {"session_id": session_id, "host": host, "files_touched": [],
                                                "compactions": 0}
    return entry


def note_touched(store, session_id, rel_paths):
    """Append the files one tool call touched (jsonlog: no lock, bounded)."""
    import time
    from . import jsonlog
    jsonlog.append(state_path(store, TOUCHED_FILE),
                   {"session_id": session_id, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "files": list(rel_paths)}, TOUCHED_MAX_BYTES, store)


def files_touched(store, session_id):
    """Files touched in a session, oldest first, each once, at most MAX_FILES (the most recent)."""
    from . import jsonlog
    files = []
    for record in jsonlog.read(state_path(store, TOUCHED_FILE), needle=session_id):
        if record.get("session_id") != session_id:
            continue
        for f in record.get("files") or []:
            if isinstance(f, str):
                if f in files:
                    files.remove(f)
                files.append(f)
    return files[-MAX_FILES:]


def one_line(text, limit, extra_patterns=()):
    """A redacted, single-line, bounded version of free text."""
    from .redaction import mask_secrets
    text = " ".join(str(text).split())
    text, _findings = mask_secrets(text, extra_patterns)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def save_compaction(store, session_id, host, trigger, now, last_request=None, summary=None,
                    extra_patterns=()):
    """Record the state at a compaction (under the caller's lock); returns the session entry."""
    from . import store as st
    data = read_sessions(store)
    entry = _session(data, session_id, host)
    entry["host"] = host
    entry["trigger"] = trigger
    entry["compacted_at"] = entry["updated_at"] = st.iso(now)
    entry["compactions"] = int(entry.get("compactions") or 0) + 1
    touched = files_touched(store, session_id)
    if touched:
        entry["files_touched"] = touched
    if last_request:
        entry["last_request"] = one_line(last_request, MAX_REQUEST_CHARS, extra_patterns)
    if summary:
        entry["summary"] = one_line(summary, MAX_SUMMARY_CHARS, extra_patterns)
    _write_sessions(store, data)
    return entry


def last_user_request(transcript_path):
    """The last thing the user asked, from the tail of a host transcript (JSON lines), or None.
    Claude Code lines: {"type": "user", "message": {"role": "user", "content": ...}}; Codex lines:
    {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [...]}}."""
    from .fastjson import loads
    from .safefs import read_tail
    if not isinstance(transcript_path, str) or not transcript_path or "\x00" in transcript_path \
            or not os.path.isabs(transcript_path):
        return None
    # A regular file only (a FIFO would block the hook, /dev/zero would never end), read at its tail.
    raw = read_tail(transcript_path, TRANSCRIPT_TAIL)
    if not raw:
        return None
    tail = raw.decode("utf-8", "replace")
    for line in reversed(tail.split("\n")):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            record = loads(line)
        except ValueError:
            continue
        text = _user_text(record)
        if text and not text.lstrip().startswith(("<", "/compact", "Caveat:")):
            return text
    return None


def _user_text(record):
    if not isinstance(record, dict):
        return None
    message = record.get("message") if record.get("type") == "user" else None
    if message is None and record.get("type") == "response_item":
        message = record.get("payload")
    if not isinstance(message, dict) or message.get("role") != "user":
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [c.get("text") for c in content if isinstance(c, dict)
                 and c.get("type") in ("text", "input_text") and isinstance(c.get("text"), str)]
        return " ".join(parts) or None
    return None


def preamble(store, session_id):
    """Text shown first after a compaction or resume: this session's saved state, or the most
    recently saved one when this id has none. None when nothing was saved."""
    from . import store as st
    try:
        data = read_sessions(store)
    except st.CorruptFile:
        return None
    sessions = data["sessions"]
    entry = sessions.get(session_id) if session_id else None
    if not isinstance(entry, dict) or not entry.get("compacted_at"):
        saved = [s for s in sessions.values() if isinstance(s, dict) and s.get("compacted_at")]
        if not saved:
            return None
        entry = max(saved, key=lambda s: str(s.get("compacted_at")))
    lines = ["[Session state saved before compaction: state/session.json, %s, trigger %s, compaction %s]"
             % (entry.get("compacted_at"), entry.get("trigger", "?"), entry.get("compactions", "?"))]
    files = [f for f in entry.get("files_touched") or [] if isinstance(f, str)]
    if files:
        lines.append("Files touched this session: " + ", ".join(files[-20:]))
    if entry.get("last_request"):
        lines.append("Last request: " + str(entry["last_request"]))
    if entry.get("summary"):
        lines.append("Summary: " + str(entry["summary"]))
    return "\n".join(lines)
