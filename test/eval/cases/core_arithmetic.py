# Arithmetic as Python computes it: the builtins that fold sizes (sum, min,
# max, divmod) and the operators whose sign rules differ from C's (// and %
# round toward negative infinity).
reveal(sum([1, 2, 3]))                 # => 6
reveal(sum([]))                        # => 0
reveal(sum([1, 2], 10))                # => 13
reveal(sum((4, 5), start=1))           # => 10
reveal(7 // 2)                         # => 3
reveal(-7 // 2)                        # => -4
reveal(7 % 3)                          # => 1
reveal(-7 % 3)                         # => 2
reveal(7 % -3)                         # => -2
reveal(-6 % 3)                         # => 0
reveal(1 % -3)                         # => -2
reveal(divmod(-7, 2)[0])               # => -4
reveal(divmod(-7, 2)[1])               # => 1
reveal(min(3, 1, 2))                   # => 1
reveal(max([128, 64]))                 # => 128
reveal(2 ** 10)                        # => 1024
reveal(-(-3))                          # => 3
