#!/usr/bin/env python3
"""Build scripts/memory_core/data/fact_keys.tsv, the lookup table of the judgement keys' vocabulary
(memory_core/key_vocab.py), from data/fact_vocab.json and data/recall_vocab.json. Run it after
editing either;
--check says whether the table is current (exit 1 when not)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts"))
sys.path.insert(0, HERE)

from memory_core import candidate_keys, key_vocab, vocabulary  # noqa: E402
from model_file import write_or_check  # noqa: E402


def table_bytes():
    import json
    v = vocabulary.vocab()
    with open(key_vocab.RECALL_SOURCE, encoding="utf-8") as fh:
        recall_raw = json.load(fh)
    header = (key_vocab.HEADER + key_vocab.source_digest() + "\n").encode("ascii")
    return header + key_vocab.table_lines(v, candidate_keys._words(v), recall_raw)


def main(argv):
    blob = table_bytes()
    code = write_or_check(key_vocab.TABLE, blob, argv)
    if code is not None:
        return code
    print("wrote %s (%d bytes)" % (key_vocab.TABLE, len(blob)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
