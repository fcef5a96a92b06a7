"""Normalisation before the secret scan: what a reader sees, not the code points that hide a token
from a regex. Zero-width characters go, Unicode spaces become plain spaces, full-width forms fold
by NFKC, and a token split by a line break, a no-break space or string concatenation is joined,
with every character mapped back to its offset in the original text so masking hits the original.
"""
import re

_compiled = {}


def _re(pattern, flags=0):
    """Compile on first use and keep it (the detector's one cache): hooks are fresh processes, so
    unused rules cost nothing."""
    key = (pattern, flags)
    rx = _compiled.get(key)
    if rx is None:
        rx = _compiled[key] = re.compile(pattern, flags)
    return rx



def _prose_words():
    from .redaction import words  # the shared vocabularies (data/credential_words.json)
    return words()["prose_words"]


def has_classes(value):
    """Digits, upper and lower case together: generated, not typed words."""
    return (any(c.isdigit() for c in value) and any(c.isupper() for c in value)
            and any(c.islower() for c in value))


_HIDDEN = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e"
# Typographic and CJK quotes read as ASCII ones: the password is \u201cTr0ub4dor&3\u201d, 密钥是「...」.
_QUOTES = {"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2018": "'", "\u2019": "'",
           "\u201a": "'", "\u201b": "'", "\u300c": '"', "\u300d": '"', "\u300e": '"', "\u300f": '"'}
_ODD = ("[" + _HIDDEN + "\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x85"
        "\u2018-\u201f\u300c-\u300f]")
_TOKEN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=-")


def normalise(text):
    """(text', offsets, soft): hidden characters dropped, Unicode spaces made plain spaces and
    each other character folded by NFKC (full-width ｇｌｐａｔ to glpat). offsets[i] is the index in
    text of text'[i] (None when text' is text); soft lists the indices of spaces that were not
    ASCII spaces in text (a no-break space may sit inside a token)."""
    if text.isascii():
        return text, None, []
    import unicodedata
    if not _re(_ODD).search(text) and unicodedata.is_normalized("NFKC", text):
        return text, None, []
    out, offsets, soft, pos = [], [], [], 0
    for m in _re(r"[^\x00-\x7f]+").finditer(text):
        a, b = m.span()
        out.append(text[pos:a])
        offsets.extend(range(pos, a))
        run = m.group()
        if not _re(_ODD).search(run) and unicodedata.is_normalized("NFKC", run):
            out.append(run)
            offsets.extend(range(a, b))
        else:  # character by character, so every output character knows where it came from
            for i, ch in enumerate(run, a):
                if ch in _HIDDEN:
                    continue
                folded = _QUOTES.get(ch) or unicodedata.normalize("NFKC", ch)
                if ch in "\u2028\u2029\x85":
                    folded = "\n"
                elif folded.isspace():
                    soft.append(len(offsets))
                    folded = " "
                out.append(folded)
                offsets.extend([i] * len(folded))
        pos = b
    out.append(text[pos:])
    offsets.extend(range(pos, len(text)))
    return "".join(out), offsets, soft


def join_spans(text, soft):
    """Spans of text to delete so that a split token reads whole: a line break inside a token
    (after an optional backslash), a no-break space between token characters, the `" + "` of
    concatenated string pieces, the spaces of a token typed in groups ("LTAI 5tEV IhTM ...",
    "g h p _ a B 3 ...")."""
    spans = [(i, i + 1) for i in soft if 0 < i < len(text) - 1 and text[i - 1] in _TOKEN and text[i + 1] in _TOKEN]
    if "\n" in text:
        for m in _re(r"\\?[ \t]*\r?\n[ \t]*(?=[A-Za-z0-9_+/=-]{4})").finditer(text):
            k = m.start()
            while k > 0 and m.start() - k < 300 and text[k - 1] in _TOKEN:
                k -= 1
            head, nxt = text[k:m.start()], _re(r"[A-Za-z0-9_+/=-]+").match(text, m.end()).group()
            # both sides look generated (digits, camelCase): "...rotated\nEvery" is two words
            if len(head) >= 8 and _tokenish(head + "0" if "_" in head else head) and _tokenish(nxt):
                spans.append(m.span())
    if "+" in text:
        spans.extend(m.span() for m in _re(r"(?<=[\w/=-])([\"'])[ \t]*\+[ \t\r\n]*\1(?=[\w/+=-])").finditer(text))
    if text.count(" ") >= 3 and (any(d in text for d in "0123456789") or "app password" in text.lower()
                                 or "专用密码" in text):
        spans.extend(_group_spans(text, 4, "[A-Za-z0-9]"))
        spans.extend(_group_spans(text, 1, "[A-Za-z0-9_+/=-]"))
    return sorted(set(spans))


def _tokenish(run):
    return any(c.isdigit() for c in run) or any(a.islower() and b.isupper() for a, b in zip(run, run[1:]))


def _group_spans(text, width, char):
    """The spaces inside 3+ space-separated groups of width characters: a key read out in fours
    ("LTAI 5tEV IhTM VmoF"), an app password ("qwzx kfpt mnbv hjlr"), a token typed one
    character at a time. The pattern starts with a space so `re` jumps between spaces."""
    group = "%s{%d}" % (char, width)
    last = 0
    for m in _re(" %s %s %s" % (group, group, group)).finditer(text):
        more = _re(r"(?: %s)*(?![\w+/=-])" % group).match(text, m.end()) if m.start() >= last else None
        if more is None:
            continue
        start, last = m.start() + 1, more.end()
        head = text[max(0, start - width - 1):start - 1]
        if len(head) == width and all(c in _TOKEN for c in head) and text[start - width - 2:start - width - 1] \
                not in _TOKEN:
            start -= width + 1  # "：LTAI 5tEV": the first group is glued to what precedes it
        groups = text[start:last]
        letters = groups.replace(" ", "")
        if (has_classes(groups) and len(letters) >= 16) or (width == 4 and len(groups) == 19 and letters.isalpha()
                                                            and letters.islower() and not any(
                                                                g in _prose_words() for g in groups.split())):
            for i in range(start + width, last, width + 1):
                yield i, i + 1
