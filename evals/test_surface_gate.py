"""The calibrated surface gate (classification.gate: rules plus the learned model of
surface_model.py) on our classification dev set, evals/fixtures/judgement/classify.*: 4,734 items
written by helpers who had not seen the rules, half Chinese. The model was trained on the tune
halves (and the older fixture), so their figure is in-sample; the blind halves (round 4, 800 items)
were scored once.

Targets (issue "Judgement"): durable facts falsely refused <= 3%, non-durable refused >= 75%, coarse
macro-F1 >= 0.85 (coarse: the four durable surfaces count as one). The test prints every figure and
guards the measured blind level; references/classification.md says which targets are met."""
import json
import sys
import unittest

import _support
from memory_core.classification import DURABLE, gate

sys.path.insert(0, str(_support.REPO / "evals" / "tools"))
from train_surface_model import macro_f1  # noqa: E402 (one definition, shared with the trainer)

FIXTURES = _support.REPO / "evals" / "fixtures" / "judgement"
# Measured blind level (see the module docstring): a regression floor, not the targets.
BLIND_FLOOR = {"durable_refused_max": 0.03, "other_refused_min": 0.75, "coarse_f1_min": 0.85}


def load(half):
    rows = []
    for lang in ("en", "zh"):
        path = FIXTURES / ("classify.%s.%s.jsonl" % (lang, half))
        if not path.is_file():
            raise unittest.SkipTest("%s not present" % path)
        rows.extend(json.loads(l) for l in path.read_text(encoding="utf-8").splitlines() if l.strip())
    return rows


def measure(rows):
    labels, preds, refused = [], [], []
    for row in rows:
        verdict = gate(row["text"].replace("{{}}", ""))
        labels.append(row["surface"])
        preds.append(verdict["surface"] if not verdict["refuse"] else verdict["looks_like"])
        refused.append(verdict["refuse"])
    coarse = lambda s: "durable" if s in DURABLE else s
    durable = [r for l, r in zip(labels, refused) if l in DURABLE]
    other = [r for l, r in zip(labels, refused) if l not in DURABLE]
    return {"macro_f1": macro_f1(labels, preds),
            "coarse_f1": macro_f1([coarse(l) for l in labels], [coarse(p) for p in preds]),
            "durable_refused": sum(durable) / float(len(durable)),
            "other_refused": sum(other) / float(len(other)), "n": len(rows)}


class SurfaceGateTest(unittest.TestCase):
    def report(self, name, m):
        line = ("surface gate %s: coarse macro-F1 %.3f, macro-F1 %.3f, durable refused %.3f, non-durable "
                "refused %.3f (%d items)" % (name, m["coarse_f1"], m["macro_f1"], m["durable_refused"],
                                             m["other_refused"], m["n"]))
        print(line)
        _support.report_metric("surface gate %s" % name, line.split(": ", 1)[1])
        return line

    def test_tune_in_sample(self):
        m = measure(load("tune"))
        line = self.report("tune (in-sample)", m)
        self.assertLessEqual(m["durable_refused"], 0.03, line)
        self.assertGreaterEqual(m["other_refused"], 0.75, line)

    def test_blind(self):
        m = measure(load("blind"))
        line = self.report("blind", m)
        self.assertLessEqual(m["durable_refused"], BLIND_FLOOR["durable_refused_max"], line)
        self.assertGreaterEqual(m["other_refused"], BLIND_FLOOR["other_refused_min"], line)
        self.assertGreaterEqual(m["coarse_f1"], BLIND_FLOOR["coarse_f1_min"], line)

    def test_record_says_what_a_recorded_text_looks_like(self):
        verdict = gate("The todo-service sends reminder emails at 9am.")
        self.assertFalse(verdict["refuse"], verdict)
        for fact in ("Cache keys include the locale", "Images are served from the CDN",
                     "Emails are sent through the outbox table"):
            self.assertFalse(gate(fact)["refuse"], fact)
        self.assertTrue(gate("TODO: migrate the cron jobs before Friday")["refuse"])


if __name__ == "__main__":
    unittest.main()
