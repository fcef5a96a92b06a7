"""Append-only JSON-lines logs in state/: hook-runs.jsonl, files-touched.jsonl, changelog.jsonl.

One record per line, appended with a single small O_APPEND write, so parallel writers (hooks of one
event run in parallel) never interleave and need no lock; a line torn by a crash is skipped by the
reader, and ended before the next append so that record is not glued onto it. Never through a link
(safefs): a log linked to ~/.bashrc must not receive a line. Logs with a size bound drop their older half, under the store lock, when they outgrow it.
Light on imports: the PostToolUse hook appends here after every tool call.
"""
from . import fastjson, safefs

READ_LIMIT = 16 * 1024 * 1024


def append(path, record, max_bytes=None, store=None):
    """Append one record; past max_bytes, trim the older half if the store lock is free at once.
    UnsafePath when the log or a folder on its way is a link or a special file."""
    size = safefs.append_line(path, (fastjson.dumps(record) + "\n").encode("utf-8"))
    if max_bytes and size > max_bytes and store:
        from . import store as st
        try:
            with st.StoreLock(store, timeout=0):
                data = safefs.read_bytes(path, READ_LIMIT) or b""
                keep = data[len(data) // 2:]
                st.atomic_write_bytes(path, keep[keep.find(b"\n") + 1:])
        except (OSError, st.StoreError):
            pass  # someone else holds the lock; a later append trims


def read(path, needle=None, tail_bytes=None):
    """The records (dicts) of a log, oldest first. Lines without needle are not even parsed; with
    tail_bytes only the end of the file is read. Unreadable lines and a missing file give nothing."""
    try:
        if tail_bytes:
            safefs.check(path)
            data = safefs.read_tail(path, tail_bytes, follow=False)
        else:
            data = safefs.read_bytes(path, READ_LIMIT)
    except (OSError, safefs.UnsafePath):
        return []
    if not data:
        return []
    lines = data.decode("utf-8", "replace").split("\n")
    records = []
    for line in lines:
        if not line or (needle and needle not in line):
            continue
        try:
            record = fastjson.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records
