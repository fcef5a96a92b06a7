"""The files of state/cache/: written without fsync (a cache lost in a crash is rebuilt, a torn
one fails its signature or count check), read as None whenever missing, unreadable or unsafe, and
validated by the signature of the file they were computed from (index.py, dedup_index.py)."""
import os

from .paths import STATE_DIR

CACHE_DIR = os.path.join(STATE_DIR, "cache")
_ESCAPES = (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r"))


def signature(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def write_cache(store, rel, data, append=False):
    """Replace (or append to) a cache file; appending, returns where the data went (the size
    before). No fsync: a cache lost in a crash is rebuilt later, and a torn one fails its signature
    or count check."""
    from . import safefs
    path = os.path.join(store, rel)
    safefs.check(path, store)  # UnsafePath: a linked cache (or state/) is refused, never written through
    if append:
        fd = safefs.open_write(path, os.O_WRONLY | os.O_APPEND, store)
        try:
            at = os.fstat(fd).st_size
            os.write(fd, data)
        finally:
            os.close(fd)
        return at
    safefs.make_dirs(os.path.dirname(path), store)
    tmp = "%s.%d.tmp" % (path, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | safefs.NOFOLLOW, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    os.replace(tmp, path)


def read_cache(store, rel):
    """A cache file's text, or None when it is missing, unreadable, or not safe to read."""
    from . import safefs
    try:
        data = safefs.read_bytes(os.path.join(store, rel), base=store)
        return None if data is None else data.decode("utf-8")
    except (OSError, UnicodeDecodeError, safefs.CorruptFile):
        return None


def escape(text):
    for raw, escaped in _ESCAPES:
        text = text.replace(raw, escaped)
    return text


def unescape(text):
    if "\\" not in text:
        return text
    out, i = [], 0
    table = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            out.append(table.get(text[i + 1], text[i + 1]))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)
