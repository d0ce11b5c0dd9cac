# Starred unpacking of a sequence whose length the evaluator cannot fix:
# every target may hold any element (a sound join; Python gives first in
# {1, 4} and last in {3, 7}), and the starred one is a list.
import random


def pick():
    if random.random() > 0.5:
        return [1, 2, 3]
    return [4, 5, 6, 7]


first, *rest, last = pick()
reveal(first)                       # => 1 | 2 | 3 | 4 | 5 | 6 | 7
reveal(last)                        # => 1 | 2 | 3 | 4 | 5 | 6 | 7
reveal(rest)                        # => a list

a, *b = (10, 20, 30)
reveal(a)                           # => 10
reveal(b[1])                        # => 30
