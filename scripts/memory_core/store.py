"""Reading and writing the three layers: one lock, atomic writes, corrupt files left alone.

Every write goes to a temp file in the same folder, is fsynced, then os.replace()d into place, while
the store lock is held. A reader therefore never sees half a file, and a crash loses at most the
write in flight. A file that does not parse is never rewritten: readers skip and report it, writers
refuse with its path and the parse error.
"""
import errno
import os
import stat
import time

from . import safefs
from .paths import (DAILY_DIR, ITEMS_SCHEMA, LAYER3_FILE, STATE_DIR, TOPICS_DIR, StoreError, daily_path,
                    layer3_path, state_path, topic_items_path)
from .safefs import CorruptFile, UnsafePath  # noqa: F401 (re-exported: readers catch them from here)


def _fcntl():
    """fcntl, imported when a lock is taken (a reader, a load or a query, takes none). POSIX only:
    Linux and macOS are supported, Windows is not (its lock was never run; WSL is Linux)."""
    try:
        import fcntl
    except ImportError:
        raise StoreError("memory-3layer needs a POSIX system (Linux or macOS) to lock its store",
                         fix="on Windows, run it in WSL", exit_code=2)
    return fcntl

LOCK_FILE = "lock"
DEFAULT_LOCK_TIMEOUT = 20.0
TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                            ".memory-3layer-template")
# Used when the skill was copied without its template folder.
FALLBACK_MEMORY_MD = (
    "# Project memory\n\n"
    "<!-- memory-3layer Layer 3: long-term knowledge a person confirmed. Never write secrets here "
    "(passwords, tokens, keys): this file is committed with the code. -->\n\n"
    "## Confirmed facts\n"
)
READ_ONLY_ERRNOS = (errno.EACCES, errno.EPERM, errno.EROFS)


class UtcTime(object):
    """A UTC instant with strftime, built on time.gmtime (importing datetime costs every run ~3 ms)."""
    __slots__ = ("tm",)

    def __init__(self, tm):
        self.tm = tm

    def strftime(self, fmt):
        return time.strftime(fmt, self.tm)


def utc_now():
    """Current UTC time, whole seconds; MEMORY_3LAYER_NOW (ISO-8601) pins it for tests and replays."""
    pinned = os.environ.get("MEMORY_3LAYER_NOW")
    if pinned:
        try:
            return UtcTime(parse_time(pinned).utctimetuple())
        except ValueError:
            pass
    return UtcTime(time.gmtime())


