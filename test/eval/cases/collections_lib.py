# collections: namedtuple (and typing.NamedTuple), defaultdict, OrderedDict,
# Counter, ChainMap.
import collections
from collections import namedtuple, defaultdict, OrderedDict, Counter, ChainMap
from typing import NamedTuple

Point = namedtuple("Point", "x y")
p = Point(1, y=2)
reveal(p.x)                            # => 1
reveal(p[1])                           # => 2
reveal(p[-1])                          # => 2
reveal(len(p))                         # => 2
a, b = p
reveal(a + b)                          # => 3
reveal(p == (1, 2))                    # => True
reveal(p == Point(1, 3))               # => False
reveal(isinstance(p, tuple))           # => True
reveal(Point._fields)                  # => a tuple
reveal(Point._fields[1])               # => "y"
q = p._replace(x=10)
reveal(q.x)                            # => 10
reveal(q.y)                            # => 2
reveal(p.x)                            # => 1
reveal(p._asdict()["y"])               # => 2
reveal(Point._make([5, 6]).y)          # => 6
reveal(list(p)[0])                     # => 1
reveal(p[0:1][0])                      # => 1

Opt = namedtuple("Opt", ["name", "size", "flag"], defaults=[4, False])
o = Opt("n")
reveal(o.size)                         # => 4
reveal(o.flag)                         # => False
reveal(Opt("m", 8).size)               # => 8
reveal(Opt._field_defaults["size"])    # => 4
reveal(collections.namedtuple("P2", "a, b")(1, 2).b)  # => 2


class Pair(namedtuple("Pair", "left right")):
    def total(self):
        return self.left + self.right


reveal(Pair(3, 4).total())             # => 7


class Employee(NamedTuple):
    name: str
    dept: str = "eng"

    def label(self):
        return self.name + "@" + self.dept


e = Employee("ann")
reveal(e.dept)                         # => "eng"
reveal(e.label())                      # => "ann@eng"
reveal(Employee("bob", dept="ops")[1])  # => "ops"
reveal(e._fields[0])                   # => "name"
reveal(len(e))                         # => 2
n, d = Employee("cy", "hr")
reveal(d)                              # => "hr"
reveal(e._replace(name="dee").name)    # => "dee"
Functional = NamedTuple("Functional", [("a", int), ("b", str)])
reveal(Functional(1, "x").b)           # => "x"

dd = defaultdict(list)
dd["a"].append(1)
dd["a"].append(2)
dd["b"].append(3)
reveal(len(dd["a"]))                   # => 2
reveal(dd["b"][0])                     # => 3
reveal(len(dd))                        # => 2
reveal("a" in dd)                      # => True
reveal("z" in dd)                      # => False
reveal(isinstance(dd, dict))           # => True
counts = defaultdict(int)
for w in ["x", "y", "x"]:
    counts[w] += 1
reveal(counts["x"])                    # => 2
reveal(counts["q"])                    # => 0
reveal(len(counts))                    # => 3
reveal(counts.get("nope"))             # => None
reveal(dd.default_factory is list)     # => True
nofac = defaultdict(None, {"k": 1})
reveal(nofac["k"])                     # => 1

od = OrderedDict()
od["one"] = 1
od["two"] = 2
od["three"] = 3
reveal(list(od)[0])                    # => "one"
od.move_to_end("one")
reveal(list(od.keys())[0])             # => "two"
reveal(list(od)[2])                    # => "one"
reveal(od.popitem())                   # => a tuple
reveal(od.popitem(last=False)[0])      # => "two"
reveal(len(od))                        # => 1
reveal(OrderedDict(a=1, b=2) == OrderedDict(b=2, a=1))  # => False
reveal(OrderedDict(a=1, b=2) == {"b": 2, "a": 1})       # => True
reveal(isinstance(od, OrderedDict))    # => True

c = Counter("abracadabra")
reveal(c["a"])                         # => 5
reveal(c["z"])                         # => 0
reveal(c.most_common(1)[0][0])         # => "a"
reveal(c.most_common(2)[1])            # => a tuple
reveal(c.most_common(2)[1][0])         # => "b"
c.update(["z", "z"])
reveal(c["z"])                         # => 2
c["q"] += 3
reveal(c["q"])                         # => 3
reveal(Counter(a=2, b=1).total())      # => 3
reveal(Counter({"k": 4})["k"])         # => 4
c2 = Counter(["x", "y", "x"])
c2.subtract(["x"])
reveal(c2["x"])                        # => 1

defaults = {"color": "red", "user": "guest"}
overrides = {"user": "admin"}
cm = ChainMap(overrides, defaults)
reveal(cm["user"])                     # => "admin"
reveal(cm["color"])                    # => "red"
reveal(cm.get("missing", "dflt"))      # => "dflt"
reveal(len(cm))                        # => 2
reveal(list(cm)[0])                    # => "color"
cm["color"] = "blue"
reveal(overrides["color"])             # => "blue"
reveal(defaults["color"])              # => "red"
child = cm.new_child()
child["user"] = "root"
reveal(child["user"])                  # => "root"
reveal(cm["user"])                     # => "admin"
reveal(child.parents["user"])          # => "admin"
reveal(len(cm.maps))                   # => 2
reveal(dict(cm.items())["color"])      # => "blue"

plain = dict(OrderedDict(ab=1, cd=2))
reveal(plain["ab"])                    # => 1
reveal(len(plain))                     # => 2
