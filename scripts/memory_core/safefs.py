"""One rule for the store folder and every path under it: nothing is read or written through a
symbolic link, nothing outside the project, nothing that is not a regular file, nothing unbounded.

The repository is untrusted input: git stores symlinks (and `git add -f` gets past an ignored
state/), anyone can leave a FIFO or a huge file. So every store path is checked component by
component from a trusted base (the store, which resolve_store proved is a real folder inside the
project), then opened with O_NOFOLLOW and O_NONBLOCK, and fstat() must say "regular file" before a
byte is read or written. Readers skip what fails and name it; writers refuse (exit 2).

Light on imports: the PostToolUse hook goes through here after every tool call.
"""
import errno
import os
import stat

from .paths import StoreError

NOFOLLOW = os.O_NOFOLLOW  # POSIX only, as the whole skill (Linux and macOS; never silently 0)
NONBLOCK = os.O_NONBLOCK  # a FIFO opens at once instead of waiting for a writer
CLOEXEC = os.O_CLOEXEC
READ_LIMIT = 256 * 1024 * 1024  # a 100k-fact topic is ~50 MB; anything far beyond is not ours
_BASES = []  # trusted real folders this process works in: the store, then the project root


class CorruptFile(StoreError):
    """A store file that does not parse. Never rewritten; exit 1 for a writer that needs it."""
    security = False

    def __init__(self, path, reason, fix=None):
        StoreError.__init__(self, "%s cannot be read: %s" % (path, reason),
                            fix=fix or "fix or restore the file by hand (git diff / git checkout it); "
                                       "memory-3layer leaves it byte-identical",
                            exit_code=1, path=path)
        self.reason = reason


class UnsafePath(CorruptFile):
    """A symbolic link, a FIFO or device, a huge file, or a path outside its base. A security
    finding: readers skip and name it (as they do a corrupt file), writers refuse with exit 2."""
    security = True

    def __init__(self, path, reason, fix=None):
        StoreError.__init__(self, "%s %s; memory-3layer never reads or writes it" % (path, reason),
                            fix=fix or "remove the link (or the special file) and keep a real file or "
                                       "folder inside the project there", exit_code=2, path=path)
        self.reason = reason


def trust(base):
    """Register a folder as a base that paths under it are checked from (resolve_store calls this
    for the store and the project root once it has checked them)."""
    base = os.path.abspath(base)
    if base not in _BASES and not os.path.islink(base):  # a link is never a base: checks start above it
        _BASES.append(base)


class trusted_below(object):
    """Within the with-block, folder (checked from base once, on entry) is a base of its own, so
    the many files a search reads below it are checked from there, not component by component
    from base each time. The trust ends with the block; a folder that is a link or not a folder is
    not trusted (its files are then checked from base, and refused)."""

    def __init__(self, base, folder):
        self.base, self.folder, self.added = base, os.path.abspath(folder), False

    def __enter__(self):
        try:
            info = check(self.folder, self.base)
        except (OSError, CorruptFile):
            info = None
        if info is not None and stat.S_ISDIR(info.st_mode) and self.folder not in _BASES:
            _BASES.append(self.folder)
            self.added = True
        return self

    def __exit__(self, *exc):
        if self.added:
            _BASES.remove(self.folder)
        return False


def _base_of(path):
    best = None
    for base in _BASES:
        if (path == base or path.startswith(base.rstrip(os.sep) + os.sep)) and (best is None or len(base) > len(best)):
            best = base
    return best


def check(path, base=None):
    """lstat of path (None when absent) after proving that no component from base down to it is a
    symbolic link and that it lies inside base. base: the trusted folder it belongs to (default: the
    nearest one registered with trust(), else its own parent)."""
    path = os.path.abspath(path)
    if base:
        base = os.path.abspath(base)
        narrow = _base_of(path)  # a folder below base trusted for the moment (trusted_below)
        if narrow is not None and narrow.startswith(base + os.sep):
            base = narrow
    else:
        base = _base_of(path) or os.path.dirname(path)
    # Both are absolute and normalised, so a prefix test is exact (os.path.relpath is slow).
    rel = path[len(base) + 1:] if path.startswith(base + os.sep) and base != os.sep \
        else os.path.relpath(path, base)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        raise UnsafePath(path, "is outside %s" % base, fix="give a path inside the project")
    info, cur = None, base
    for part in ([] if rel == os.curdir else rel.split(os.sep)):
        cur = os.path.join(cur, part)
        try:
            info = os.lstat(cur)
        except OSError:
            return None  # absent: nothing below it exists either
        if stat.S_ISLNK(info.st_mode):
            raise UnsafePath(cur, "is a symbolic link")
    return info


def _open(path, flags, mode=0o644, base=None):
    """fd of a regular file, opened without following a final link and without blocking."""
    check(path, base)
    try:
        fd = os.open(path, flags | NOFOLLOW | NONBLOCK | CLOEXEC, mode)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(path):
            raise UnsafePath(path, "is a symbolic link")
        if exc.errno == errno.ENXIO:  # a FIFO opened for writing with no reader, or a socket
            raise UnsafePath(path, "is not a regular file (a FIFO or socket)",
                             fix="remove it; only regular files belong in the store")
        raise
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise CorruptFile(path, "is a folder, expected a file")
        if not stat.S_ISREG(info.st_mode):
            raise UnsafePath(path, "is not a regular file (a FIFO, device or socket)",
                             fix="remove it; only regular files belong in the store")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_to_read(path, base):
    """fd of a regular file to read, or None when it does not exist (_open's refusals)."""
    try:
        return _open(path, os.O_RDONLY, base=base)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise CorruptFile(path, "is a folder, expected a file")


