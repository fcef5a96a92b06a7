"""The trees of scripts/memory_core/pair_trees.py: LightGBM on the pair model's features, per language.

train_pair_model.py calls this module: cross-validated tree probabilities on the same folds as the
linear model's (so thresholds are chosen on what record will compute), and the shipped trees,
trained on every tune pair and store candidate of a language, written as data/pair_trees.bin.
LightGBM (a dev dependency in requirements.txt) is used here only; record and review walk the
exported trees in pure Python.
"""
import binascii
import json

from memory_core import judgement, pair_trees

# Where the linear model's 1 - P(compatible) reaches CUT, the trees judge (0.3 and 0.5 were measured
# over three tree seeds, fact-model.md "Trees where the linear model sees a related pair").
CUT = 0.3
# ... and their probabilities are blended with the linear model's, BLEND of the trees' (0.5, 0.75 and 1
# measured over three tree seeds: fact-model.md)
BLEND = 0.75
PARAMS = {"objective": "multiclass", "num_class": len(judgement.LABELS), "learning_rate": 0.05, "num_leaves": 31,
          "min_data_in_leaf": 20, "feature_fraction": 0.5, "bagging_fraction": 0.8, "bagging_freq": 1,
          "lambda_l2": 1.0, "seed": 1, "deterministic": True, "force_col_wise": True, "num_threads": 2,
          "verbose": -1}
ROUNDS = 400
CHECK_ROWS = 4  # rows per language whose LightGBM scores go into the header, for the walk's test


def _matrix(xs, vocab):
    """A sparse matrix of feature dicts; columns from vocab (grown in the order features appear)."""
    import numpy
    from scipy.sparse import csr_matrix
    data, columns, starts = [], [], [0]
    for x in xs:
        for name, value in x.items():
            data.append(value)
            columns.append(vocab.setdefault(name, len(vocab)))
        starts.append(len(data))
    return csr_matrix((numpy.array(data, dtype=numpy.float64), columns, starts), shape=(len(xs), len(vocab)))


def fit(rows):
    """(booster, vocab) of LightGBM on [(features, label, weight)]."""
    import lightgbm
    vocab = {}
    matrix = _matrix([x for x, _y, _w in rows], vocab)
    labels = [judgement.LABELS.index(y) for _x, y, _w in rows]
    data = lightgbm.Dataset(matrix, labels, weight=[w for _x, _y, w in rows], params={"verbose": -1})
    return lightgbm.train(PARAMS, data, ROUNDS), vocab


def predict(model, xs, raw=False):
    """[{label: probability}] (or raw scores) of feature dicts under (booster, vocab)."""
    booster, vocab = model
    # features the trees never saw are left out (the walk reads them as absent), so vocab does not grow
    matrix = _matrix([dict((k, v) for k, v in x.items() if k in vocab) for x in xs], vocab)
    out = booster.predict(matrix, raw_score=raw)
    return [list(map(float, row)) if raw else dict(zip(judgement.LABELS, map(float, row))) for row in out]


def related(probs):
    return pair_trees.related(probs, CUT)


def blend(trees, linear):
    """What pair_trees.refine gives for a related pair."""
    return pair_trees.blend(trees, linear, BLEND)


def store_rows(stores, lang, weight, held=()):
    """[(features, label, weight)] of the store candidates of lang, leaving out the projects in held."""
    return [(x, label, weight) for p, l, _n, items in stores if l == lang and p not in held
            for x, _s, label, _found in items]


def fit_language(pairs, stores, lang, weight, held=()):
    """fit() on the tune pairs of lang ([(features, label, lang, signals)]) and its store candidates."""
    return fit([(x, y, 1.0) for x, y, l, _s in pairs if l == lang] + store_rows(stores, lang, weight, held))


