#!/usr/bin/env python3
"""scripts/stats.py against the cases of tests/stats/estimate_test.cpp: the
Python estimate and compare must give what the C++ --repeat estimates give.

  python3 tests/scripts/stats_test.py [--scripts DIR] [unittest args]
"""

import argparse
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(add_help=False)
ap.add_argument("--scripts", default=os.path.join(HERE, "..", "..", "scripts"))
ap.add_argument("--data", default=None)
OPTS, REST = ap.parse_known_args()
sys.path.insert(0, OPTS.scripts)
import stats  # noqa: E402


class EstimateTest(unittest.TestCase):
    def test_one_sample_its_value_no_interval(self):
        e = stats.estimate([42])
        self.assertEqual((e["n"], e["median"], e["low"], e["high"]), (1, 42, 42, 42))
        self.assertEqual(e["confidence"], 0)
        self.assertEqual(stats.half_width_pct(e), 0)

    def test_no_samples_all_zero(self):
        e = stats.estimate([])
        self.assertEqual((e["n"], e["median"]), (0, 0))
        self.assertIsNone(stats.spread(e))

    def test_even_count_median_in_any_order(self):
        e = stats.estimate([4, 1, 3, 2])
        self.assertEqual((e["median"], e["min"], e["max"]), (2.5, 1, 4))

    def test_below_six_min_max_with_lower_coverage(self):
        e = stats.estimate([100, 104, 98, 101, 97])
        self.assertEqual((e["median"], e["low"], e["high"]), (100, 97, 104))
        self.assertAlmostEqual(e["confidence"], 0.9375)
        self.assertAlmostEqual(stats.half_width_pct(e), 3.5)
        self.assertAlmostEqual(stats.spread(e), 0.07)
        self.assertAlmostEqual(stats.estimate([1, 2, 3])["confidence"], 0.75)

    def test_more_samples_inner_order_statistics(self):
        e = stats.estimate(range(1, 18))
        self.assertEqual((e["median"], e["low"], e["high"]), (9, 5, 13))
        self.assertAlmostEqual(e["confidence"], 0.9510, places=3)
        self.assertGreaterEqual(e["confidence"], 0.95)
        six = stats.estimate([1, 2, 3, 4, 5, 6])
        self.assertEqual(six["low"], 1)
        self.assertAlmostEqual(six["confidence"], 0.96875)

    def test_difference_named_only_when_intervals_apart(self):
        a = stats.estimate([100, 101, 102, 103, 104])
        b = stats.estimate([110, 111, 112, 113, 114])
        c = stats.estimate([103, 105, 107, 109, 111])
        self.assertEqual(stats.compare(b, a), stats.HIGHER)
        self.assertEqual(stats.compare(a, b), stats.LOWER)
        self.assertEqual(stats.compare(a, c), stats.WITHIN_NOISE)
        self.assertEqual(stats.compare(stats.estimate([500]), a), stats.ONE_SAMPLE)
        self.assertEqual(stats.WITHIN_NOISE, "within noise")
        self.assertEqual(stats.ONE_SAMPLE, "one sample")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *REST])
