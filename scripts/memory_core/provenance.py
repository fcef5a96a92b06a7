"""Provenance: one event per change to Layer 1 or Layer 3, in state/changelog.jsonl.

Each event says when, what operation, which topic and ids, from what source, and hashes of the
content before and after: never the text itself, so the log can be kept without re-leaking what
a fact said. `review_memory.py --history ID` reads it to tell how a fact came to be. A change that
cannot be logged still happens; the caller reports that the log was not written.
"""
from .paths import state_path

CHANGELOG_FILE = "changelog.jsonl"


def content_hash(value):
    """Short, stable hash of an item (canonical JSON) or a text; None for nothing."""
    if value is None:
        return None
    import json
    from .similarity import sha256
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return "sha256:" + sha256(text.encode("utf-8")).hexdigest()[:16]


def log_change(store, operation, topic, ids, source, before=None, after=None):
    """Append one event; returns None, or the reason it could not be written (one line).
    before/after: {id: hash or None}."""
    from . import jsonlog
    from . import store as st
    event = {"time": st.iso(st.utc_now()), "op": operation, "topic": topic, "ids": list(ids),
             "source": source, "before": before or {}, "after": after or {}}
    try:
        jsonlog.append(state_path(store, CHANGELOG_FILE), event)
    except OSError as exc:
        return "changelog not written (%s): the change itself was made" % (exc.strerror or exc)
    return None


def history(store, item_id):
    """Every logged event that names item_id, oldest first."""
    from . import jsonlog
    return [e for e in jsonlog.read(state_path(store, CHANGELOG_FILE), needle=item_id)
            if item_id in (e.get("ids") or [])]
