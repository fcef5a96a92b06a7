"""A small learned model for the surface gate: multinomial naive Bayes over words, word pairs,
Chinese character pairs and a few shape tokens. Trained on our own labelled data by
evals/train_surface_model.py; its weights are data/surface_model.json; inference is deterministic
pure Python. The rules in classification.py stay the first opinion: record refuses only when both
say the text is not a durable fact (classification.gate).
"""
import math
import re

_MODEL = []
SCALE = 0.5  # naive Bayes is overconfident: evidence is scaled down before the softmax (tuned by CV)
RULE_WEIGHT = 0  # the rules as a feature: tried, worse in cross-validation (they are in-sample on half the data)
_WORD = re.compile(r"[a-z][a-z'+#-]*|[0-9]+(?:\.[0-9]+)*")
_CJK = re.compile(r"[\u3400-\u9fff]+")


def tokens(text):
    """Features of a text: lower-case words and word pairs, CJK characters and character pairs,
    and shape tokens (checkbox, numbered steps, command line, question, TODO marker)."""
    low = text.lower()
    words = _WORD.findall(low)
    out = ["w:" + w for w in words]
    out.extend("b:%s_%s" % pair for pair in zip(words, words[1:]))
    if words:
        out.append("first:" + words[0])
    for run in _CJK.findall(low):
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
    if RULE_WEIGHT:
        from .classification import classify
        out.extend(["r:" + classify(text)["surface"]] * RULE_WEIGHT)  # the rules' verdict, as evidence
    return out


def load():
    """The shipped model, unpacked once per process: {"labels", "priors", "unseen", "index"
    (feature -> position), "weights" (label -> list)}; None when the file is absent."""
    if not _MODEL:
        import os
        from .fastjson import loads
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "surface_model.json")
        try:
            with open(path, encoding="utf-8") as fh:
                _MODEL.append(unpack(loads(fh.read())))
        except (OSError, ValueError, KeyError):
            _MODEL.append(None)  # no model shipped: the rules decide alone
    return _MODEL[0]


def unpack(packed):
    """Build the lookups: feature -> position, and per label a dense list from the sparse pairs
    [position, weight, position, weight, ...] the file keeps (seen features only), the rest being
    the label's unseen weight."""
    packed["index"] = dict((f, i) for i, f in enumerate(packed["features"]))
    size = len(packed["features"])
    packed["dense"] = {}
    for label, unseen in zip(packed["labels"], packed["unseen"]):
        dense = [unseen] * size
        pairs = packed["weights"][label]
        for k in range(0, len(pairs), 2):
            dense[pairs[k]] = pairs[k + 1]
        packed["dense"][label] = dense
    return packed


def predict(text, model=None):
    """({surface: probability}, best surface) or (None, None) without a model."""
    model = model or load()
    if model is None:
        return None, None
    index = model["index"]
    positions = [index[f] for f in tokens(text) if f in index]
    scores = {}
    for label, prior in zip(model["labels"], model["priors"]):
        weights = model["dense"][label]
        scores[label] = prior + SCALE * sum(weights[i] for i in positions)
    top = max(scores.values())
    exp = dict((k, math.exp(v - top)) for k, v in scores.items())
    total = sum(exp.values())
    probs = dict((k, v / total) for k, v in exp.items())
    return probs, max(probs, key=lambda k: (probs[k], k))


def train(rows, alpha=0.5, min_count=1):
    """A model from [(text, surface)]: log priors, log likelihoods with Laplace smoothing alpha."""
    import collections
    counts = collections.defaultdict(collections.Counter)
    labels = collections.Counter()
    df = collections.Counter()
    for text, label in rows:
        feats = tokens(text)
        labels[label] += 1
        counts[label].update(feats)
        df.update(set(feats))
    vocab = sorted(f for f, n in df.items() if n >= min_count)
    keep = set(vocab)
    total = float(sum(labels.values()))
    packed = {"about": "naive Bayes surface model; trained by evals/tools/train_surface_model.py",
              "labels": sorted(labels), "priors": [], "unseen": [], "features": vocab, "weights": {}}
    for label in packed["labels"]:
        n = sum(c for f, c in counts[label].items() if f in keep)
        denom = n + alpha * len(vocab)
        packed["priors"].append(round(math.log(labels[label] / total), 4))
        packed["unseen"].append(round(math.log(alpha / denom), 3))
        pairs = []
        for i, f in enumerate(vocab):
            if counts[label].get(f):
                pairs.extend((i, round(math.log((counts[label][f] + alpha) / denom), 3)))
        packed["weights"][label] = pairs
    return unpack(packed)
