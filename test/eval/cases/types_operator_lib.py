# types.SimpleNamespace and operator.
import operator
import types
from operator import attrgetter, itemgetter, methodcaller
from types import SimpleNamespace

ns = SimpleNamespace(a=1, b="two")
reveal(ns.a)                           # => 1
reveal(ns.b)                           # => "two"
ns.c = [3]
reveal(ns.c[0])                        # => 3
ns.a = 10
reveal(ns.a)                           # => 10
reveal(vars(ns)["b"])                  # => "two"
reveal(SimpleNamespace(x=1) == SimpleNamespace(x=1))  # => True
reveal(SimpleNamespace(x=1) == SimpleNamespace(x=2))  # => False
reveal(SimpleNamespace(x=1) == SimpleNamespace(x=1, y=2))  # => False
reveal(types.SimpleNamespace(k="v").k)  # => "v"
reveal(isinstance(ns, SimpleNamespace))  # => True
cfg = SimpleNamespace(**{"depth": 3})
reveal(cfg.depth)                      # => 3

reveal(operator.add(2, 3))             # => 5
reveal(operator.mul("ab", 2))          # => "abab"
reveal(operator.sub(10, 4))            # => 6
reveal(operator.floordiv(7, 2))        # => 3
reveal(operator.eq(1, 1))              # => True
reveal(operator.lt(3, 2))              # => False
reveal(operator.not_([]))              # => True
reveal(operator.truth("x"))            # => True
reveal(operator.neg(5))                # => -5
reveal(operator.contains([1, 2], 2))   # => True
reveal(operator.getitem({"k": 9}, "k"))  # => 9
reveal(operator.is_(None, None))       # => True
reveal(operator.or_(1, 4))             # => 5
reveal(operator.__add__(1, 1))         # => 2

first = itemgetter(0)
pair = itemgetter(2, 0)
reveal(first([7, 8, 9]))               # => 7
reveal(pair("xyz")[0])                 # => "z"
reveal(itemgetter("k")({"k": "v"}))    # => "v"
reveal(sorted([(2, "b"), (1, "a")], key=itemgetter(0))[0][1])  # => "a"


class Node:
    def __init__(self, name, child=None):
        self.name = name
        self.child = child

    def greet(self, greeting, punct="!"):
        return greeting + " " + self.name + punct


tree = Node("root", Node("leaf"))
reveal(attrgetter("name")(tree))       # => "root"
reveal(attrgetter("child.name")(tree))  # => "leaf"
reveal(attrgetter("name", "child.name")(tree)[1])  # => "leaf"
reveal(methodcaller("greet", "hi")(tree))  # => "hi root!"
reveal(methodcaller("greet", "yo", punct="?")(tree))  # => "yo root?"
reveal(methodcaller("upper")("abc"))   # => "ABC"

from functools import reduce
reveal(reduce(operator.add, [1, 2, 3]))  # => 6
reveal(list(map(operator.mul, [1, 2], [3, 4]))[1])  # => 8
