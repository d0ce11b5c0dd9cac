# itertools: eager lists when the inputs are known.
import itertools
from itertools import chain, islice, product

p = list(product([1, 2], "ab"))
reveal(len(p))                                   # => 4
reveal(p[1][0])                                  # => 1
reveal(p[1][1])                                  # => "b"
reveal(p[2][0])                                  # => 2
reveal(len(list(product([0, 1], repeat=3))))     # => 8
reveal(list(product([0, 1], repeat=3))[5][0])    # => 1
reveal(len(list(product())))                     # => 1

c = list(chain([1, 2], (3,), "x"))
reveal(len(c))                                   # => 4
reveal(c[3])                                     # => "x"
f = list(chain.from_iterable([[1], [2, 3]]))
reveal(f[2])                                     # => 3
reveal(len(f))                                   # => 3

r = list(itertools.repeat("k", 3))
reveal(len(r))                                   # => 3
reveal(r[2])                                     # => "k"

def naturals():
    n = 0
    while True:
        yield n
        n += 1

s = list(islice(naturals(), 4))
reveal(len(s))                                   # => 4
reveal(s[3])                                     # => 3
reveal(list(islice("abcdefg", 1, 6, 2))[2])      # => "f"
reveal(len(list(islice([1, 2, 3], None))))       # => 3

acc = list(itertools.accumulate([1, 2, 3, 4]))
reveal(acc[3])                                   # => 10
reveal(list(itertools.accumulate([3, 1, 2], max))[2])  # => 3
reveal(list(itertools.accumulate([1, 2], initial=10))[2])  # => 13

perms = list(itertools.permutations([1, 2, 3]))
reveal(len(perms))                               # => 6
reveal(perms[3][0])                              # => 2
reveal(perms[3][2])                              # => 1
combs = list(itertools.combinations("abcd", 2))
reveal(len(combs))                               # => 6
reveal(combs[4][0])                              # => "b"
reveal(combs[4][1])                              # => "d"
reveal(len(list(itertools.combinations([1, 2], 3))))  # => 0
reveal(len(list(itertools.combinations_with_replacement([1, 2], 2))))  # => 3

z = list(itertools.zip_longest([1, 2, 3], "ab", fillvalue=0))
reveal(len(z))                                   # => 3
reveal(z[2][1])                                  # => 0
reveal(list(itertools.zip_longest([1], [])) [0][1])  # => None

sm = list(itertools.starmap(pow, [(2, 3), (3, 2)]))
reveal(sm[0])                                    # => 8
reveal(sm[1])                                    # => 9

reveal(list(itertools.takewhile(lambda v: v < 3, [1, 2, 5, 1]))[-1])  # => 2
reveal(list(itertools.dropwhile(lambda v: v < 3, [1, 2, 5, 1]))[0])   # => 5
reveal(len(list(itertools.filterfalse(None, [0, 1, "", "a"]))))       # => 2
reveal(list(itertools.compress("abc", [1, 0, 1]))[1])                 # => "c"
reveal(list(itertools.pairwise([1, 2, 3]))[1][1])                     # => 3
g = [(k, list(v)) for k, v in itertools.groupby("aabbb")]
reveal(len(g))                                   # => 2
reveal(len(g[1][1]))                             # => 3

# Infinite or unknown inputs: lists of unknown length.
for i, x in zip(range(3), itertools.cycle([7, 8])):
    reveal(x)                                    # => 7 | 8  (may) ;; 7 | 8  (may)
for n in itertools.count():
    reveal(n)                                    # => an element of itertools.count()  (may) ;; an element of itertools.count()  (may)
    break
