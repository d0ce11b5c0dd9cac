# Branches the evaluator decides, and those it joins.
import os

X = 3
if X > 2:
    y = "big"
else:
    y = "small"
reveal(y)                              # => "big"

def g(flag):
    if flag:
        z = 1
    else:
        z = 2
    return z

reveal(g(True))                        # => 1
reveal(g(os.environ["FLAG"]))      # => 1 | 2

xs = [1, 2, 3]
ys = [x * 2 for x in xs if x > 1]
reveal(ys[0])                          # => 4
reveal(len(ys))                        # => 2

d = {"a": 1, "b": 2}
reveal(d.get("a"))                     # => 1
reveal(d.get("z", 9))                  # => 9

def gen():
    yield 1
    yield 2

reveal(list(gen())[1])                 # => 2
reveal(f"{X}-{y}")                     # => "3-big"
a, *b = (1, 2, 3)
reveal(b[1])                           # => 3
reveal(max([3, 1, 2], key=lambda v: -v))  # => 1

total = 0
for i in range(4):
    if i == 2:
        break
    total += i
reveal(total)                          # => 1


# match: the first case whose pattern matches runs.
def kind(x):
    match x:
        case 0:
            return "zero"
        case [a, b]:
            return "pair"
        case _:
            return "other"


reveal(kind(0))                        # => "zero"
reveal(kind([1, 2]))                   # => "pair"
reveal(kind(5))                        # => "other"
