"""The trees that judge again the pairs the linear pair model rates related (pair_trees.py), and their
export from LightGBM (evals/tools/tree_model.py)."""
import binascii
import json
import random
import sys
import unittest

import _support
from memory_core import facts, judgement, pair_trees

SHIPPED = _support.REPO / "scripts" / "memory_core" / "data" / "pair_trees.bin"


def _tiny(leaves=(0.5, -0.5, 0.0), cut=0.3, split=None, blend=1.0):
    """The bytes of a pair_trees.bin with one stump or leaf per label, English only."""
    if split is None:  # three one-leaf trees
        arrays = {"feature": [], "threshold": [], "left": [], "right": [], "leaf": list(leaves), "roots": [-1, -2, -3]}
    else:  # tree 0 splits on x at split: left leaf 0, right leaf 3
        arrays = {"feature": [0], "threshold": [split], "left": [-1], "right": [-4],
                  "leaf": list(leaves) + [2.0], "roots": [0, -2, -3]}
    body = pair_trees.pack(arrays)
    header = {"cut": cut, "blend": blend, "labels": list(judgement.LABELS), "langs": {"en": {
        "names": ["x"], "nodes": len(arrays["feature"]), "leaves": len(arrays["leaf"]), "trees": 3,
        "crc32": binascii.crc32(body)}}}
    return (json.dumps(header) + "\n").encode("utf-8") + body


def _check(trees):
    """Every index in range and every child after its parent, so a walk stays in its arrays and ends
    (the load trusts the file's CRC-32; the trainer's export is checked so here)."""
    nodes, leaves = len(trees["feature"]), len(trees["leaf"])
    for name in ("left", "right", "roots"):
        for k, child in enumerate(trees[name]):
            if not -leaves <= child < nodes or (name != "roots" and 0 <= child <= k):
                raise ValueError("%s[%d] is out of range" % (name, k))
    if any(not 0 <= f < len(trees["names"]) for f in trees["feature"]):
        raise ValueError("a split feature is out of range")


class ShippedTreesTest(unittest.TestCase):
    def test_the_walk_gives_lightgbms_scores(self):
        # the header holds rows the trainer scored with LightGBM itself; the pure-Python walk of the
        # exported arrays must give the same raw scores
        blob = SHIPPED.read_bytes()
        model = pair_trees.parse(blob)
        header = json.loads(blob[:blob.index(b"\n")].decode("utf-8"))
        self.assertEqual(sorted(model["langs"]), ["en", "zh"])
        for lang, meta in header["langs"].items():
            _check(pair_trees.trees(model, lang))  # every index in range, every walk ends
            self.assertTrue(meta["check"])
            for features, raw in meta["check"]:
                got = pair_trees.scores(features, pair_trees.trees(model, lang), model["labels"])
                for mine, theirs in zip(got, raw):
                    self.assertAlmostEqual(mine, theirs, places=9)

    def test_judge_uses_the_trees_on_a_related_pair(self):
        a = facts.parse("The request timeout is 500 ms, set in app/config.py")
        b = facts.parse("Requests now time out after 800 ms")
        model = judgement.load()
        features, _signals = judgement.analyse(a, b)
        linear = judgement.probabilities(features, model, "en")
        self.assertGreaterEqual(1.0 - linear["compatible"], pair_trees.load()["cut"])
        _verdict, probs = judgement.judge(a, b)
        self.assertEqual(probs, pair_trees.refine(features, "en", linear))
        self.assertNotEqual(probs, linear)


