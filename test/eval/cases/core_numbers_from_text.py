# int() and float() of text, as CPython reads it: blanks around, a sign,
# single underscores between digits, a base and its prefix; a text CPython
# rejects raises ValueError.


def parses(convert, text, *base):
  try:
    convert(text, *base)
    return True
  except ValueError:
    return False


reveal(int(" 4_0 "))                         # => 40
reveal(int("-12"))                           # => -12
reveal(int("+7\n"))                          # => 7
reveal(int("0x1F", 16))                      # => 31
reveal(int("0b_101", 0))                     # => 5
reveal(int("ff", base=16))                   # => 255
reveal(int("00"))                            # => 0
reveal(int("010"))                           # => 10
reveal(parses(int, "010", 0))                # => False
reveal(parses(int, "1__0"))                  # => False
reveal(parses(int, "_1"))                    # => False
reveal(parses(int, "1_"))                    # => False
reveal(parses(int, "0x10"))                  # => False
reveal(parses(int, "1.5"))                   # => False
reveal(parses(int, ""))                      # => False
reveal(float("0.5"))                         # => 0.5
reveal(float(" -1_000.25 "))                 # => -1000.25
reveal(float("1e3"))                         # => 1000.0
reveal(float(".5"))                          # => 0.5
reveal(float("5."))                          # => 5.0
reveal(float("2.5E-1"))                      # => 0.25
reveal(float("-Infinity") < 0)               # => True
reveal(float(True))                          # => 1.0
reveal(parses(float, "1._5"))                # => False
reveal(parses(float, "e5"))                  # => False
reveal(parses(float, "0x1p3"))               # => False
reveal(parses(float, "1.5.2"))               # => False
reveal(parses(float, "."))                   # => False
