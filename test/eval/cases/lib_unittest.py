# entries
# unittest, absltest, parameterized: test methods run as entry points after
# setUp; skipTest ends a test; parameterized tests run once per parameter set.
import contextlib
import sys
import unittest

from absl.testing import absltest
from absl.testing import parameterized


class Basic(unittest.TestCase):

    def setUp(self):
        self.value = 41

    def test_value(self):
        reveal(self.value + 1)                         # => 42  (may)
        reveal(self.assertEqual(self.value, 41))       # => None  (may)
        reveal(self.assertTrue(True, msg="ok"))        # => None  (may)

    def test_skip(self):
        self.skipTest("not today")
        reveal("after skipTest")

    def test_raises(self):
        with self.assertRaises(ValueError) as ctx:
            raise ValueError("x")
        reveal(isinstance(ctx.exception, ValueError))  # => True  (may)

        def boom():
            raise KeyError("k")

        self.assertRaises(KeyError, boom)
        reveal("continued")                            # => "continued"  (may)

    def test_subtests(self):
        for i in range(2):
            with self.subTest(i=i):
                reveal(i)                              # => 0  (may) ;; 1  (may)

    @unittest.skip("broken")
    def test_skipped(self):
        reveal("skipped body")

    @unittest.skipIf(sys.platform == "linux", "not on linux")
    def test_skip_if(self):
        reveal("skip_if body")

    @unittest.skipUnless(sys.platform == "linux", "linux only")
    def test_linux_only(self):
        reveal(sys.platform)                           # => "linux"  (may)


class SkippedInSetUp(absltest.TestCase):

    def setUp(self):
        super().setUp()
        self.skipTest("no accelerator")

    def test_never_runs(self):
        reveal("never")


class Params(parameterized.TestCase):

    def setUp(self):
        super().setUp()
        self.offset = 100

    @parameterized.parameters((1, 2), (3, 4))
    def test_add(self, a, b):
        reveal(a + b)                                  # => 3  (may) ;; 7  (may)

    @parameterized.parameters([5, 6])
    def test_single(self, n):
        reveal(n + self.offset)                        # => 105  (may) ;; 106  (may)

    @parameterized.parameters({"x": 1}, {"x": 2})
    def test_dicts(self, x):
        reveal(x)                                      # => 1  (may) ;; 2  (may)

    @parameterized.named_parameters(("small", 8), dict(testcase_name="big", n=128))
    def test_named(self, n):
        reveal(n)                                      # => 8  (may) ;; 128  (may)

    @parameterized.product(block=[8, 16], interpret=[True, False])
    def test_product(self, block, interpret):
        reveal(block)                                  # => 8  (may) ;; 8  (may) ;; 16  (may) ;; 16  (may)
        reveal(interpret)                              # => True  (may) ;; False  (may) ;; True  (may) ;; False  (may)

    def test_enter_context(self):
        v = self.enter_context(contextlib.nullcontext(5))
        reveal(v)                                      # => 5  (may)