class RefineTest(unittest.TestCase):
    def test_only_a_pair_rated_related_is_judged_again(self):
        model = pair_trees.parse(_tiny(cut=0.3))
        unrelated = {"compatible": 0.8, "conflict": 0.1, "paraphrase": 0.1}
        self.assertIs(pair_trees.refine({}, "en", unrelated, model), unrelated)
        related = {"compatible": 0.6, "conflict": 0.3, "paraphrase": 0.1}
        probs = pair_trees.refine({}, "en", related, model)
        self.assertGreater(probs["compatible"], probs["paraphrase"])
        self.assertGreater(probs["paraphrase"], probs["conflict"])
        self.assertAlmostEqual(sum(probs.values()), 1.0)
        self.assertIs(pair_trees.refine({}, "zh", related, model), related)  # no trees for the language
        other = dict(related, duplicate=0.0)  # labels the trees were not trained on
        self.assertIs(pair_trees.refine({}, "en", other, model), other)

    def test_the_trees_probabilities_are_blended_with_the_linear_ones(self):
        related = {"compatible": 0.1, "conflict": 0.8, "paraphrase": 0.1}
        alone = pair_trees.refine({}, "en", related, pair_trees.parse(_tiny(blend=1.0)))
        blended = pair_trees.refine({}, "en", related, pair_trees.parse(_tiny(blend=0.75)))
        for label in judgement.LABELS:
            self.assertAlmostEqual(blended[label], 0.75 * alone[label] + 0.25 * related[label])
        self.assertAlmostEqual(sum(blended.values()), 1.0)

    def test_the_arrays_become_lists_after_a_few_walks_with_the_same_scores(self):
        model = pair_trees.parse(_tiny(split=0.5))
        related = {"compatible": 0.1, "conflict": 0.8, "paraphrase": 0.1}
        seen = [pair_trees.refine({"x": 0.7}, "en", related, model) for _ in range(pair_trees.WALKS_BEFORE_LISTS + 2)]
        self.assertIsInstance(pair_trees.trees(model, "en")["left"], list)
        self.assertEqual(seen[0], seen[-1])
        self.assertGreater(seen[0]["compatible"], 0.5)  # the right leaf (2.0) of tree 0

    def test_a_split_sends_an_absent_feature_as_zero(self):
        model = pair_trees.parse(_tiny(split=0.5))
        trees = pair_trees.trees(model, "en")
        self.assertEqual(pair_trees.scores({}, trees, model["labels"])[0], 0.5)
        self.assertEqual(pair_trees.scores({"x": 0.5}, trees, model["labels"])[0], 0.5)
        self.assertEqual(pair_trees.scores({"x": 0.7}, trees, model["labels"])[0], 2.0)

    def test_without_the_file_the_linear_model_alone_judges(self):
        saved = list(pair_trees._TREES)
        try:
            pair_trees._TREES[:] = [None]
            related = {"compatible": 0.1, "conflict": 0.8, "paraphrase": 0.1}
            self.assertIs(pair_trees.refine({}, "en", related), related)
        finally:
            pair_trees._TREES[:] = saved

    def test_a_damaged_file_is_refused(self):
        good = _tiny(split=0.5)
        pair_trees.parse(good)
        flipped = good[:-5] + bytes([good[-5] ^ 1]) + good[-4:]
        for bad in (good[:-3], good + b"\0", good.split(b"\n")[0], flipped):
            with self.assertRaises(ValueError):
                pair_trees.parse(bad)

    def test_a_damaged_file_leaves_the_linear_probabilities(self):
        good = _tiny(split=0.5)
        end = good.index(b"\n")
        model = pair_trees._model(good[:end], good[:-5] + bytes([good[-5] ^ 1]) + good[-4:], end + 1)
        related = {"compatible": 0.1, "conflict": 0.8, "paraphrase": 0.1}
        self.assertIs(pair_trees.refine({}, "en", related, model), related)
        self.assertIs(pair_trees.refine({"x": 1.0}, "en", related, model), related)

    def test_a_walk_that_could_loop_or_leave_its_arrays_fails_the_check(self):
        trees = pair_trees.trees(pair_trees.parse(_tiny(split=0.5)), "en")
        _check(trees)
        for name, value in (("left", [0]), ("right", [5]), ("feature", [1]), ("roots", [3, -2, -3])):
            with self.assertRaises(ValueError):
                _check(dict(trees, **{name: value}))


class ExportTest(unittest.TestCase):
    def test_the_exported_trees_walk_as_lightgbm_predicts(self):
        try:
            import lightgbm  # noqa: F401
        except (ImportError, OSError) as error:  # OSError: the wheel's libgomp is missing
            self.skipTest("needs lightgbm (requirements.txt; Python >= 3.10): %s" % error)
        sys.path.insert(0, str(_support.REPO / "evals" / "tools"))
        import tree_model
        rng = random.Random(3)
        rows = []
        for _ in range(600):
            x = dict(("en|f%d" % k, round(rng.random(), 3)) for k in range(6) if rng.random() < 0.7)
            score = x.get("en|f0", 0) - x.get("en|f1", 0) + 0.3 * x.get("en|f2", 0)
            label = "conflict" if score > 0.3 else "paraphrase" if score < -0.3 else "compatible"
            rows.append((x, label, 1.0 if rng.random() < 0.8 else 0.25))
        saved = tree_model.ROUNDS
        try:
            tree_model.ROUNDS = 20
            trained = tree_model.fit(rows)
            blob = tree_model.serialise({"en": trained}, {"en": [x for x, _y, _w in rows]})
        finally:
            tree_model.ROUNDS = saved
        model = pair_trees.parse(blob)
        self.assertEqual((model["cut"], model["blend"]), (tree_model.CUT, tree_model.BLEND))
        raw = tree_model.predict(trained, [x for x, _y, _w in rows], raw=True)
        for (x, _y, _w), expected in zip(rows, raw):
            plain = dict((k.split("|", 1)[1], v) for k, v in x.items())
            got = pair_trees.scores(plain, pair_trees.trees(model, "en"), model["labels"])
            for mine, theirs in zip(got, expected):
                self.assertAlmostEqual(mine, theirs, places=9)


if __name__ == "__main__":
    unittest.main()
