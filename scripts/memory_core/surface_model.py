"""A small learned model for the surface gate: multinomial logistic regression over words, word
pairs, four-letter pieces of English words, Chinese characters and character pairs, a few shape
tokens, and the rules' own verdict (classification.classify). Trained on our own labelled data by
evals/tools/train_surface_model.py (deterministic stochastic gradient descent); its weights are
data/surface_model.tsv; inference is deterministic pure Python. classification.gate decides what
record refuses from the rules and these probabilities together.
"""
import math
import re

from . import cjk

_MODEL = []
_WORD = re.compile(r"[a-z][a-z'+#-]*|[0-9]+(?:\.[0-9]+)*")
_LONG_WORD = re.compile(r"[a-z]{4,}")
PIECE = 4  # letters per word piece: "migrat" and "migration" share pieces (chosen by cross-validation)


def tokens(text, rule_surface=None):
    """Features of a text, sorted and unique: lower-case words and word pairs, word pieces, CJK
    characters and character pairs, shape tokens (checkbox, numbered steps, command line,
    question, TODO marker, clock, log words) and the rules' verdict when given."""
    low = text.lower()
    words = _WORD.findall(low)
    out = ["w:" + w for w in words]
    out.extend("b:%s_%s" % pair for pair in zip(words, words[1:]))
    if words:
        out.append("first:" + words[0])
    for word in _LONG_WORD.findall(low):
        word = "^" + word + "$"
        out.extend("g:" + word[i:i + PIECE] for i in range(len(word) - PIECE + 1))
    for run in cjk.findall(low):
        out.extend("c:" + ch for ch in run)
        out.extend("cc:" + run[i:i + 2] for i in range(len(run) - 1))
        out.append("cfirst:" + run[:2])
    stripped = text.strip()
    shapes = [("[ ]" in text or "[x]" in low, "checkbox"), (bool(re.search(r"(?m)^\s*\d+[.)]\s", text)), "numbered"),
              ("`" in text or "$ " in text, "code"), (stripped.endswith(("?", "？")), "question"),
              ("todo" in low or "待办" in text or "fixme" in low, "todo-marker"),
              (bool(re.search(r"\d{1,2}:\d{2}", text)), "clock"), ("\n" in stripped, "multiline"),
              (len(stripped) < 20, "short"), (bool(re.search(r"(?i)\b(?:error|exception|traceback|warn)\b", text)), "log")]
    out.extend("s:" + name for hit, name in shapes if hit)
    if rule_surface:
        out.append("r:" + rule_surface)
    out.append("bias")
    return sorted(set(out))


def load():
    """The shipped model, once per process, or None when the file is absent or unreadable. The file
    (data/surface_model.tsv) is a JSON header line ({"labels": [...]}) and then one line per feature,
    in byte order: "feature<TAB>w,w,...". Loading maps the file (sortedlines.map_file); a feature's
    line is found by binary search when a text has it (splitting 24,000 lines cost ~9 ms at each start)."""
    if not _MODEL:
        import os
        from .fastjson import loads
        from .sortedlines import map_file
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "surface_model.tsv")
        try:
            head, blob, start = map_file(path)
            header = loads(head.decode("utf-8"))
            _MODEL.append({"labels": list(header["labels"]), "blob": blob, "start": start, "cache": {}})
        except (OSError, ValueError, KeyError, TypeError):
            _MODEL.append(None)  # no model shipped: the rules decide alone
    return _MODEL[0]


def predict(text, model=None, rule_surface=None):
    """({surface: probability}, best surface) or (None, None) without a model."""
    model = model or load()
    if model is None:
        return None, None
    from .sortedlines import weights
    labels = model["labels"]
    scores = [0.0] * len(labels)
    for feature in tokens(text, rule_surface):
        row = weights(model, feature)
        if row is not None:
            for k, w in enumerate(row):
                scores[k] += w
    top = max(scores)
    exp = [math.exp(s - top) for s in scores]
    total = sum(exp)
    probs = dict((label, e / total) for label, e in zip(labels, exp))
    return probs, max(probs, key=lambda k: (probs[k], k))


def train(rows, epochs=25, rate=0.2, l2=1e-4, min_count=2, keep=0.01):
    """A model from [(features, surface)]: multinomial logistic regression by stochastic gradient
    descent, visiting rows in an order seeded by the epoch, so the same data gives the same weights.
    Features seen fewer than min_count times are dropped; weights below keep are written as 0."""
    import collections
    import random
    labels = sorted(set(label for _f, label in rows))
    seen = collections.Counter(f for feats, _l in rows for f in feats)
    data = [([f for f in feats if seen[f] >= min_count], labels.index(label)) for feats, label in rows]
    n = len(labels)
    weights = collections.defaultdict(lambda: [0.0] * n)
    order = list(range(len(data)))
    for epoch in range(epochs):
        random.Random(epoch).shuffle(order)
        step = rate / (1 + epoch * 0.2)
        for i in order:
            feats, gold = data[i]
            rows_w = [weights[f] for f in feats]
            scores = [sum(w[k] for w in rows_w) for k in range(n)]
            top = max(scores)
            exp = [math.exp(s - top) for s in scores]
            total = sum(exp)
            grad = [e / total - (1.0 if k == gold else 0.0) for k, e in enumerate(exp)]
            for w in rows_w:
                for k in range(n):
                    w[k] -= step * (grad[k] + l2 * w[k])
    lines = []
    for feature in sorted(weights):
        row = [round(w, 3) if abs(w) >= keep else 0.0 for w in weights[feature]]
        if any(row):
            lines.append("%s\t%s" % (feature, ",".join("%g" % w for w in row)))
    lines.sort(key=lambda line: line.encode("utf-8"))
    return {"labels": labels, "blob": "\n".join(lines).encode("utf-8"), "cache": {}}


def serialise(model):
    """The bytes of data/surface_model.tsv for a trained model."""
    import json
    header = {"about": "surface gate model (logistic regression); trained by evals/tools/train_surface_model.py",
              "labels": model["labels"]}
    return (json.dumps(header, sort_keys=True) + "\n").encode("utf-8") + model["blob"]
