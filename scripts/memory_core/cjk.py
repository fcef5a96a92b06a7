"""Chinese character runs of a text (the range U+3400-U+9FFF), found without a regular expression
over that range: sre builds a character class of 27,000 code points in Python, about 1 ms per
pattern in every process, and recording a fact compiled seven of them. The patterns here name
non-ASCII word characters instead (which holds the whole range but U+4DC0-U+4DFF, named too) and
compile in a fifth of that; what they find is cut to the range in Python."""
LOW, HIGH = "\u3400", "\u9fff"
HAN = "\u4e00"  # the unified ideographs (U+4E00-U+9FFF): the units after a number
# for patterns that then cut what they find to the range (digits left out: "5 ٣" is two numbers)
NON_ASCII_WORD = r"(?:[^\W\d\x00-\x7f]|[\u4dc0-\u4dff])"
_RUNS = []  # the compiled pattern, on first use: a query keys its text with light_runs(), no re


def _runs():
    if not _RUNS:
        import re
        _RUNS.append(re.compile(NON_ASCII_WORD + "+"))
    return _RUNS[0]


def light_runs(text):
    """What findall(text) gives, char by char without the re module (a query's few words): the
    maximal runs of characters in the range that NON_ASCII_WORD holds (a non-ASCII letter, not a
    digit, or U+4DC0-U+4DFF)."""
    out, start = [], None
    for i, ch in enumerate(text):
        if LOW <= ch <= HIGH and (("\u4dc0" <= ch <= "\u4dff") or (ch.isalnum() and not ch.isdecimal())):
            if start is None:
                start = i
        elif start is not None:
            out.append(text[start:i])
            start = None
    if start is not None:
        out.append(text[start:])
    return out


def is_cjk(ch):
    return LOW <= ch <= HIGH


def spans(text):
    """[(start, end)] of each maximal run of Chinese characters, in order."""
    out = []
    for m in _runs().finditer(text):
        start = None
        for i in range(m.start(), m.end()):
            if LOW <= text[i] <= HIGH:
                if start is None:
                    start = i
            elif start is not None:
                out.append((start, i))
                start = None
        if start is not None:
            out.append((start, m.end()))
    return out


def findall(text):
    """The runs themselves (what re.findall("[\\u3400-\\u9fff]+", text) gives)."""
    return [text[a:b] for a, b in spans(text)]


def search(text):
    """Whether the text has a Chinese character."""
    return any(LOW <= ch <= HIGH for m in _runs().finditer(text) for ch in m.group())


def run_at(text, pos):
    """The run that starts exactly at pos, or "" (re.match of the range at pos)."""
    end = pos
    while end < len(text) and LOW <= text[end] <= HIGH:
        end += 1
    return text[pos:end]


def prefix(word, low=LOW):
    """The leading characters of word within low..U+9FFF."""
    end = 0
    while end < len(word) and low <= word[end] <= HIGH:
        end += 1
    return word[:end]
