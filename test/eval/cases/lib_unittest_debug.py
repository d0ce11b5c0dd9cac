# unittest run by the program itself: `TestCase("test_x")` names the method,
# `.debug()` runs setUp, it and tearDown and lets what they raise through,
# `.run()` (and calling the test) runs the same steps and catches it.
import contextlib
import unittest

log = []


class Steps(unittest.TestCase):

    def setUp(self):
        self._stack = contextlib.ExitStack()
        self.mode = self._stack.enter_context(contextlib.nullcontext("entered"))
        log.append("setUp")

    def test_mode(self):
        log.append("test_mode")
        reveal(self.mode)                            # => "entered"

    def test_fails(self):
        log.append("test_fails")
        raise ValueError("broken")

    def tearDown(self):
        log.append("tearDown")


Steps("test_mode").debug()
reveal(" ".join(log))                                # => "setUp test_mode tearDown"

Steps("test_fails").run()
reveal(" ".join(log[3:]))                            # => "setUp test_fails tearDown"

try:
    Steps("test_fails").debug()
    reveal("not reached")
except ValueError as e:
    reveal(isinstance(e, ValueError))                # => True
reveal(log[-1])                                      # => "test_fails"
