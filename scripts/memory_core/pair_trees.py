"""Gradient-boosted trees that judge again the pairs the linear pair model finds related.

The linear model (judgement.probabilities) is fast and sees every candidate pair; where it rates a
pair related (1 - P(compatible) >= the file's "cut"), these trees, trained by
evals/tools/train_pair_model.py with LightGBM on the same features and data, give most of the
probabilities (the file's "blend" of theirs, the rest the linear model's): they see the interactions
of the dense features (a value that differs in a fact written as a setting, ...) that one weight per
feature cannot. Inference is a deterministic pure-Python walk.

data/pair_trees.bin is a JSON header line and then, per language in the header's sorted order, six
little-endian arrays: the split feature of each node (int32, an index into the language's "names"),
its threshold (float64; x <= threshold goes left, an absent feature is 0), its left and right child
(int32; a negative child c is leaf ~c), the leaf values (float64) and each tree's root (int32).
Tree k adds its leaf to the score of label k % len(labels), as LightGBM's multiclass model does.
"""
import os
import sys

_TREES = []
# (array, struct code, the header count of its items) in the file's order; the trainer writes with pack()
LAYOUT = (("feature", "i", "nodes"), ("threshold", "d", "nodes"), ("left", "i", "nodes"),
          ("right", "i", "nodes"), ("leaf", "d", "leaves"), ("roots", "i", "trees"))


def load():
    """The shipped trees, once per process, or None (then the linear model alone judges). The file is
    mapped, and a language's arrays are read when a pair of that language first needs them."""
    if not _TREES:
        from .sortedlines import map_file
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "pair_trees.bin")
        try:
            _TREES.append(_model(*map_file(path)))
        except (OSError, ValueError, KeyError, TypeError):
            _TREES.append(None)
    return _TREES[0]


def parse(blob):
    """The model of a pair_trees.bin's bytes, every language read (ValueError when damaged)."""
    end = blob.index(b"\n")
    model = _model(blob[:end], blob, end + 1)
    for lang in model["langs"]:
        trees(model, lang)
    return model


def _model(head, blob, start):
    """The model of a header line and the blob whose arrays start at start (none read yet)."""
    from .fastjson import loads
    header = loads(head.decode("utf-8"))
    langs, pos = {}, start
    for lang in sorted(header["langs"]):
        meta = dict(header["langs"][lang], start=pos)
        pos += sum((8 if code == "d" else 4) * int(meta[count]) for _name, code, count in LAYOUT)
        meta["end"] = pos
        langs[lang] = meta
    if pos != len(blob):
        raise ValueError("the arrays do not fill the file as its header says")
    return {"cut": float(header["cut"]), "blend": float(header["blend"]), "labels": tuple(header["labels"]),
            "blob": blob, "langs": langs, "read": {}}


def trees(model, lang):
    """{"names", "feature", "threshold", "left", "right", "leaf", "roots"} of lang, read once; the
    bytes must have the CRC-32 the trainer wrote (ValueError: a damaged file)."""
    if lang not in model["read"]:
        import array  # 2 ms to load its extension: only once a pair is walked
        import binascii
        meta = model["langs"][lang]
        body = model["blob"][meta["start"]:meta["end"]]
        if binascii.crc32(body) != meta["crc32"]:
            raise ValueError("the %s trees do not match their checksum" % lang)
        out, pos = {"names": list(meta["names"])}, 0
        for name, code, count in LAYOUT:
            values = array.array(code)
            if values.itemsize != (8 if code == "d" else 4):
                raise ValueError("this platform's array item sizes differ from the file's")
            size = values.itemsize * int(meta[count])
            values.frombytes(body[pos:pos + size])
            if sys.byteorder == "big":
                values.byteswap()
            out[name] = values
            pos += size
        out["walks"] = 0
        model["read"][lang] = out
    return model["read"][lang]


# A language's arrays are read in about 4 ms and made into lists in about 6 ms more, but a list is
# walked in half the time (0.8 ms a pair against 1.5 ms): record judges a pair or two, review many.
WALKS_BEFORE_LISTS = 6


def scores(features, trees_, labels):
    """One raw score per label: the sum of the leaves features reach, tree k scoring label k % len."""
    values = [features.get(name, 0.0) for name in trees_["names"]]
    feature, threshold, left, right, leaf = (trees_["feature"], trees_["threshold"], trees_["left"],
                                             trees_["right"], trees_["leaf"])
    out = [0.0] * len(labels)
    for k, node in enumerate(trees_["roots"]):
        while node >= 0:
            node = left[node] if values[feature[node]] <= threshold[node] else right[node]
        out[k % len(labels)] += leaf[~node]
    return out


def refine(features, lang, probs, model=None):
    """probs, or where probs rate the pair related (see the module) the trees' probabilities blended
    with them. A damaged file leaves the linear probabilities (and the trees unused for the process)."""
    model = model or load()
    if (model is None or not related(probs, model["cut"]) or lang not in model["langs"]
            or set(model["labels"]) != set(probs)):
        return probs
    try:
        walked = trees(model, lang)
    except ValueError:
        model["langs"].pop(lang)
        return probs
    raw = scores(features, walked, model["labels"])
    walked["walks"] += 1
    if walked["walks"] == WALKS_BEFORE_LISTS:
        for name, _code, _count in LAYOUT:
            walked[name] = walked[name].tolist()
    from .judgement import softmax
    return blend(dict(zip(model["labels"], softmax(raw))), probs, model["blend"])


def pack(arrays):
    """The little-endian bytes of one language's arrays ({name: list}) in LAYOUT's order: the
    trainer's writer, kept beside the reader."""
    import struct
    return b"".join(struct.pack("<%d%s" % (len(arrays[name]), code), *arrays[name]) for name, code, _count in LAYOUT)


def related(probs, cut):
    """Whether the linear model's probabilities rate a pair related enough for the trees."""
    return 1.0 - probs["compatible"] >= cut


def blend(trees, linear, share):
    """share of the trees' probabilities, the rest the linear model's (the trainer mixes them so too)."""
    return dict((label, share * trees[label] + (1.0 - share) * linear[label]) for label in linear)
