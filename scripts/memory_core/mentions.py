"""Names a fact mentions that the vocabulary need not know: a capitalised word after the first
(Riverpod, Papertrail, URP), an identifier (go_router, log/slog, com.ridego.app, alpine:3.19, ec2) or
a `code` span. Two facts that each mention a name the other lacks often put another thing in one
slot ("State management uses Provider." / "State management is Riverpod.")."""

import re

_TOKEN = re.compile(r"`[^`]+`|[A-Za-z0-9][\w.+#/:@-]*[\w+#]|[A-Za-z]")
_IDENTIFIER = re.compile(r"[A-Za-z][_./:@][A-Za-z0-9]|[A-Za-z][0-9]|[0-9][A-Za-z]")
_SENTENCE_END = re.compile(r"[.:;!?]\s*$")
_ALNUM = re.compile(r"[A-Za-z0-9]+")


def names(text):
    """The lower-cased names the text mentions. A capital opening the text or a sentence is no name."""
    out = set()
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        if token.startswith("`"):
            out.add(token.strip("`").lower())
            continue
        token = token.rstrip(".:")
        capitalised = any(ch.isupper() for ch in token[1:]) or (
            token[:1].isupper() and m.start() > 0 and not _SENTENCE_END.search(text[:m.start()]))
        if capitalised or _IDENTIFIER.search(token):
            out.add(token.lower())
    return out


def words(text):
    """The lower-cased ASCII words and numbers of the text."""
    return set(w.lower() for w in _ALNUM.findall(text))


def differ(names_a, words_a, names_b, words_b):
    """Whether each side mentions a name the other does not (neither as a word nor all its parts)."""
    def own(names_, other_words):
        return any(n not in other_words and not set(_ALNUM.findall(n)) <= other_words for n in names_)
    return own(names_a, words_b) and own(names_b, words_a)
