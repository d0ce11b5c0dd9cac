# functools: partial, partialmethod, wraps, reduce, lru_cache, cached_property, singledispatch.
import functools
from functools import partial, partialmethod, wraps, reduce, lru_cache, cache, cached_property, singledispatch


def power(base, exp=2, *, mod=None):
    r = base ** exp
    return r if mod is None else r % mod


square = partial(power, exp=2)
cube = partial(power, exp=3)
reveal(square(5))                      # => 25
reveal(cube(2))                        # => 8
reveal(partial(power, 3)(exp=3))       # => 27
nested = partial(partial(power, 2), mod=5)
reveal(nested(4))                      # => 1
reveal(nested.func is power)           # => True
reveal(nested.args[0])                 # => 2
reveal(nested.keywords["mod"])         # => 5


class Cell:
    def __init__(self):
        self.state = "off"

    def set_state(self, state, note=""):
        self.state = state + note
        return self

    set_on = partialmethod(set_state, "on")
    set_off = partialmethod(set_state, "off", note="!")


c = Cell()
reveal(c.set_on().state)               # => "on"
reveal(c.set_off().state)              # => "off!"


def logged(fn):
    @wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@logged
def add(a, b):
    "Add two numbers."
    return a + b


reveal(add(2, 3))                      # => 5
reveal(add.__name__)                   # => "add"
reveal(add.__qualname__)               # => "add"
reveal(add.__doc__)                    # => "Add two numbers."
reveal(add.__wrapped__(1, 1))          # => 2


def plain(x):
    return x


def shim(*a):
    return plain(*a)


shim.tag = "t"
plain.tag = "p"
reveal(functools.update_wrapper(shim, plain) is shim)  # => True
reveal(shim.__name__)                  # => "plain"
reveal(shim.tag)                       # => "p"
reveal(shim.__doc__)                   # => None

reveal(reduce(lambda x, y: x * y, [1, 2, 3, 4]))      # => 24
reveal(reduce(lambda x, y: x + y, [], 10))           # => 10
reveal(functools.reduce(lambda acc, s: acc + s, ["a", "b"], ">"))  # => ">ab"


@lru_cache
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


@lru_cache(maxsize=None)
def twice(x):
    return 2 * x


@functools.lru_cache(32)
def thrice(x):
    return 3 * x


@cache
def ident(x):
    return x


reveal(fib(1))                         # => 1
reveal(twice(4))                       # => 8
reveal(thrice(4))                      # => 12
reveal(ident("k"))                     # => "k"
reveal(twice.__name__)                 # => "twice"
reveal(twice.cache_clear())            # => None


class Circle:
    def __init__(self, r):
        self.r = r
        self.computed = 0

    @cached_property
    def area(self):
        self.computed += 1
        return self.r * self.r * 3


ci = Circle(2)
reveal(ci.area)                        # => 12
ci.r = 10
reveal(ci.area)                        # => 12
reveal(ci.computed)                    # => 1


@singledispatch
def kind(x):
    return "object"


@kind.register
def _(x: int):
    return "int"


@kind.register(str)
def _(x):
    return "str"


def for_list(x):
    return "list"


kind.register(list, for_list)


class Base:
    pass


class Derived(Base):
    pass


@kind.register
def _(x: Base):
    return "base"


reveal(kind(1))                        # => "int"
reveal(kind(True))                     # => "int"
reveal(kind("s"))                      # => "str"
reveal(kind([1]))                      # => "list"
reveal(kind(2.5))                      # => "object"
reveal(kind(Derived()))                # => "base"
reveal(kind.dispatch(str)("x"))        # => "str"
reveal(kind.__name__)                  # => "kind"


def choose(flag):
    return kind(1 if flag else "s")


import os
reveal(choose(os.environ["X"]))    # => "int" | "str"
reveal(kind(os.environ["Y"]))      # => "base" | "int" | "list" | "object" | "str"
