"""Progress on long work (review of a large store, a migration, an import): "\\r label 120/4000" on
stderr, at most a few times a second, and a final newline. Shown only when stderr is a terminal and
the run is not --json, so pipes, logs and machine output never see it."""
import os
import sys
import time

INTERVAL = 0.25  # seconds between redraws


class Progress(object):
    """Counts steps of one piece of work and redraws one terminal line; a disabled one does nothing."""

    def __init__(self, total, label, enabled, stream=None):
        self.total, self.label, self.enabled = total, label, bool(enabled)
        self.stream = stream or sys.stderr
        self.count, self.shown, self.last = 0, False, 0.0

    def step(self, n=1):
        self.count += n
        if self.enabled and time.monotonic() - self.last >= INTERVAL:
            self._draw()

    def done(self):
        """The final count and the newline, once, if anything was shown or the work counted steps."""
        if self.enabled and (self.shown or self.count):
            self._draw()
            self._write("\n")
        self.enabled = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.done()
        return False

    def _draw(self):
        self.last = time.monotonic()
        self.shown = True
        self._write("\r%s %d/%d" % (self.label, self.count, self.total))

    def _write(self, text):
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: the work goes on without it
            self.enabled = False


def stderr_is_terminal():
    try:
        return os.isatty(sys.stderr.fileno())
    except (AttributeError, ValueError, OSError):
        return False


def reporter(quiet=False):
    """A factory (total, label) -> Progress for a run: drawing on stderr when it is a terminal and
    the run is not quiet (--json), else every Progress it makes is disabled."""
    enabled = not quiet and stderr_is_terminal()
    return lambda total, label: Progress(total, label, enabled)


def silent(total, label):
    """The factory of a run nobody watches (the default of the core functions)."""
    return Progress(total, label, False)
