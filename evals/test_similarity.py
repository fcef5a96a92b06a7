"""Near-duplicate scoring: the pure-Python path must give rapidfuzz's numbers exactly."""
import random
import unittest

import _support  # noqa: F401 (puts scripts/ on sys.path)
from memory_core import similarity
from memory_core.similarity import compare, normalize, ratio

try:
    from rapidfuzz import fuzz
except ImportError:
    fuzz = None

try:
    from hypothesis import given, settings, strategies as hs
except ImportError:
    given = None


class RatioTest(unittest.TestCase):
    def test_known_values(self):
        self.assertEqual(ratio("", ""), 100.0)
        self.assertEqual(ratio("abc", ""), 0.0)
        self.assertEqual(ratio("abc", "abc"), 100.0)
        self.assertAlmostEqual(ratio("kitten", "sitting"), 200.0 * 4 / 13)
        self.assertEqual(similarity.lcs_length("ABCBDAB", "BDCABA"), 4)

    @unittest.skipIf(fuzz is None, "rapidfuzz not installed")
    def test_equals_rapidfuzz_on_random_texts(self):
        rng = random.Random(7)
        alphabet = "abcde fgh中文é"
        for _ in range(3000):
            a = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 90)))
            b = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 90)))
            self.assertAlmostEqual(ratio(a, b), fuzz.ratio(a, b), places=6, msg=(a, b))

    if given is not None and fuzz is not None:
        @settings(max_examples=300, deadline=None)
        @given(a=hs.text(max_size=200), b=hs.text(max_size=200))
        def test_property_equals_rapidfuzz(self, a, b):
            self.assertAlmostEqual(ratio(a, b), fuzz.ratio(a, b), places=6)
    else:
        def test_property_equals_rapidfuzz(self):
            self.skipTest("needs hypothesis and rapidfuzz (requirements.txt) for this property test")


class SameWordsTest(unittest.TestCase):
    """record's wording check (recording._same_words): the same words, or the same but for a negation."""

    def item(self, text, status="active"):
        return {"id": text[:8], "fact": text, "status": status}

    def test_negation_flip_is_a_conflict_both_ways(self):
        from memory_core.recording import _same_words
        stored = [self.item("We never use tabs for indentation"), self.item("Builds run nightly")]
        self.assertEqual(_same_words("We use tabs for indentation", stored), (None, [stored[0]]))
        stored = [self.item("We use tabs for indentation")]
        self.assertEqual(_same_words("We don't use tabs for indentation", stored), (None, [stored[0]]))

    def test_same_words_duplicate_and_alike_wording_left_to_the_judgement(self):
        from memory_core.recording import _same_words
        stored = [self.item("Deploys go through staging."), self.item("Free tier: 1,000 API calls per day"),
                  self.item("deploys go through staging", status="superseded")]
        self.assertEqual(_same_words("deploys go through STAGING!", stored), (stored[0], []))
        self.assertEqual(_same_words("Pro tier: 100,000 API calls per day", stored), (None, []))

    def test_compare_verdicts(self):
        n = normalize
        self.assertEqual(compare(n("This project uses pnpm."), n("this project uses pnpm")), "duplicate")
        self.assertEqual(compare(n("The API timeout is 500ms"), n("The API timeout is 900ms")), "conflict")
        self.assertEqual(compare(n("The frontend uses pnpm"), n("The frontend uses npm")), "conflict")
        self.assertEqual(compare(n("Use tabs"), n("Never use tabs")), "conflict")
        self.assertIsNone(compare(n("Deploys go through staging"), n("Lint runs before commit")))


if __name__ == "__main__":
    unittest.main()


class LightNormalizeTest(unittest.TestCase):
    def test_the_light_normalisation_equals_the_expressions(self):
        import random
        from memory_core import similarity
        rng = random.Random(11)
        alphabet = "ab Z_.'-9\u0663\uff11中é\u00b2\u2168İ\n\t!'."
        texts = ["don't x.y.z a..b 'a' a'. .5 v1.2 _a_ ﬁ Ⅸ ² İ", "生产 环境.部署's"]
        texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(3000)]
        for text in texts:
            self.assertEqual(similarity.normalize(text, light=True), similarity.normalize(text), repr(text))


class FastJsonTest(unittest.TestCase):
    """memory_core.fastjson must agree with the json module (the hooks' hot path uses it)."""

    def test_round_trips_agree_with_json(self):
        import json
        from memory_core import fastjson
        samples = ['{"a": [1, 2.5, -3e-7, "x\\u00e9\\n", null, true, false, {"b": {}}], "c": ""}',
                   '  [ ]  ', '"\\ud83d\\ude00"', '{"deep": ' * 50 + "1" + "}" * 50, "12", "NaN"]
        for text in samples:
            self.assertEqual(repr(fastjson.loads(text)), repr(json.loads(text)), text)
        for bad in ("", "{", '{"a": 1} x', "[1,]", "{'a': 1}", '"\\x"', '"a\nb"'):
            with self.assertRaises(ValueError, msg=bad):
                fastjson.loads(bad)
        value = {"z": [1, 2.5, "é\t\"", None, True, [], {}, [[{"q": []}]]], "a": {"k": False}, "n": -7}
        self.assertEqual(fastjson.dumps(value), json.dumps(value, ensure_ascii=False, sort_keys=True))
        for indent in (0, 2, 4):
            self.assertEqual(fastjson.dumps(value, indent=indent),
                             json.dumps(value, ensure_ascii=False, sort_keys=True, indent=indent))

    if given is not None:
        @settings(max_examples=200, deadline=None)
        @given(value=hs.recursive(hs.none() | hs.booleans() | hs.integers() | hs.text() |
                                  hs.floats(allow_nan=False, allow_infinity=False),
                                  lambda children: hs.lists(children) | hs.dictionaries(hs.text(), children),
                                  max_leaves=20))
        def test_property_agrees_with_json(self, value):
            import json
            from memory_core import fastjson
            text = json.dumps(value, ensure_ascii=False, sort_keys=True)
            self.assertEqual(fastjson.dumps(value), text)
            self.assertEqual(fastjson.dumps(value, indent=2), json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2))
            self.assertEqual(fastjson.loads(text), json.loads(text))
    else:
        def test_property_agrees_with_json(self):
            self.skipTest("needs hypothesis (requirements.txt) for this property test")
