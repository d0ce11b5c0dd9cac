# contextlib: @contextmanager (with, and as a decorator), ExitStack,
# nullcontext, suppress, closing.
import contextlib
from contextlib import ExitStack, contextmanager, nullcontext, suppress

log = []

@contextmanager
def mode(name):
    log.append("enter " + name)
    yield name.upper()
    log.append("exit " + name)

with mode("a") as m:
    reveal(m)                          # => "A"
    reveal(log[-1])                    # => "enter a"
reveal(log[-1])                        # => "exit a"

class Config:
    interpret = False

@contextmanager
def interpret_mode():
    old = Config.interpret
    Config.interpret = True
    try:
        yield
    finally:
        Config.interpret = old

with interpret_mode() as nothing:
    reveal(nothing)                    # => None
    reveal(Config.interpret)           # => True
reveal(Config.interpret)               # => False

# A @contextmanager object decorating a function: the function runs inside.
@interpret_mode()
def kernel(x):
    return (Config.interpret, x)

reveal(kernel(3)[0])                   # => True
reveal(kernel(3)[1])                   # => 3
reveal(Config.interpret)               # => False

class Holder:
    @contextmanager
    def scoped(self, v):
        self.v = v
        yield self
        self.v = None

h = Holder()
with h.scoped(7) as got:
    reveal(got.v)                      # => 7
reveal(h.v)                            # => None

# Class-based managers entered by an ExitStack exit when the stack does, last first.
class Resource:
    def __init__(self, name):
        self.name = name
        self.open = False
    def __enter__(self):
        self.open = True
        log.append("open " + self.name)
        return self.name
    def __exit__(self, *exc):
        self.open = False
        log.append("close " + self.name)

r1, r2 = Resource("r1"), Resource("r2")
with ExitStack() as stack:
    reveal(stack.enter_context(r1))    # => "r1"
    reveal(stack.enter_context(r2))    # => "r2"
    stack.callback(log.append, "callback")
    reveal(r1.open)                    # => True
    reveal(r2.open)                    # => True
    reveal(stack.enter_context(mode("b")))  # => "B"
reveal(r1.open)                        # => False
reveal(log[-3])                        # => "callback"
reveal(log[-2])                        # => "close r2"
reveal(log[-1])                        # => "close r1"

with nullcontext(5) as five:
    reveal(five)                       # => 5
with nullcontext() as nil:
    reveal(nil)                        # => None

state = "start"
with suppress(ValueError, KeyError):
    state = "body"
    raise ValueError("boom")
    state = "after raise"
reveal(state)                          # => "body"

def not_suppressed():
    with suppress(KeyError):
        raise ValueError("boom")
    return "unreachable"

try:
    not_suppressed()
    outcome = "returned"
except ValueError:
    outcome = "raised"
reveal(outcome)                        # => "raised"

class Thing:
    closed = False
    def close(self):
        self.closed = True

t = Thing()
with contextlib.closing(t) as same:
    reveal(same is t)                  # => True
reveal(t.closed)                       # => True

# A user __exit__ sees the exception and may swallow it.
class Swallow:
    def __enter__(self):
        return self
    def __exit__(self, exc_type, exc, tb):
        self.seen = exc_type
        return True

s = Swallow()
with s:
    raise KeyError("k")
reveal(s.seen)                         # => class KeyError
