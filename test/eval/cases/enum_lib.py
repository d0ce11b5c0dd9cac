# enum: Enum, IntEnum, StrEnum, Flag, IntFlag, auto, lookup by name and value,
# iteration, aliases, members as dict keys, methods and properties.
import enum
from enum import Enum, IntEnum, StrEnum, Flag, IntFlag, auto


class Color(Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"
    CRIMSON = "red"

    def describe(self):
        return self.name.lower() + "=" + self.value

    @property
    def loud(self):
        return self.value.upper()

    @classmethod
    def default(cls):
        return cls.GREEN


reveal(Color.RED)                      # => an instance of Color
reveal(Color.RED.name)                 # => "RED"
reveal(Color.RED.value)                # => "red"
reveal(Color["GREEN"].value)           # => "green"
reveal(Color("blue").name)             # => "BLUE"
reveal(Color(Color.RED) is Color.RED)  # => True
reveal(Color.CRIMSON is Color.RED)     # => True
reveal(Color.CRIMSON.name)             # => "RED"
reveal(len(Color))                     # => 3
reveal([c.name for c in Color][2])     # => "BLUE"
reveal(list(Color)[0] is Color.RED)    # => True
reveal(Color.RED == Color.RED)         # => True
reveal(Color.RED == Color.GREEN)       # => False
reveal(Color.RED is Color.GREEN)       # => False
reveal(Color.RED == "red")             # => False
reveal(Color.RED in Color)             # => True
reveal(Color.GREEN.describe())         # => "green=green"
reveal(Color.BLUE.loud)                # => "BLUE"
reveal(Color.default() is Color.GREEN)  # => True
reveal(isinstance(Color.RED, Color))   # => True
reveal(str(Color.RED))                 # => "Color.RED"
reveal(f"{Color.GREEN}")               # => "Color.GREEN"
reveal(repr(Color.RED))                # => "<Color.RED: 'red'>"
reveal(Color.__members__["CRIMSON"] is Color.RED)  # => True
reveal(len(Color.__members__))         # => 4

names = {Color.RED: "r", Color.GREEN: "g"}
reveal(names[Color.GREEN])             # => "g"
reveal(names.get(Color.BLUE, "none"))  # => "none"
reveal(Color.RED in names)             # => True


class Number(Enum):
    ONE = auto()
    TWO = auto()
    TEN = 10
    ELEVEN = auto()


reveal(Number.ONE.value)               # => 1
reveal(Number.TWO.value)               # => 2
reveal(Number.ELEVEN.value)            # => 11


class Prio(IntEnum):
    LOW = 1
    HIGH = 5


reveal(Prio.HIGH == 5)                 # => True
reveal(Prio.LOW + 1)                   # => 2
reveal(Prio(5) is Prio.HIGH)           # => True
reveal(isinstance(Prio.LOW, int))      # => True
reveal({1: "one"}[Prio.LOW])           # => "one"
reveal(str(Prio.HIGH))                 # => "5"


class Mode(StrEnum):
    READ = auto()
    WRITE = "w"


reveal(Mode.READ.value)                # => "read"
reveal(Mode.WRITE == "w")              # => True
reveal(str(Mode.WRITE))                # => "w"
reveal(f"{Mode.READ}")                 # => "read"
reveal(Mode.READ.upper())              # => "READ"
reveal(Mode("w") is Mode.WRITE)        # => True


class Perm(Flag):
    R = auto()
    W = auto()
    X = auto()


rw = Perm.R | Perm.W
reveal(Perm.X.value)                   # => 4
reveal(rw.value)                       # => 3
reveal(rw.name)                        # => "R|W"
reveal(Perm.R in rw)                   # => True
reveal(Perm.X in rw)                   # => False
reveal(len(list(rw)))                  # => 2
reveal((rw & Perm.W) is Perm.W)        # => True
reveal(bool(rw & Perm.X))              # => False
reveal((Perm.R | Perm.W) is rw)        # => True
reveal(len(Perm))                      # => 3


class Bits(IntFlag):
    A = 1
    B = 2
    AB = 3


reveal((Bits.A | Bits.B) is Bits.AB)   # => True
reveal(Bits.A | 4)                     # => an instance of Bits
reveal((Bits.A | 4).value)             # => 5
reveal(Bits.B == 2)                    # => True
reveal(len(Bits))                      # => 2


class Planet(Enum):
    EARTH = (5.97, 6.37)
    MARS = (0.642, 3.39)

    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius


reveal(Planet.MARS.radius)             # => 3.39
reveal(Planet.EARTH.value[0])          # => 5.97


class Shape(Enum):
    SQUARE = 1
    CIRCLE = 2

    @classmethod
    def _missing_(cls, value):
        if value == "sq":
            return cls.SQUARE
        return None


reveal(Shape("sq") is Shape.SQUARE)    # => True

Animal = Enum("Animal", "ANT BEE CAT")
reveal(Animal.BEE.value)               # => 2
reveal(len(Animal))                    # => 3
reveal(Animal["CAT"].name)             # => "CAT"


@enum.unique
class Single(Enum):
    ONLY = 0


reveal(Single.ONLY.value)              # => 0


class Kind(str, Enum):
    A = "a"


reveal(Kind.A == "a")                  # => True
reveal(Kind.A.value)                   # => "a"
reveal({"a": 1}[Kind.A])               # => 1
reveal({Kind.A: 2}["a"])               # => 2
