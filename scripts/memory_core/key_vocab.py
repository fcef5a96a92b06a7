"""The vocabulary a single text's judgement keys need (candidate_keys.fact_keys with light=True),
read by lookup from data/fact_keys.tsv instead of preparing all of data/fact_vocab.json.

Preparing the whole vocabulary costs a process ~7 ms (parse, then 5,800 phrases and their reach);
a query needs a few dozen lookups. data/fact_keys.tsv holds the same tables as sorted lines searched
in place (sortedlines.py), and names the size and CRC-32 of the fact_vocab.json it was built from: when that
file changed since, it is not used (the full vocabulary is), so a stale table never gives other keys.
Built by `python3 evals/tools/build_fact_keys.py`; evals/test_fact_model.py checks it is current and
that both ways give the same keys.

  p:<phrase>      <kind>\\t<value>   a vocabulary phrase (vocabulary.vocab()["phrases"])
  r:<word>        <n>               how many words a phrase starting with the word can have, when > 1
  f:<tool>        <family>          the exclusive family of a tool
  ~:<name>        <JSON list>       cjk_phrases (longest first), stopwords, noise, id_noise,
                                    family_names, number_words, cn_digits, cn_multipliers
"""
import os

from . import sortedlines

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
SOURCE = os.path.join(DATA, "fact_vocab.json")
TABLE = os.path.join(DATA, "fact_keys.tsv")
HEADER = "memory-3layer fact-keys v1 source="
_LOADED = []


def source_digest(path=SOURCE):
    """The size and CRC-32 of fact_vocab.json: binascii is built in, a digest through hashlib or
    similarity.py would cost a query more than the lookups it saves."""
    import binascii
    with open(path, "rb") as fh:
        data = fh.read()
    return "%d-%08x" % (len(data), binascii.crc32(data) & 0xFFFFFFFF)


def table_lines(v, words):
    """The table's bytes for a prepared vocabulary v and candidate_keys._words(v)."""
    lines = []
    for phrase, (kind, value) in v["phrases"].items():
        lines.append("p:%s\t%s\t%s" % (phrase, kind, value))
    lines.extend("r:%s\t%d" % (word, n) for word, n in v["reach"].items() if n > 1)
    lines.extend("f:%s\t%s" % (tool, family) for tool, family in v["family_of"].items())
    for name, values in (("cjk_phrases", list(v["cjk_phrases"])), ("stopwords", sorted(v["stopwords"])),
                         ("noise", sorted(words["noise"])), ("id_noise", sorted(words["id_noise"])),
                         ("family_names", sorted(v["family_names"])), ("number_words", sorted(v["number_words"])),
                         ("cn_digits", sorted(v["cn_digits"])), ("cn_multipliers", sorted(v["cn_multipliers"]))):
        import json
        lines.append("~:%s\t%s" % (name, json.dumps(values, ensure_ascii=False)))
    if any("\n" in line or line.count("\t") > 2 for line in lines):
        raise ValueError("a phrase holds a tab or a newline")
    body = sorted(line.encode("utf-8") for line in lines)
    return b"\n".join(body) + b"\n"


class _Lookup(object):
    """A mapping read from the table by key prefix, each key found once per process."""

    def __init__(self, blob, start, prefix, convert):
        self.blob, self.start, self.prefix, self.convert, self.cache = blob, start, prefix, convert, {}

    def get(self, key, default=None):
        if key not in self.cache:
            found = sortedlines.find(self.blob, self.prefix + key, self.start)
            self.cache[key] = None if found is None else self.convert(found.decode("utf-8"))
        found = self.cache[key]
        return default if found is None else found

    def __getitem__(self, key):
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found


class KeyVocab(object):
    """What fact_keys reads of the vocabulary (v["phrases"], v["reach"], v["family_of"],
    v["cjk_phrases"], v["stopwords"], and words: candidate_keys._words' noise and id_noise), and what
    a query reads besides (v["family_names"], v["number_words"], v["cn_digits"], v["cn_multipliers"],
    for membership)."""

    def __init__(self, blob, start):
        def listed(name):
            from .fastjson import loads  # the json package would import re
            return loads(sortedlines.find(blob, "~:" + name, start).decode("utf-8"))
        self.tables = {
            "phrases": _Lookup(blob, start, "p:", lambda s: tuple(s.split("\t", 1))),
            "reach": _Lookup(blob, start, "r:", int),
            "family_of": _Lookup(blob, start, "f:", str),
            "cjk_phrases": listed("cjk_phrases"),
        }
        for name in ("stopwords", "family_names", "number_words", "cn_digits", "cn_multipliers"):
            self.tables[name] = frozenset(listed(name))  # looked up by membership, as the full one's
        self.words = {"noise": frozenset(listed("noise")), "id_noise": frozenset(listed("id_noise"))}

    def __getitem__(self, key):
        return self.tables[key]


def key_vocab():
    """The KeyVocab of data/fact_keys.tsv (once per process), or None when the table is missing,
    unreadable or built from another fact_vocab.json."""
    if not _LOADED:
        found = None
        try:
            header, blob, start = sortedlines.map_file(TABLE)
            if header.decode("ascii", "replace") == HEADER + source_digest():
                found = KeyVocab(blob, start)
        except (OSError, ValueError, AttributeError):
            found = None
        _LOADED.append(found)
    return _LOADED[0]