def parse_time(text):
    """A UTC datetime from "YYYY-MM-DD[(T| )HH:MM[:SS[.f{1,6}]]][Z|±HH:MM|±HHMM]" (no offset: UTC);
    ValueError for anything else. Its own parser, not datetime.fromisoformat, which accepts more on
    Python 3.11 than on 3.8: migration must read a legacy date the same way on every version."""
    import datetime
    import re
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?"
                 r"(Z|[+-]\d{2}:?\d{2})?\Z", text.strip())
    if not m:
        raise ValueError("not a date and time: %r" % text[:40])
    year, month, day, hour, minute, second = (int(g or 0) for g in m.groups()[:6])
    micro = int((m.group(7) or "0").ljust(6, "0"))
    zone = datetime.timezone.utc
    if m.group(8) and m.group(8) != "Z":
        sign = -1 if m.group(8)[0] == "-" else 1
        digits = m.group(8)[1:].replace(":", "")
        zone = datetime.timezone(sign * datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
    value = datetime.datetime(year, month, day, hour, minute, second, micro, tzinfo=zone)
    return value.astimezone(datetime.timezone.utc)


def epoch_seconds(stamp):
    """Seconds since 1970 of a YYYY-MM-DDTHH:MM:SSZ stamp, or None (calendar.timegm without the
    calendar and datetime imports, which a hook would pay for)."""
    if not isinstance(stamp, str) or len(stamp) < 19:
        return None
    try:
        y, mo, d = int(stamp[0:4]), int(stamp[5:7]), int(stamp[8:10])
        h, mi, se = int(stamp[11:13]), int(stamp[14:16]), int(stamp[17:19])
    except ValueError:
        return None
    y -= mo <= 2  # days from civil (H. Hinnant): March-based years make leap days fall at the end
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return days * 86400 + h * 3600 + mi * 60 + se


def iso(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def read_only_error(path, exc):
    return StoreError("the store is read-only here: %s (%s); nothing was written" % (path, exc.strerror or exc),
                      fix="make the folder writable, or run this on a writable checkout; "
                          "loading and check still work read-only", exit_code=2, path=path)


# --- lock -------------------------------------------------------------------------------------

class StoreLock(object):
    """Exclusive lock on state/lock, held for one whole write step.

    Stale-lock rule: the lock is a kernel lock (flock) on an open file, released by the
    kernel when its holder exits or is killed. A dead holder therefore never leaves a stale lock,
    and the lock file itself is never deleted, because deleting it could hand a second writer a
    fresh file while a live holder still locks the old one.
    """

    def __init__(self, store, timeout=None):
        self.path = state_path(store, LOCK_FILE)
        if timeout is None:
            try:
                timeout = float(os.environ.get("MEMORY_LOCK_TIMEOUT", DEFAULT_LOCK_TIMEOUT))
            except ValueError:
                timeout = DEFAULT_LOCK_TIMEOUT
        self.timeout = timeout
        self.fd = None

    def __enter__(self):
        try:  # never through a link: a linked lock file would be truncated and written
            fd = safefs.open_write(self.path, os.O_RDWR)
        except OSError as exc:
            if exc.errno in READ_ONLY_ERRNOS:
                raise read_only_error(os.path.dirname(self.path), exc)
            raise
        fcntl = _fcntl()
        deadline = time.monotonic() + self.timeout
        delay = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK, errno.EDEADLK):
                    os.close(fd)
                    raise
                if time.monotonic() >= deadline:
                    holder = _read_holder(fd)
                    os.close(fd)
                    raise StoreError("the store is locked by another writer%s for over %.0f s: %s"
                                     % (holder, self.timeout, self.path),
                                     fix="wait for it to finish, or raise MEMORY_LOCK_TIMEOUT; "
                                         "never delete the lock file", exit_code=2, path=self.path)
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        self.fd = fd
        try:  # diagnostic only: who holds it
            os.ftruncate(fd, 0)
            os.write(fd, ("%d\n" % os.getpid()).encode())
        except OSError:
            pass
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            try:
                fcntl = _fcntl()
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            finally:
                os.close(self.fd)
                self.fd = None


def preflight(store, targets=None):
    """Refuse, before anything is written, when a link or special file sits in the way: a writer
    must not stop half-way on a linked cache or log. targets: the layer files this write touches
    (then only those and state/ are looked at, which keeps record fast on a big store); None: the
    whole store. Call under the lock."""
    if targets is not None:
        for path in targets:
            info = safefs.check(path, store)
            if info is not None and not stat.S_ISREG(info.st_mode):
                raise safefs.UnsafePath(path, "is not a regular file", fix="remove it; only regular files belong there")
        state = os.path.join(store, STATE_DIR)
        unsafe = [(os.path.join(STATE_DIR, rel) if rel != "." else STATE_DIR, why)
                  for rel, why in safefs.scan_tree(state)]
    else:
        unsafe = safefs.scan_tree(store)
    if unsafe:
        rel, why = unsafe[0]
        more = " (and %d more)" % (len(unsafe) - 1) if len(unsafe) > 1 else ""
        raise safefs.UnsafePath(os.path.join(store, rel) if rel != "." else store, why + more)


def _read_holder(fd):
    try:
        pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return " (pid %s)" % pid if pid.isdigit() else ""


# --- atomic writes -----------------------------------------------------------------------------

class FileRange(object):
    """A chunk for atomic_write_bytes: bytes [offset, offset+count) of an open file, copied by the
    kernel where it can (copy_file_range, sendfile) so a large unchanged prefix never passes
    through Python."""

    def __init__(self, fd, offset, count):
        self.fd, self.offset, self.count = fd, offset, count

    def copy_to(self, out_fd):
        offset, left = self.offset, self.count
        while left > 0:
            try:
                if hasattr(os, "copy_file_range"):
                    done = os.copy_file_range(self.fd, out_fd, left, offset)
                else:
                    done = os.sendfile(out_fd, self.fd, offset, left)
            except OSError:  # file system without in-kernel copy: plain reads
                done = 0
            if done <= 0:
                os.lseek(self.fd, offset, os.SEEK_SET)
                block = os.read(self.fd, min(left, 1 << 20))
                if not block:
                    raise OSError(errno.EIO, "source file shrank while copying")
                os.write(out_fd, block)
                done = len(block)
            offset += done
            left -= done


def atomic_write_bytes(path, data):
    """Write data (bytes, or a list of byte chunks, so large files need not be joined in memory) to
    path atomically: temp file in the same folder, fsync, os.replace, fsync dir. Call under the lock."""
    folder, base = os.path.split(path)
    info = safefs.check(path)  # UnsafePath: a link anywhere on the way, so writers refuse
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise safefs.UnsafePath(path, "is not a regular file", fix="remove it; only regular files belong there")
    try:
        safefs.make_dirs(folder)
        _remove_stale_temps(folder, base)
        tmp = os.path.join(folder, ".%s.%d.%s.tmp" % (base, os.getpid(), os.urandom(4).hex()))
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | safefs.NOFOLLOW, 0o666)
    except OSError as exc:
        if exc.errno in READ_ONLY_ERRNOS:
            raise read_only_error(folder, exc)
        raise
    try:
        try:
            for chunk in (data if isinstance(data, list) else [data]):
                if isinstance(chunk, FileRange):
                    chunk.copy_to(fd)
                    continue
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(folder)


