# Library objects through branches the evaluator cannot decide: each way
# runs, and the values join.
import os
from collections import namedtuple
from dataclasses import dataclass, field
from enum import Enum

flag = os.environ["PALLAS_EVAL_TEST_FLAG"]  # unset here: unknown


@dataclass
class P:
    x: int
    y: list = field(default_factory=list)


p = P(1 if flag else 2)
reveal(p.x)                            # => 1 | 2


class Color(Enum):
    R = 1
    G = 2


col = Color(1 if flag else 2)
reveal(col.name)                       # => "G" | "R"
d = {Color.R: "r", Color.G: "g"}
reveal(d[col])                         # => "g" | "r"
reveal(Color(*[int(v) for v in os.environ["X"]]).value)  # => 1 | 2

Pt = namedtuple("Pt", "a b")
pt = Pt(1, 2) if flag else Pt(3, 4)
reveal(pt.a)                           # => 1 | 3
reveal(pt[1])                          # => 2 | 4
first, second = pt
reveal(first)                          # => 1 | 2 | 3 | 4


def make(*args, **kw):
    return P(*args, **kw)


reveal(make(5).x)                      # => 5
