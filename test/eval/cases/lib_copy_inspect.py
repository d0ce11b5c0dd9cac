# copy: new containers and instances; deepcopy copies what they hold.
# inspect: the predicates.
import copy
import inspect

xs = [[1], 2]
shallow = copy.copy(xs)
deep = copy.deepcopy(xs)
reveal(shallow is xs)                  # => False
reveal(shallow[0] is xs[0])            # => True
reveal(deep[0] is xs[0])               # => False
xs[0].append(3)
xs.append(4)
reveal(len(shallow[0]))                # => 2
reveal(len(deep[0]))                   # => 1
reveal(len(shallow))                   # => 2

d = {"k": [1]}
d2 = copy.deepcopy(d)
d2["k"].append(5)
reveal(len(d["k"]))                    # => 1
reveal(copy.copy(d)["k"] is d["k"])    # => True

class Params:
    def __init__(self):
        self.block = 128
        self.shape = [8, 8]

p = Params()
q = copy.copy(p)
q.block = 64
reveal(p.block)                        # => 128
reveal(q.shape is p.shape)             # => True
r = copy.deepcopy(p)
r.shape[0] = 16
reveal(p.shape[0])                     # => 8
reveal(isinstance(r, Params))          # => True

class Custom:
    def __copy__(self):
        return "custom copy"
reveal(copy.copy(Custom()))            # => "custom copy"

cyc = [1]
cyc.append(cyc)
cc = copy.deepcopy(cyc)
reveal(cc[1] is cc)                    # => True
reveal(copy.deepcopy((1, "a"))[1])     # => "a"

def f():
    pass
def g():
    yield 1
async def h():
    pass

reveal(inspect.isfunction(f))          # => True
reveal(inspect.isfunction(len))        # => False
reveal(inspect.isfunction(Params))     # => False
reveal(inspect.ismethod(p.__init__))   # => True
reveal(inspect.ismethod(f))            # => False
reveal(inspect.isclass(Params))        # => True
reveal(inspect.isclass(p))             # => False
reveal(inspect.ismodule(copy))         # => True
reveal(inspect.isbuiltin(len))         # => True
reveal(inspect.isgeneratorfunction(g)) # => True
reveal(inspect.isgeneratorfunction(f)) # => False
reveal(inspect.iscoroutinefunction(h)) # => True
reveal(inspect.signature(f))           # => the signature of function f
