"""Host config files (JSON) edited in place: only the bytes of what changed are rewritten.

The installer computes the new config as data (install.merged_config / stripped_config); edit_text
then turns the old text into the new one by walking both: a value that did not change keeps its
exact bytes, an object or array that changed keeps its own separators and member layout, and only
values that are new are serialised, in the file's detected style (indent unit or compact one line,
key and item separators, \\uXXXX escaping, CRLF). The result is parsed back and must equal the new
data; if not (a file too irregular to edit), the whole file is re-serialised in the detected style.

state/installs.json (the install manifest) names, per config, the backup of its bytes from before
the first install and the sha256 of what we wrote: uninstall puts those bytes back exactly when the
file still holds what we wrote.
"""
import difflib
import hashlib
import json
import os
import re

from . import store as st
from .paths import StoreError, state_path

MANIFEST = "installs.json"  # under state/: which backup holds each config's bytes from before install
_WS = " \t\r\n"
_SCAN = json.JSONDecoder(strict=False).scan_once
_ESCAPE = re.compile(r"(?:^|[^\\])(?:\\\\)*\\u([0-9a-fA-F]{4})")


class _Irregular(Exception):
    """The text cannot be edited in place (a duplicate key, say): re-serialise instead."""


def read_config(path):
    """(parsed object, raw text or None, style). Refuses anything we could not merge safely."""
    from .safefs import read_bytes
    raw = read_bytes(path, 16 * 1024 * 1024)  # UnsafePath (exit 2) for a linked config: never written through
    if raw is None:
        return {}, None, Style(None)
    try:
        text = raw.decode("utf-8")
        data = json.loads(text) if text.strip() else {}
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise StoreError("%s is not valid JSON (%s); nothing was written" % (path, exc),
                         fix="fix the file by hand (or move it away), then run the installer again",
                         exit_code=1, path=path)
    if not isinstance(data, dict):
        raise StoreError("%s holds a JSON %s, not an object; nothing was written" % (path, type(data).__name__),
                         fix="make the top level a JSON object, then run the installer again", exit_code=1, path=path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict) or any(not isinstance(v, list) for v in hooks.values()):
        raise StoreError("%s has a \"hooks\" value this installer cannot merge into; nothing was written" % path,
                         fix="\"hooks\" must map event names to lists of matcher groups", exit_code=1, path=path)
    return data, text, Style(text)


class Style(object):
    """How a config file writes JSON, so what we add reads like the rest of it."""

    def __init__(self, text):
        text = text or ""
        body = text.strip(_WS)
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.compact = "\n" not in body and re.sub(r"\s", "", body) not in ("", "{}")  # {} shows no style
        self.unit = None if self.compact else _indent_unit(text)
        colon = re.search(r'"\s*:(\s?)', body)  # the first key shows whether a space follows the colon
        self.key_sep = ":" if colon and not colon.group(1) else ": "
        comma = re.search(r",(\s?)", body)
        self.item_sep = "," + ((" " if comma.group(1) else "") if comma else self.key_sep[1:])
        escapes = [int(h, 16) for h in _ESCAPE.findall(text)]
        self.ascii = any(code > 0x7f for code in escapes) and all(ord(c) < 0x80 for c in text)

    def dump(self, value, prefix=""):
        """value serialised in this style; continuation lines start with prefix (the member indent)."""
        if self.compact:
            return json.dumps(value, separators=(self.item_sep, self.key_sep), ensure_ascii=self.ascii)
        out = json.dumps(value, indent=self.unit, separators=(",", self.key_sep), ensure_ascii=self.ascii)
        return out.replace("\n", self.newline + prefix)


