"""Near-duplicate scoring: the pure-Python path must give rapidfuzz's numbers exactly."""
import random
import unittest

import _support  # noqa: F401  (puts scripts/ on sys.path)
from memory_core import similarity
from memory_core.similarity import compare, near_candidates, normalize, ratio

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


class CandidatesTest(unittest.TestCase):
    def facts(self, n):
        rng = random.Random(n)
        words = "queue cache build deploy index table worker token branch review lint format".split()
        return [normalize(" ".join(rng.sample(words, 6)) + " %d" % i) for i in range(n)]

    def test_pure_and_rapidfuzz_paths_agree(self):
        choices = self.facts(1000)
        query = choices[500][:-1] + "x"
        old = similarity.PURE_PYTHON_LIMIT
        try:
            similarity.PURE_PYTHON_LIMIT = 10 ** 9
            pure = near_candidates(query, choices, limit=50)
            similarity.PURE_PYTHON_LIMIT = 0
            fast = near_candidates(query, choices, limit=50)
        finally:
            similarity.PURE_PYTHON_LIMIT = old
        self.assertEqual(sorted(pure), sorted(fast))
        self.assertIn(500, pure)

    def test_negation_flip_is_a_candidate_both_ways(self):
        choices = [normalize("We never use tabs for indentation"), normalize("Builds run nightly")]
        self.assertEqual(near_candidates(normalize("We use tabs for indentation"), choices), [0])
        choices = [normalize("We use tabs for indentation")]
        self.assertEqual(near_candidates(normalize("We don't use tabs for indentation"), choices), [0])

    def test_compare_verdicts(self):
        n = normalize
        self.assertEqual(compare(n("This project uses pnpm."), n("this project uses pnpm")), "duplicate")
        self.assertEqual(compare(n("The API timeout is 500ms"), n("The API timeout is 900ms")), "conflict")
        self.assertEqual(compare(n("The frontend uses pnpm"), n("The frontend uses npm")), "conflict")
        self.assertEqual(compare(n("Use tabs"), n("Never use tabs")), "conflict")
        self.assertIsNone(compare(n("Deploys go through staging"), n("Lint runs before commit")))


if __name__ == "__main__":
    unittest.main()
