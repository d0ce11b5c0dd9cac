# A generator's values are certain when its own code yields them
# unconditionally, even when the code consuming it runs in a branch the
# evaluator cannot decide (as a kernel body traced inside a launch is); a
# yield inside the generator's own undecided branch is not.
import random


def per_name(*names):
    for name in names:
        yield name + "_spec"


def sometimes(flag):
    if flag:
        yield 1
    yield 2


if random.random() > 0.5:
    specs = list(per_name("x", "out"))
    reveal(len(specs))                                   # => 2  (may)
    reveal(specs[1])                                     # => "out_spec"  (may)

reveal(len(list(sometimes(random.random() > 0.5))))     # => the length of a list
reveal(list(sometimes(True))[0])                        # => 1