def _indent_unit(text):
    for line in text.replace("\r\n", "\n").split("\n")[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return "\t" if line[0] == "\t" else " " * (len(line) - len(stripped))
    return "  "


def new_file_text(data):
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def edit_text(text, old, new):
    """The text of a config that held old (parsed from text) rewritten to hold new."""
    style = Style(text)
    if not text or not text.strip(_WS):
        return new_file_text(new)
    try:
        start = _skip(text, 0)
        root = _parse(text, start)
        out = text[:start] + _Editor(text, style).render(root, new) + text[root.end:]
        if _canon(json.loads(out)) == _canon(new):
            return out
    except (_Irregular, ValueError, IndexError, StopIteration, RecursionError):
        pass
    start = len(text) - len(text.lstrip(_WS))
    end = len(text.rstrip(_WS))
    return text[:start] + style.dump(new) + text[end:]


def diff_text(path, old_text, new_text):
    return "".join(difflib.unified_diff((old_text or "").splitlines(True), (new_text or "").splitlines(True),
                                        "a/" + path, "b/" + path))


# --- the install manifest: exact bytes back on uninstall ---------------------------------------

def sha(text):
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_manifest(store):
    """{config rel path: entry}; a missing, linked or unreadable manifest is empty (uninstall then strips)."""
    from .safefs import read_bytes
    try:
        raw = read_bytes(state_path(store, MANIFEST), 1024 * 1024)
        data = json.loads(raw.decode("utf-8")) if raw else {}
    except (StoreError, ValueError, UnicodeDecodeError):
        return {}
    configs = data.get("configs") if isinstance(data, dict) else None
    return {k: v for k, v in configs.items() if isinstance(v, dict)} if isinstance(configs, dict) else {}


def original_text(store, entry):
    """The bytes a config had before install, from its backup, when the backup is intact; else False."""
    from .safefs import read_bytes
    if entry.get("existed") is False:
        return None
    name = entry.get("backup")
    if not isinstance(name, str) or not name.startswith("backups/") or "/" in name[8:] or name[8:] in ("", ".", ".."):
        return False
    try:
        raw = read_bytes(state_path(store, os.path.join("backups", name[8:])), 16 * 1024 * 1024)
        text = raw.decode("utf-8") if raw is not None else None
    except (StoreError, UnicodeDecodeError):
        return False
    return text if text is not None and sha(text) == entry.get("original_sha256") else False


def manifest_entry(manifest, rel, text, holds_ours, backup, new_text):
    """What install records for a config it writes: the original stays the one from before the
    first install while the file is as we left it; a file someone edited since starts afresh only
    when it holds no handler of ours (else no exact restore is possible)."""
    entry = manifest.get(rel)
    if entry and entry.get("written_sha256") == sha(text):
        entry = dict(entry)
    elif text is None:
        entry = {"existed": False, "backup": None, "original_sha256": None}
    elif not holds_ours:
        entry = {"existed": True, "backup": backup, "original_sha256": sha(text)}
    else:
        return None
    entry["written_sha256"] = sha(new_text)
    return entry


def write_manifest(store, manifest):
    body = {"schema": "memory-3layer/installs@1", "configs": manifest}
    st.atomic_write_bytes(state_path(store, MANIFEST), (json.dumps(body, indent=2, sort_keys=True) + "\n").encode())


# --- a JSON reader that remembers where each value is ---------------------------------------------

class _Node(object):
    __slots__ = ("start", "end", "value", "items")

    def __init__(self, start, end, value, items=None):
        self.start, self.end, self.value, self.items = start, end, value, items


def _skip(text, i):
    while text[i] in _WS:
        i += 1
    return i


def _parse(text, i):
    """_Node for the value at text[i]; objects keep [(key, key start, node)], arrays [node]."""
    char = text[i]
    if char not in "{[":
        value, end = _SCAN(text, i)
        return _Node(i, end, value)
    close, items, value = ("}", [], {}) if char == "{" else ("]", [], [])
    j = _skip(text, i + 1)
    if text[j] == close:
        return _Node(i, j + 1, value, items)
    while True:
        if char == "{":
            key_start = j
            key, j = _SCAN(text, j)
            j = _skip(text, j)
            if text[j] != ":" or not isinstance(key, str) or key in value:
                raise _Irregular()
            node = _parse(text, _skip(text, j + 1))
            items.append((key, key_start, node))
            value[key] = node.value
        else:
            node = _parse(text, j)
            items.append(node)
            value.append(node.value)
        j = _skip(text, node.end)
        if text[j] == close:
            return _Node(i, j + 1, value, items)
        if text[j] != ",":
            raise _Irregular()
        j = _skip(text, j + 1)


def _canon(value):
    return json.dumps(value, ensure_ascii=True)


class _Editor(object):
    def __init__(self, text, style):
        self.text, self.style = text, style

    def render(self, node, new):
        if _canon(node.value) == _canon(new):
            return self.text[node.start:node.end]
        if isinstance(node.value, dict) and isinstance(new, dict):
            old = {key: (key_start, child) for key, key_start, child in node.items}
            prefix = self._member_indent(node)
            parts = []
            for key, value in new.items():
                if key in old:
                    key_start, child = old[key]
                    parts.append(self.text[key_start:child.start] + self.render(child, value))
                else:
                    parts.append(json.dumps(key, ensure_ascii=self.style.ascii) + self.style.key_sep
                                 + self.style.dump(value, prefix))
            return "{" + self._join(node, [(k, n) for _key, k, n in node.items], parts) + "}"
        if isinstance(node.value, list) and isinstance(new, list):
            return "[" + self._join(node, [(n.start, n) for n in node.items], self._array_parts(node, new)) + "]"
        return self.style.dump(new, self._line_indent(node.start))

    def _array_parts(self, node, new):
        prefix = self._member_indent(node)
        old = [_canon(n.value) for n in node.items]
        matcher = difflib.SequenceMatcher(None, old, [_canon(v) for v in new], autojunk=False)
        parts = []
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                parts.extend(self.text[n.start:n.end] for n in node.items[i1:i2])
                continue
            paired = min(i2 - i1, j2 - j1)  # a changed element is edited in place, not rewritten
            parts.extend(self.render(node.items[i1 + k], new[j1 + k]) for k in range(paired))
            parts.extend(self.style.dump(v, prefix) for v in new[j1 + paired:j2])
        return parts

    def _join(self, node, members, parts):
        """parts laid out with the container's own lead, separators and tail where it had them."""
        if not parts:
            return ""
        if members:
            lead = self.text[node.start + 1:members[0][0]]
            seps = [self.text[members[k][1].end:members[k + 1][0]] for k in range(len(members) - 1)]
            tail = self.text[members[-1][1].end:node.end - 1]
            default = seps[-1] if seps else "," + (lead if "\n" in lead else self.style.item_sep[1:])
        elif self.style.compact:
            lead, seps, tail, default = "", [], "", self.style.item_sep
        else:
            lead = self.style.newline + self._member_indent(node)
            seps, tail, default = [], self.style.newline + self._line_indent(node.start), "," + lead
        out = lead + parts[0]
        for k, part in enumerate(parts[1:]):
            out += (seps[k] if k < len(seps) else default) + part
        return out + tail

    def _line_indent(self, pos):
        line_start = max(self.text.rfind("\n", 0, pos) + 1, 0)
        line = self.text[line_start:pos]
        return line[:len(line) - len(line.lstrip(" \t"))]

    def _member_indent(self, node):
        """The indent of the container's members: as its first member has it, else one unit more."""
        if node.items:
            first = node.items[0][1] if isinstance(node.items[0], tuple) else node.items[0].start
            lead = self.text[node.start + 1:first]
            if "\n" in lead:
                return lead[lead.rfind("\n") + 1:]
        return self._line_indent(node.start) + (self.style.unit or "")
