"""Recall and false-positive rate of find_secrets on the plain-language dev set.

evals/fixtures/plain_secrets/{en,zh}.{tune,blind}.jsonl: rows of id, lang, text, label (refuse |
allow) and kind, written independently of the detector: credentials in words, login pairs,
command flags, webhooks, obfuscated tokens, personal data, and look-alikes that must pass. A
"refuse" row is caught when find_secrets returns at least one finding; an "allow" row is a false
positive when it returns any.

The detector was tuned on the *.tune.jsonl and *.tune2.jsonl rows, so their figure is in-sample.
(*.tune2 was the first blind half: scored blind once, then folded into tuning; see
references/security.md.) The *.blind.jsonl rows were never read while building it: their figure is
the honest one, and a failure reports only counts per kind, never row text or ids, so that the blind
half stays blind.

Fake vendor tokens in the rows hold "{{}}" inside the token (so push protection stays quiet);
it is stripped before use.
"""
import collections
import json
import unittest

import _support
from memory_core.redaction import find_secrets

FIXTURES = _support.REPO / "evals" / "fixtures" / "plain_secrets"
RECALL_MIN, FPR_MAX = 0.97, 0.03  # the target, asserted on the tuned (in-sample) rows
# Round 12's blind set meets the target (recall 0.980, FPR 0.013), but fresh sets have scored between
# 0.927 and 0.980 (references/security.md gives every round): the target holds on this set, not on
# every set. The test asserts the target on the blind set kept in the repo.
BLIND_RECALL_FLOOR, BLIND_FPR_MAX = RECALL_MIN, FPR_MAX


# Every tuned set: each blind round, once scored, is renamed en/zh.tuneN.jsonl.
TUNE_HALVES = tuple(sorted({p.name.split(".")[1] for p in FIXTURES.glob("*.tune*.jsonl")})) or ("tune",)


def load(*halves):
    rows = []
    for lang, half in [(lang, half) for half in halves for lang in ("en", "zh")]:
        path = FIXTURES / ("%s.%s.jsonl" % (lang, half))
        if not path.is_file():
            raise unittest.SkipTest("%s not present (the plain-secrets dev set)" % path)
        with open(str(path), encoding="utf-8") as fh:
            rows.extend(json.loads(line) for line in fh if line.strip())
    return rows


def measure(rows):
    """(recall, fpr, caught, refuse, flagged, allow, wrong rows)."""
    refuse = [r for r in rows if r["label"] == "refuse"]
    allow = [r for r in rows if r["label"] == "allow"]
    wrong = []
    for row in rows:
        found = bool(find_secrets(row["text"].replace("{{}}", "")))
        if found != (row["label"] == "refuse"):
            wrong.append(row)
    missed = sum(1 for r in wrong if r["label"] == "refuse")
    flagged = len(wrong) - missed
    return (1 - missed / float(len(refuse)), flagged / float(len(allow)), len(refuse) - missed, len(refuse),
            flagged, len(allow), wrong)


def per_kind(wrong, label):
    counts = collections.Counter("%s/%s" % (r["lang"], r["kind"]) for r in wrong if r["label"] == label)
    return ", ".join("%s %d" % item for item in sorted(counts.items())) or "none"


class PlainSecretsTest(unittest.TestCase):

    def check(self, halves, name, show_rows, recall_min=RECALL_MIN, fpr_max=FPR_MAX):
        recall, fpr, caught, refuse, flagged, allow, wrong = measure(load(*halves))
        line = ("plain-secrets %s: recall %.3f (%d/%d), false-positive rate %.3f (%d/%d)"
                % (name, recall, caught, refuse, fpr, flagged, allow))
        print(line)
        _support.report_metric("plain-secrets %s recall" % name, "%.3f" % recall)
        _support.report_metric("plain-secrets %s false-positive rate" % name, "%.3f" % fpr)
        if show_rows:
            detail = "; ".join("%s %s %s" % (r["id"], r["label"], r["kind"]) for r in wrong[:20])
        else:  # blind: counts per kind only
            detail = "missed per kind: %s; false positives per kind: %s" % (per_kind(wrong, "refuse"),
                                                                           per_kind(wrong, "allow"))
        self.assertGreaterEqual(recall, recall_min, "%s; %s" % (line, detail))
        self.assertLessEqual(fpr, fpr_max, "%s; %s" % (line, detail))

    def test_tune_half_in_sample(self):
        self.check(TUNE_HALVES, "tune (in-sample)", show_rows=True)

    def test_blind_half(self):
        self.check(("blind",), "blind", show_rows=False, recall_min=BLIND_RECALL_FLOOR, fpr_max=BLIND_FPR_MAX)


if __name__ == "__main__":
    unittest.main()
