"""What every script shares: decoding arguments, printing the action summary, exit codes.

Exit codes: 0 done, 1 refused or findings, 2 usage or environment error. Expected failures print
what happened and the fix, never a traceback.
"""
import os
import sys

from .paths import StoreError


def check_utf8_arg(value, flag):
    """argv arrives surrogate-escaped when it is not UTF-8; refuse it with a clear error."""
    if value is None:
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise StoreError("%s is not valid UTF-8" % flag, fix="pass %s as UTF-8 text" % flag)
    return value


def _columns():
    """The terminal's width as shutil.get_terminal_size finds it ($COLUMNS, then stdout's
    terminal, else 80)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


_FORMATTER = []


def help_formatter():
    """argparse's RawDescriptionHelpFormatter given the terminal's width, so that building a parser
    does not import shutil (argparse makes a formatter to check each option, and shutil, for the
    width, brings bz2, lzma and fnmatch: 3 ms at every start). Made on first use: hooks parse their
    arguments without argparse."""
    if not _FORMATTER:
        import argparse

        class HelpFormatter(argparse.RawDescriptionHelpFormatter):
            def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
                super().__init__(prog, indent_increment, max_help_position,
                                 _columns() - 2 if width is None else width)
        _FORMATTER.append(HelpFormatter)
    return _FORMATTER[0]


class Args(object):
    """The parsed options of quick_args: attributes named as argparse would name them."""

    def __init__(self, values):
        self.__dict__.update(values)


def quick_args(argv, spec):
    """Parse argv by hand when it holds only the options in spec ({"--max-chars": int, "--json":
    bool, ...}), else None, and the script uses argparse (for --help, errors and anything unusual).
    argparse with its help formatter costs a load ~12 ms, more than the loading itself."""
    values = dict((flag[2:].replace("-", "_"), False if kind is bool else None) for flag, kind in spec.items())
    rest = list(argv)
    while rest:
        arg = rest.pop(0)
        flag, eq, inline = arg.partition("=")
        kind = spec.get(flag)
        if kind is None:
            return None
        if kind is bool:
            if eq:
                return None
            values[flag[2:].replace("-", "_")] = True
            continue
        if not eq:
            if not rest or rest[0].startswith("--"):
                return None
            inline = rest.pop(0)
        try:
            values[flag[2:].replace("-", "_")] = kind(inline)
        except ValueError:
            return None
    return Args(values)


def read_stdin_text(what, limit):
    """Standard input as text, refusing (exit 1) past limit bytes without reading the rest."""
    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit:
        from .recording import Refusal
        raise Refusal("%s on standard input is over %d bytes; nothing was read further or written"
                      % (what, limit), fix="record one short, reusable fact; keep logs and long notes out of memory")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StoreError("%s on standard input is not valid UTF-8 (byte %d)" % (what, exc.start),
                         fix="send UTF-8 text on standard input")


def command_hint(script, *args):
    """A copy-pasteable command line for the 'next' step, quoted for the shell."""
    import shlex
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return shlex.join(["python3", os.path.join(here, script)] + [str(a) for a in args])


def print_json(obj):
    from .fastjson import dumps  # the json package would import re
    sys.stdout.write(dumps(obj, indent=2) + "\n")


def print_summary(result):
    """The contract's action summary: read, written, skipped, notes, next."""
    for key in ("read", "written", "skipped", "notes"):
        for entry in result.get(key) or ():
            print("%-8s %s" % (key + ":", entry))
    if not result.get("written") and result.get("status") and "dry-run" not in str(result.get("status")):
        print("written: nothing")
    if result.get("next"):
        print("next:    " + result["next"])


def run(main, as_json_flag="--json"):
    """Call main() -> exit code; turn StoreError into the error report, never a traceback."""
    as_json = as_json_flag in sys.argv[1:]
    try:
        code = main()
        sys.stdout.flush()  # here, not at exit: a reader that went away (`| head`) is a BrokenPipeError below
        return code
    except BrokenPipeError:  # before OSError, its parent: the reader stopped reading, nothing failed
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, sys.stdout.fileno())  # so the interpreter's own flush at exit is quiet too
        except (OSError, ValueError):
            pass
        return 0
    except StoreError as exc:
        details = dict(getattr(exc, "details", {}) or {})
        if as_json:
            details.update({"ok": False, "error": exc.message, "fix": exc.fix, "exit_code": exc.exit_code})
            if exc.path:
                details["path"] = exc.path
            print_json(details)
        else:
            sys.stderr.write("error: %s\n" % exc.message)
            if exc.fix:
                sys.stderr.write("fix:   %s\n" % exc.fix)
        return exc.exit_code
    except OSError as exc:  # disk full, permissions, ...: environment errors, not bugs
        where = exc.filename or "the store"
        message = "%s: %s; the write in flight was not completed" % (where, exc.strerror or exc)
        if as_json:
            print_json({"ok": False, "error": message, "fix": "fix the file system problem and retry",
                        "exit_code": 2})
        else:
            sys.stderr.write("error: %s\nfix:   fix the file system problem and retry\n" % message)
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 2