def _remove_stale_temps(folder, base):
    """Temp files of this target left by a writer that was killed mid-write. Only the lock holder
    writes, so under the lock every such file is stale."""
    prefix = "." + base + "."
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix) and name.endswith(".tmp"):
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass


def _fsync_dir(folder):
    if not hasattr(os, "O_DIRECTORY"):
        return
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- reading -----------------------------------------------------------------------------------

def read_text(path):
    """UTF-8 text of a store file; CorruptFile when it is binary or not UTF-8; None when absent."""
    data = safefs.read_bytes(path)  # UnsafePath (a CorruptFile) for a link, FIFO or huge file
    if data is None:
        return None
    if b"\x00" in data:
        raise CorruptFile(path, "binary content (NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptFile(path, "not UTF-8 (byte %d)" % exc.start)


MERGE_FIX = ("run `python3 <skill>/scripts/merge_memory.py --resolve` in the repository to merge the store's "
             "files by fact id, then `git commit` (references/merging.md)")


def has_conflict_markers(text):
    """Whether git left a conflict's three markers in the text, each at the start of a line."""
    return all(("\n" + marker) in "\n" + text for marker in ("<<<<<<< ", "=======", ">>>>>>> "))


def parse_items(text, path):
    """(doc, items) from the text of an items.json. A legacy bare array is read as items."""
    from .fastjson import loads  # the same parser without the json package (and its re import)
    try:
        doc = loads(text)
    except ValueError:
        import json  # the reference parser decides, and its message names the line and column
        try:
            doc = json.loads(text)
        except ValueError as exc:
            if has_conflict_markers(text):
                raise CorruptFile(path, "merge conflict: git left conflict markers in it; run "
                                        "`python3 scripts/merge_memory.py --resolve` (then `git commit`)",
                                  fix=MERGE_FIX)
            raise CorruptFile(path, "invalid JSON (%s)" % exc)
    if isinstance(doc, list):
        doc = {"items": doc}
    if not isinstance(doc, dict) or not isinstance(doc.get("items"), list):
        raise CorruptFile(path, "expected an object with an \"items\" list")
    schema = doc.get("schema")
    if schema is not None and schema != ITEMS_SCHEMA:
        raise CorruptFile(path, "unknown schema %r (this version reads %s)" % (schema, ITEMS_SCHEMA))
    items = doc["items"]
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("fact"), str):
            raise CorruptFile(path, "item %d is not an object with a text \"fact\"" % index)
    return doc, items


def read_topic(store, topic):
    """(doc, items) of a topic; an absent topic is empty. CorruptFile when it does not parse."""
    path = topic_items_path(store, topic)
    text = read_text(path)
    if text is None:
        return {"items": []}, []
    return parse_items(text, path)


def list_topics(store):
    """Topic folders holding an items.json. A linked topic folder or file is listed too, so the
    reader that opens it refuses it and names it (instead of it silently vanishing)."""
    folder = os.path.join(store, TOPICS_DIR)
    names = safefs.list_dir(folder)
    return [n for n in names if os.path.lexists(os.path.join(folder, n, "items.json"))
            or os.path.islink(os.path.join(folder, n))]


def list_daily_files(store):
    """Daily file names (YYYY-MM-DD.md), newest first."""
    from .paths import is_daily_name
    names = safefs.list_dir(os.path.join(store, DAILY_DIR))
    return sorted((n for n in names if is_daily_name(n)), reverse=True)


# --- writing -----------------------------------------------------------------------------------

