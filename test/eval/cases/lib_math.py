# math: what kernel configurations size tiles and pipeline depths with.
import math
from math import ceil, prod

block = (128, 64)
reveal(math.prod(block))                         # => 8192
reveal(prod(block) * 2)                          # => 16384
reveal(prod([]))                                 # => 1
reveal(prod((2, 3), start=5))                    # => 30
reveal(prod([2, 0.5]))                           # => 1.0
reveal(sum(prod(s) * 2 for s in [(128, 64), (64, 256)]))  # => 49152

reveal(ceil(1000 / 128))                         # => 8
reveal(math.ceil(7))                             # => 7
reveal(math.floor(-2.5))                         # => -3
reveal(math.trunc(-2.5))                         # => -2
reveal(227 * 1024 // ceil(49152 / 1024) // 1024)  # => 4

reveal(math.gcd(96, 128))                        # => 32
reveal(math.gcd(0, -12))                         # => 12
reveal(math.gcd())                               # => 0
reveal(math.lcm(6, 8, 12))                       # => 24
reveal(math.lcm())                               # => 1

reveal(int(math.log2(128)))                      # => 7
reveal(math.log2(1024))                          # => 10.0
reveal(math.log(8, 2))                           # => 3.0
reveal(math.log10(1000))                         # => 3.0
reveal(math.sqrt(16))                            # => 4.0
reveal(math.isqrt(17))                           # => 4
reveal(math.isqrt(1 << 40))                      # => 1048576
reveal(math.factorial(5))                        # => 120
reveal(math.comb(6, 2))                          # => 15
reveal(math.comb(2, 6))                          # => 0
reveal(math.pow(2, 10))                          # => 1024.0
reveal(math.fabs(-3))                            # => 3.0
reveal(math.isfinite(math.inf))                  # => False
reveal(math.pi > 3.14)                           # => True
reveal(round(math.e, 3))                         # => round()

swizzle = 128
reveal(swizzle // 2 if math.log2(swizzle) > 6 else swizzle)  # => 64
