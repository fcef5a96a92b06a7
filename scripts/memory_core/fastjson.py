"""JSON for the hook hot path without importing the json package.

Importing json compiles several regular expressions (and imports `re` where nothing else has), a
cost every PostToolUse hook would pay after every tool call. CPython's own C scanner and string
encoder (module _json, the engine behind json.loads/dumps) do the same work without it. Elsewhere,
and on interpreters without _json, the json module is used: same results.
"""
_WS = " \t\n\r"

try:
    import _json

    class _Context(object):  # the attributes json.scanner.make_scanner reads from a JSONDecoder
        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = float
        memo = {}

    _scan = _json.make_scanner(_Context())
    _encode_str = _json.encode_basestring
    if _scan('{"a": [1, "\\u00e9"]}', 0) != ({"a": [1, "\u00e9"]}, 20) or _encode_str("\u00e9\n") != '"\u00e9\\n"':
        raise ImportError("unexpected _json behaviour")
except (ImportError, AttributeError, TypeError):
    _scan = _encode_str = None


def loads(text):
    """json.loads for text; ValueError on anything that is not exactly one JSON value."""
    if _scan is None:
        import json
        return json.loads(text)
    start = 0
    while start < len(text) and text[start] in _WS:  # not lstrip: a 40 MB file would be copied
        start += 1
    try:
        value, end = _scan(text, start)
    except StopIteration:
        raise ValueError("invalid JSON at character %d" % start)
    except RecursionError:
        raise ValueError("JSON nested too deeply")
    except (SystemError, ValueError) as exc:  # some malformed input makes the C scanner fail oddly
        raise ValueError("invalid JSON (%s)" % exc.__class__.__name__)
    if text[end:].strip(_WS):
        raise ValueError("extra data after JSON at character %d" % end)
    return value


def dumps(obj, indent=None):
    """json.dumps(obj, ensure_ascii=False, sort_keys=True[, indent=indent]) for dicts, lists,
    strings, numbers, booleans and None."""
    if _encode_str is None:
        import json
        return json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=indent)
    out = []
    _dump(obj, out, "\n" if indent is not None else None, " " * (indent or 0))
    return "".join(out)


def _dump(obj, out, newline, step):
    """newline: None for one line, else "\n" and the current indentation; step: one level's."""
    if isinstance(obj, str):
        out.append(_encode_str(obj))
    elif obj is None:
        out.append("null")
    elif obj is True:
        out.append("true")
    elif obj is False:
        out.append("false")
    elif isinstance(obj, int):
        out.append(int.__repr__(obj))
    elif isinstance(obj, float):
        out.append(float.__repr__(obj) if obj == obj and obj not in (float("inf"), float("-inf"))
                   else ("NaN" if obj != obj else ("Infinity" if obj > 0 else "-Infinity")))
    elif isinstance(obj, (dict, list, tuple)):
        is_dict = isinstance(obj, dict)
        if not obj:
            out.append("{}" if is_dict else "[]")
            return
        out.append("{" if is_dict else "[")
        inner = None if newline is None else newline + step
        for i, entry in enumerate(sorted(obj) if is_dict else obj):
            if i:
                out.append(", " if newline is None else ",")
            if inner is not None:
                out.append(inner)
            if is_dict:
                out.append(_encode_str(str(entry)))
                out.append(": ")
                _dump(obj[entry], out, inner, step)
            else:
                _dump(entry, out, inner, step)
        if newline is not None:
            out.append(newline)
        out.append("}" if is_dict else "]")
    else:
        raise TypeError("cannot encode %r" % type(obj).__name__)