def dump_items(topic, doc, items):
    """Canonical items.json bytes: sorted keys, 2-space indent, unknown top-level keys kept."""
    import json
    out = dict(doc)
    out["schema"] = ITEMS_SCHEMA
    out["topic"] = topic
    out["items"] = items
    return (json.dumps(out, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def write_topic(store, topic, doc, items):
    path = topic_items_path(store, topic)
    atomic_write_bytes(path, dump_items(topic, doc, items))
    return path


def daily_line_text(now, topic, fact, item_id, supersedes=()):
    one_line = " ".join(fact.split())
    replaced = ", supersedes %s" % ", ".join(supersedes) if supersedes else ""
    return "- %sZ [%s] %s (id %s%s)" % (now.strftime("%H:%M"), topic, one_line, item_id, replaced)


def append_daily(store, now, line, existing=None):
    """Append one line to today's daily file (rewritten atomically). existing: its text if the
    caller already read it."""
    day = now.strftime("%Y-%m-%d")
    path = daily_path(store, day)
    if existing is None:
        existing = read_text(path)
    if existing is None:
        existing = "# %s\n\n" % day
    elif existing and not existing.endswith("\n"):
        existing += "\n"
    atomic_write_bytes(path, in_time_order(existing + line + "\n").encode("utf-8"))
    return path


def _stamp_of(line):
    """"HH:MM" of a trail line "- HH:MMZ ...", else None."""
    if len(line) > 8 and line[:2] == "- " and line[2:4].isdigit() and line[4] == ":" and line[5:7].isdigit() \
            and line[7] == "Z":
        return line[2:7]
    return None


def in_time_order(text):
    """A daily file with its timed lines ("- HH:MMZ ...") sorted by time (stable) in the slots they
    held, every other line where it was: a union merge of two branches' trails leaves ours, then
    theirs, and the next write puts them back in order."""
    lines = text.split("\n")
    slots = [i for i, line in enumerate(lines) if _stamp_of(line)]
    timed = [lines[i] for i in slots]
    ordered = sorted(timed, key=_stamp_of)
    if ordered == timed:
        return text
    for i, line in zip(slots, ordered):
        lines[i] = line
    return "\n".join(lines)


def layer3_section_for(category):
    return {"decision": "Decisions", "convention": "Conventions", "preference": "Preferences",
            "procedure": "Procedures"}.get(category, "Confirmed facts")


def promote_text(memory_md, fact, item_id, category, now):
    """MEMORY.md text with the fact added under its section, or None when it is there already."""
    if "<!-- id: %s " % item_id in memory_md:
        return None
    line = "- %s %s" % (" ".join(fact.split()), "<!-- id: %s confirmed: %s -->" % (item_id, now.strftime("%Y-%m-%d")))
    heading = "## " + layer3_section_for(category)
    lines = memory_md.split("\n")
    if heading in (l.rstrip() for l in lines):
        start = [i for i, l in enumerate(lines) if l.rstrip() == heading][0]
        end = start + 1
        while end < len(lines) and not lines[end].startswith("#"):
            end += 1
        insert_at = end
        while insert_at > start + 1 and lines[insert_at - 1].strip() == "":
            insert_at -= 1
        lines.insert(insert_at, line)
        return "\n".join(lines)
    body = memory_md.rstrip("\n")
    return body + "\n\n" + heading + "\n" + line + "\n"


def init_store(store):
    """Create the store from the template; never overwrites an existing file. Returns the relative
    paths it created. Call with the store lock held (the lock lives in state/, created first)."""
    created = []
    if os.path.isdir(TEMPLATE_DIR):
        for folder, dirs, files in os.walk(TEMPLATE_DIR):
            dirs.sort()
            rel_folder = os.path.relpath(folder, TEMPLATE_DIR)
            target_folder = os.path.normpath(os.path.join(store, rel_folder))
            safefs.make_dirs(target_folder, store)
            for name in sorted(files):
                if name == ".gitkeep":
                    continue
                target = os.path.join(target_folder, name)
                if not os.path.lexists(target):
                    with open(os.path.join(folder, name), "rb") as fh:
                        atomic_write_bytes(target, fh.read())
                    created.append(os.path.relpath(target, store))
    else:
        for sub in (DAILY_DIR, TOPICS_DIR, STATE_DIR):
            safefs.make_dirs(os.path.join(store, sub), store)
        target = layer3_path(store)
        if not os.path.lexists(target):
            atomic_write_bytes(target, FALLBACK_MEMORY_MD.encode("utf-8"))
            created.append(LAYER3_FILE)
    return created