def read_ranges(path, ranges, base=None):
    """(size, [the bytes of each (offset, length)]) of a regular file, read through one descriptor,
    or None when it does not exist; length None reads to the end, and a range past the end comes back
    short. The same refusals as read_bytes (a link, a special file, a folder)."""
    fd = _open_to_read(path, base)
    if fd is None:
        return None
    try:
        size = os.fstat(fd).st_size
        out = []
        for offset, length in ranges:
            length = max(0, size - offset) if length is None else length
            if length > READ_LIMIT:
                raise UnsafePath(path, "is over the %d-byte limit" % READ_LIMIT)
            os.lseek(fd, offset, os.SEEK_SET)
            out.append(os.read(fd, length) if length > 0 else b"")
        return size, out
    finally:
        os.close(fd)


def read_bytes(path, limit=READ_LIMIT, base=None, offset=0):
    """The bytes of a regular file (from offset on), or None when it does not exist. UnsafePath
    for a link, a special file, or more than limit bytes (which are never read)."""
    fd = _open_to_read(path, base)
    if fd is None:
        return None
    try:
        size = os.fstat(fd).st_size
        if offset:
            os.lseek(fd, offset, os.SEEK_SET)
            size = max(0, size - offset)
        if size > limit:
            raise UnsafePath(path, "is %d bytes, over the %d-byte limit" % (size, limit),
                             fix="shrink or remove the file; memory files are small")
        chunks, left = [], limit + 1
        while left > 0:
            block = os.read(fd, min(left, max(size, 65536)))
            if not block:
                break
            chunks.append(block)
            left -= len(block)
        data = b"".join(chunks)
        if len(data) > limit:
            raise UnsafePath(path, "grew past the %d-byte limit while being read" % limit)
        return data
    finally:
        os.close(fd)


def read_tail(path, limit, follow=True):
    """The last `limit` bytes of a regular file (a host transcript, or with follow=False a store
    log), or None when it is missing, not a regular file (a FIFO, /dev/zero) or unreadable. Never
    blocks, never reads more."""
    try:
        fd = os.open(path, os.O_RDONLY | NONBLOCK | CLOEXEC | (0 if follow else NOFOLLOW))
    except (OSError, ValueError, TypeError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        start = max(0, info.st_size - limit)
        os.lseek(fd, start, os.SEEK_SET)
        chunks, left = [], min(limit, info.st_size)
        while left > 0:
            block = os.read(fd, left)
            if not block:
                break
            chunks.append(block)
            left -= len(block)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_regular(path, limit):
    """Up to `limit` bytes of a regular file (links followed: the caller checked containment with
    realpath), or None when it is missing; OSError for anything else, a FIFO or device included,
    which is never opened in a way that blocks."""
    fd = os.open(path, os.O_RDONLY | NONBLOCK | CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        chunks, left = [], limit
        while left > 0:
            block = os.read(fd, min(left, 1 << 20))
            if not block:
                break
            chunks.append(block)
            left -= len(block)
        return b"".join(chunks)
    finally:
        os.close(fd)


def open_write(path, flags, base=None):
    """fd for writing (O_APPEND logs, the lock): the parent folders are made safely first."""
    make_dirs(os.path.dirname(path), base)
    return _open(path, flags | os.O_CREAT, base=base)


def make_dirs(folder, base=None):
    """os.makedirs, refusing any component that is a link or not a folder."""
    info = check(folder, base)
    if info is not None:
        if not stat.S_ISDIR(info.st_mode):
            raise UnsafePath(folder, "is not a folder", fix="remove it; memory-3layer needs a folder there")
        return
    os.makedirs(folder, exist_ok=True)
    check(folder, base)  # a link raced into place between the check and makedirs


def append_line(path, line, base=None):
    """Append one line with a single O_APPEND write; a last line left without its newline (a torn
    or hand-edited file) is ended first, so this line is never glued onto it. Returns the size."""
    fd = open_write(path, os.O_RDWR | os.O_APPEND, base)
    try:
        size = os.fstat(fd).st_size
        if size:
            os.lseek(fd, size - 1, os.SEEK_SET)
            if os.read(fd, 1) != b"\n":
                line = b"\n" + line
        os.write(fd, line)
        return size + len(line)
    finally:
        os.close(fd)


def list_dir(folder, base=None):
    """Names in a folder (sorted), [] when it is absent; UnsafePath when it is a link."""
    info = check(folder, base)
    if info is None or not stat.S_ISDIR(info.st_mode):
        return []
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def is_real_dir(path):
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def scan_tree(store, limit=READ_LIMIT):
    """Security findings anywhere under the store, for check, review and writers: [(relative path,
    reason)] for the store itself or any entry that is a symbolic link, a FIFO, device or socket,
    or a file over the read limit. Links are never followed (scandir's d_type, no extra stat)."""
    try:
        info = os.lstat(store)
    except OSError:
        return []
    if stat.S_ISLNK(info.st_mode):
        return [(".", "is a symbolic link")]
    found, pending = [], [store]
    while pending:
        folder = pending.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_symlink():
                    try:
                        target = os.readlink(entry.path)
                    except OSError:
                        target = "?"
                    found.append((entry.path, "is a symbolic link (to %s)" % target))
                elif entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                elif not entry.is_file(follow_symlinks=False):
                    found.append((entry.path, "is not a regular file (a FIFO, device or socket)"))
                elif entry.name.endswith(".json") and entry.stat(follow_symlinks=False).st_size > limit:
                    found.append((entry.path, "is over the %d-byte limit" % limit))
            except OSError:
                continue
    # relative paths only for what was found (relpath for each of a big store's entries cost ms)
    return sorted((os.path.relpath(path, store).replace(os.sep, "/"), why) for path, why in found)
