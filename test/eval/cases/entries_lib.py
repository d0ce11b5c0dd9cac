# entries
# Methods of library-based classes run as entry points (self made from
# arguments not known).
from dataclasses import dataclass
from enum import Enum


class Color(Enum):
    RED = 1
    GREEN = 2

    def label(self):
        reveal(self.name)              # => "GREEN" | "RED"  (may)
        return self.value


@dataclass
class Config:
    depth: int = 3

    def deeper(self):
        reveal(self.depth)             # => 3 | argument `depth` of Config() from a splat  (may)
        return self.depth + 1
