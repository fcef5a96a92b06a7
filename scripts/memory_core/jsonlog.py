"""Append-only JSON-lines logs in state/: hook-runs.jsonl, files-touched.jsonl, changelog.jsonl.

One record per line, appended with a single small O_APPEND write, so parallel writers (hooks of one
event run in parallel) never interleave and need no lock; a line torn by a crash is skipped by the
reader. Logs with a size bound drop their older half, under the store lock, when they outgrow it.
Light on imports: the PostToolUse hook appends here after every tool call.
"""
import os

from . import fastjson


def append(path, record, max_bytes=None, store=None):
    """Append one record; past max_bytes, trim the older half if the store lock is free at once."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (fastjson.dumps(record) + "\n").encode("utf-8"))
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    if max_bytes and size > max_bytes and store:
        from . import store as st
        try:
            with st.StoreLock(store, timeout=0):
                with open(path, "rb") as fh:
                    data = fh.read()
                keep = data[len(data) // 2:]
                st.atomic_write_bytes(path, keep[keep.find(b"\n") + 1:])
        except (OSError, st.StoreError):
            pass  # someone else holds the lock; a later append trims


def read(path, needle=None, tail_bytes=None):
    """The records (dicts) of a log, oldest first. Lines without needle are not even parsed; with
    tail_bytes only the end of the file is read. Unreadable lines and a missing file give nothing."""
    try:
        with open(path, "rb") as fh:
            if tail_bytes:
                fh.seek(0, os.SEEK_END)
                fh.seek(max(0, fh.tell() - tail_bytes))
            lines = fh.read().decode("utf-8", "replace").split("\n")
    except OSError:
        return []
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
