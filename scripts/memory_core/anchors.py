"""Facts anchored to code: the files a fact is about, with a hash of their content at recording time.

The hash is the git blob id (sha1 of "blob <size>\\0" + content, what `git hash-object` prints) when
the project is a git checkout, so it can be compared with git's own objects; sha256 otherwise. A fact
whose anchored file changed or disappeared is shown as possibly stale (`[stale?]`) by the loader
and flagged by review: the code moved on, so the fact may have too.
"""
import os

from .paths import StoreError, _walk_up

MAX_ANCHORS = 10
MAX_ANCHOR_BYTES = 64 * 1024 * 1024  # larger files are not hashed; such an anchor is refused


def _in_git(root):
    return _walk_up(root, ".git") is not None


def content_hash(data, git):
    if git:
        try:
            from _sha1 import sha1
        except ImportError:
            from hashlib import sha1
        return "git:" + sha1(b"blob %d\x00" % len(data) + data).hexdigest()
    from .similarity import sha256
    return "sha256:" + sha256(data).hexdigest()


def _inside(root, path):
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    return None if rel == os.curdir or rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel


def make_anchors(root, store, paths):
    """[{"path": project-relative path, "hash": ...}] for the given files; StoreError when one is
    missing, not a regular file, outside the project or inside the store."""
    anchors, seen = [], set()
    git = _in_git(root)
    for raw in paths:
        full = os.path.abspath(os.path.expanduser(raw))  # relative to the cwd, as a shell user means it,
        if not os.path.exists(full):                     # else to the project root, as agents often mean it
            full = os.path.join(root, os.path.expanduser(raw))
        rel = _inside(root, full)
        if rel is None:
            raise StoreError("--anchor %s is outside the project %s" % (raw, root),
                             fix="anchor files inside the project, by a path relative to its root")
        if _inside(store, full) is not None:
            raise StoreError("--anchor %s is inside the memory store" % raw, fix="anchor a source file")
        if not os.path.isfile(full):
            raise StoreError("--anchor %s is not an existing file" % raw, fix="give the path of a file")
        if os.path.getsize(full) > MAX_ANCHOR_BYTES:
            raise StoreError("--anchor %s is over %d MB" % (raw, MAX_ANCHOR_BYTES // (1024 * 1024)),
                             fix="anchor the source file the fact is about, not data")
        rel = rel.replace(os.sep, "/")
        if rel in seen:
            continue
        seen.add(rel)
        from .safefs import read_regular
        anchors.append({"path": rel, "hash": content_hash(read_regular(full, MAX_ANCHOR_BYTES), git)})
    if len(anchors) > MAX_ANCHORS:
        raise StoreError("%d anchors; the limit is %d" % (len(anchors), MAX_ANCHORS),
                         fix="anchor the few files the fact is really about")
    return anchors


def anchor_state(root, anchor):
    """'ok', 'changed' or 'missing' for one stored anchor (anything unreadable counts as changed)."""
    if not isinstance(anchor, dict) or not isinstance(anchor.get("path"), str):
        return "changed"
    full = os.path.join(root, anchor["path"])
    if _inside(root, full) is None:
        return "changed"
    from .safefs import read_regular
    try:
        data = read_regular(full, MAX_ANCHOR_BYTES + 1)  # a FIFO planted at the path must not block load
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "changed"
    stored = str(anchor.get("hash") or "")
    return "ok" if content_hash(data, stored.startswith("git:")) == stored else "changed"


def stale_anchors(root, anchors):
    """[(path, state)] of the anchors that no longer match."""
    out = []
    for anchor in anchors or []:
        state = anchor_state(root, anchor)
        if state != "ok":
            out.append((anchor.get("path") if isinstance(anchor, dict) else "?", state))
    return out
