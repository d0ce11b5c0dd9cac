# dataclasses: @dataclass with and without arguments, field(), InitVar /
# ClassVar / KW_ONLY, __post_init__, inheritance, replace, asdict, astuple, fields.
import dataclasses
from dataclasses import dataclass, field, replace, asdict, astuple, fields, InitVar, KW_ONLY, is_dataclass
from typing import ClassVar


@dataclass
class Point:
    x: int
    y: int = 0
    tags: list = field(default_factory=list)
    count: ClassVar[int] = 7


p = Point(1)
reveal(p.x)                            # => 1
reveal(p.y)                            # => 0
reveal(len(p.tags))                    # => 0
reveal(Point(1, 2).y)                  # => 2
reveal(Point(y=5, x=3).x)              # => 3
reveal(Point.count)                    # => 7
reveal(Point.y)                        # => 0
reveal(len(fields(p)))                 # => 3
reveal(fields(Point)[1].name)          # => "y"
reveal(fields(Point)[0].default is dataclasses.MISSING)  # => True
reveal(Point(1).tags is Point(1).tags)  # => False
reveal(Point(1, 2) == Point(1, 2))     # => True
reveal(Point(1, 2) == Point(1, 3))     # => False
reveal(is_dataclass(p))                # => True
reveal(is_dataclass(Point))            # => True
reveal(is_dataclass(3))                # => False
reveal(Point.__match_args__)           # => a tuple

q = replace(p, y=9)
reveal(q.y)                            # => 9
reveal(q.x)                            # => 1
reveal(q is p)                         # => False
reveal(asdict(Point(1, 2))["y"])       # => 2
reveal(astuple(Point(4, 5))[0])        # => 4


@dataclass(frozen=True)
class Frozen:
    a: int
    b: str = "b"


fr = Frozen(1)
reveal(fr.a)                           # => 1
reveal(fr.b)                           # => "b"


@dataclass(kw_only=True)
class Options:
    debug: bool
    level: int = 2


reveal(Options(debug=True).level)      # => 2
reveal(Options(level=5, debug=False).debug)  # => False


@dataclass
class Mixed:
    a: int
    _: KW_ONLY
    b: int = 3
    c: int = 4


reveal(Mixed(1, c=9).c)                # => 9
reveal(Mixed(1).b)                     # => 3


@dataclass
class Scaled:
    a: int
    scale: InitVar[int] = 2
    hidden: int = field(init=False, default=-1)

    def __post_init__(self, scale):
        self.b = self.a * scale


reveal(Scaled(3).b)                    # => 6
reveal(Scaled(3, 10).b)                # => 30
reveal(Scaled(3).hidden)               # => -1
reveal(len(fields(Scaled)))            # => 2
reveal(replace(Scaled(1, 5), a=4).b)   # => 8


@dataclass
class Point3(Point):
    z: int = 5


p3 = Point3(1, 2, [], 6)
reveal(p3.z)                           # => 6
reveal(p3.y)                           # => 2
reveal(Point3(0).z)                    # => 5
reveal([f.name for f in fields(p3)][3])  # => "z"


@dataclass()
class Empty:
    pass


reveal(isinstance(Empty(), Empty))     # => True


class Plain(Point):
    def norm(self):
        return self.x + self.y


reveal(Plain(2, 3).norm())             # => 5


@dataclass
class Custom:
    v: int

    def __init__(self, raw):
        self.v = raw * 10


reveal(Custom(2).v)                    # => 20


@dataclass
class Nested:
    p: Point
    items: list


n = Nested(Point(1, 2), [Point(3, 4)])
d = asdict(n)
reveal(d["p"]["x"])                    # => 1
reveal(d["items"][0]["y"])             # => 4
reveal(astuple(n)[0][1])               # => 2