def cascade_pairs(rows, lin_probs, stores, store_weight, folds):
    """lin_probs with each related pair's probabilities blended with those of trees trained without
    its fold (the linear model's folds: fold_of by helper set), per language."""
    out = list(lin_probs)
    for lang in ("en", "zh"):
        for k in sorted(set(folds.values())):
            held = [i for i, row in enumerate(rows)
                    if row[2] == lang and folds[row[3]["group"]] == k and related(lin_probs[i])]
            if not held:
                continue
            model = fit_language([r for r in rows if folds[r[3]["group"]] != k], stores, lang, store_weight)
            for i, probs in zip(held, predict(model, [rows[i][0] for i in held])):
                out[i] = blend(probs, lin_probs[i])
    return out


def cascade_stores(rows, stores, lin_judged, store_weight, folds=3):
    """lin_judged ({lang: [(new label, [(probs, signals)])]} in cross_validated_stores' order) with
    each related candidate's probabilities blended with those of trees trained without its project's
    fold."""
    projects = sorted(set(p for p, _l, _n, _j in stores))
    out = {}
    for lang in ("en", "zh"):
        pos, judged = 0, []
        for k in range(folds):
            held = set(projects[k::folds])
            model = fit_language(rows, stores, lang, store_weight, held)
            for p, l, _n, candidates in stores:
                if l != lang or p not in held:
                    continue
                new_label, lin = lin_judged[lang][pos]
                pos += 1
                trees = predict(model, [x for x, _s, _label, f in candidates if f])
                judged.append((new_label, [(blend(t, p) if related(p) else p, s) for (p, s), t in zip(lin, trees)]))
        out[lang] = judged
    return out


def export(model):
    """(names, arrays) of a booster in pair_trees.bin's layout, names without the "lang|" prefix."""
    booster, vocab = model
    columns = sorted(vocab, key=vocab.get)
    dumped = booster.dump_model()
    used, arrays = {}, {"feature": [], "threshold": [], "left": [], "right": [], "leaf": [], "roots": []}

    def emit(node):
        if "split_index" not in node:
            arrays["leaf"].append(node["leaf_value"])
            return ~(len(arrays["leaf"]) - 1)
        if node["decision_type"] != "<=" or node["missing_type"] != "None":
            raise ValueError("a split the walk does not know: %s %s" % (node["decision_type"], node["missing_type"]))
        k = len(arrays["feature"])
        name = columns[node["split_feature"]].split("|", 1)[1]
        arrays["feature"].append(used.setdefault(name, len(used)))
        arrays["threshold"].append(node["threshold"])
        arrays["left"].append(0)
        arrays["right"].append(0)
        arrays["left"][k] = emit(node["left_child"])
        arrays["right"][k] = emit(node["right_child"])
        return k

    if dumped["num_tree_per_iteration"] != len(judgement.LABELS):
        raise ValueError("one tree per label and round expected")
    for tree in dumped["tree_info"]:
        arrays["roots"].append(emit(tree["tree_structure"]))
    return sorted(used, key=used.get), arrays


def serialise(models, checks):
    """The bytes of data/pair_trees.bin: models {lang: (booster, vocab)}; checks {lang: [features]}
    whose LightGBM raw scores go into the header (evals/test_judgement.py walks them)."""
    import lightgbm
    header = {"about": "trees of pair_trees.py (LightGBM %s); trained by evals/tools/train_pair_model.py"
                       % lightgbm.__version__,
              "cut": CUT, "blend": BLEND, "labels": list(judgement.LABELS), "params": dict(PARAMS, rounds=ROUNDS), "langs": {}}
    body = []
    for lang in sorted(models):
        names, arrays = export(models[lang])
        rows = checks[lang][:CHECK_ROWS]
        header["langs"][lang] = {
            "names": names, "nodes": len(arrays["feature"]), "leaves": len(arrays["leaf"]),
            "trees": len(arrays["roots"]),
            "check": [[dict((k.split("|", 1)[1], v) for k, v in x.items() if k.split("|", 1)[1] in names), raw]
                      for x, raw in zip(rows, predict(models[lang], rows, raw=True))]}
        packed = pair_trees.pack(arrays)
        header["langs"][lang]["crc32"] = binascii.crc32(packed)
        body.append(packed)
    return (json.dumps(header, sort_keys=True) + "\n").encode("utf-8") + b"".join(body)
