"""Where things are: the project root, the store, and the names of the three layers.

One source of truth for the layout; documented in references/data-format.md.
"""
import os

STORE_DIRNAME = ".memory-3layer"
LEGACY_DIRNAME = os.path.join(".claude", "memory")
LAYER3_FILE = "MEMORY.md"
DAILY_DIR = "memory"
TOPICS_DIR = os.path.join("areas", "topics")
ITEMS_FILE = "items.json"
STATE_DIR = "state"
CONFIG_FILE = "config.yaml"
ITEMS_SCHEMA = "memory-3layer/items@1"

_TOPIC_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_DIGITS = frozenset("0123456789")


class StoreError(Exception):
    """An expected failure: says what happened and how to fix it. exit_code follows the conventions
    (1 refused, 2 usage or environment)."""

    def __init__(self, message, fix=None, exit_code=2, path=None):
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.exit_code = exit_code
        self.path = path


def topic_error(topic):
    """Why a topic name is refused, or None when it is fine."""
    if not isinstance(topic, str) or topic == "":
        return "topic is empty"
    if len(topic) > 64:
        return "topic is %d characters; the limit is 64" % len(topic)
    if not set(topic) <= _TOPIC_CHARS:
        return "topic %r may hold only lowercase a-z, 0-9 and '-'" % topic
    return None


def is_daily_name(name):
    """YYYY-MM-DD.md (checked without `re`, which a hook would otherwise import just for this)."""
    return (len(name) == 13 and name.endswith(".md") and name[4] == "-" and name[7] == "-"
            and set(name[0:4] + name[5:7] + name[8:10]) <= _DIGITS)


def _walk_up(start, name, top=None):
    """Nearest ancestor of start (itself included, top the last one looked at) holding an entry called name."""
    cur = start
    while True:
        if os.path.lexists(os.path.join(cur, name)):
            return cur
        parent = os.path.dirname(cur)
        if parent == cur or cur == top:
            return None
        cur = parent


def find_project_root(project_dir=None, cwd=None, store_name=None):
    """Return (root, how). Without --project-dir: the nearest ancestor of the cwd holding a store,
    then the git top level, then the cwd (SPEC.md, The store). --project-dir P is resolved the same
    way from P, so a subfolder of a monorepo finds the one store, but bounded: the store is looked
    for only up to P's git top level, and outside git P itself is the root."""
    if project_dir:
        return _root_for_project_dir(project_dir, store_name or STORE_DIRNAME)
    start = os.path.abspath(cwd or os.getcwd())
    found = _walk_up(start, store_name or STORE_DIRNAME)
    if found:
        return found, "existing store"
    found = _walk_up(start, ".git")
    if found:
        return found, "git top level"
    return start, "current directory"


def _root_for_project_dir(project_dir, store_name):
    given = os.path.abspath(os.path.expanduser(project_dir))
    if not os.path.isdir(given):
        raise StoreError("project dir %s does not exist or is not a folder" % given,
                         fix="pass --project-dir with an existing project folder", path=given)
    git_top = _walk_up(given, ".git")
    if not git_top:
        return given, "--project-dir"  # outside git nothing bounds a walk up: a stray store in /tmp would win
    found = _walk_up(given, store_name, top=git_top)
    if found:
        return found, ("--project-dir" if found == given else "existing store above %s" % given)
    return git_top, ("--project-dir" if git_top == given else "git top level of %s" % given)


def store_relpath(env=None):
    """The store folder relative to the project root: MEMORY_DIR or the default."""
    env = os.environ if env is None else env
    value = env.get("MEMORY_DIR") or STORE_DIRNAME
    return value


def resolve_store(project_dir=None, cwd=None, env=None):
    """Return (root, store, how). MEMORY_DIR must resolve inside the project, not equal to it,
    and through no symlink, so a store can never be redirected outside the project."""
    rel = store_relpath(env)
    hint_name = rel if not os.path.isabs(rel) else None
    root, how = find_project_root(project_dir, cwd, store_name=hint_name)
    root_real = os.path.realpath(root)
    store = os.path.normpath(os.path.join(root, rel))
    inside = os.path.relpath(store, root)
    if inside == "." or inside == os.pardir or inside.startswith(os.pardir + os.sep):
        raise StoreError("MEMORY_DIR=%s resolves to %s, which is not inside the project %s"
                         % (rel, store, root),
                         fix="set MEMORY_DIR to a folder inside the project, such as .memory-3layer",
                         path=store)
    check_no_symlink(root, inside)
    if os.path.realpath(store) != os.path.join(root_real, inside):
        raise StoreError("store %s does not resolve inside %s" % (store, root),
                         fix="remove the link or set MEMORY_DIR to a plain folder", path=store)
    from . import safefs
    safefs.trust(root)
    safefs.trust(store)
    return root, store, how


def check_no_symlink(base, relpath):
    """Refuse when any existing component of base/relpath is a symlink."""
    cur = base
    for part in relpath.split(os.sep):
        if part in ("", "."):
            continue
        cur = os.path.join(cur, part)
        if os.path.islink(cur):
            from .safefs import UnsafePath
            raise UnsafePath(cur, "is a symbolic link",
                             fix="remove the link and keep a real folder inside the project there")
        if not os.path.lexists(cur):
            return


# Every path under a store is built here, so the store becomes the base that safefs checks each
# such path from (no component below it may be a link).

def _trusted(store):
    from . import safefs
    safefs.trust(store)
    return store


def topic_items_path(store, topic):
    return os.path.join(_trusted(store), TOPICS_DIR, topic, ITEMS_FILE)


def daily_path(store, day):
    return os.path.join(_trusted(store), DAILY_DIR, day + ".md")


def state_path(store, name):
    return os.path.join(_trusted(store), STATE_DIR, name)


def layer3_path(store):
    return os.path.join(_trusted(store), LAYER3_FILE)


def config_path(store):
    return os.path.join(_trusted(store), CONFIG_FILE)
