# String literals: the prefix (r, b, f, any case) ends at the opening quote;
# letters inside the string are its text, not prefixes.
reveal("bar")                                # => "bar"
reveal('fab')                                # => "fab"
reveal(isinstance("rb", str))                # => True
reveal(b"bar" == b"bar")                     # => True
reveal(r"a\nb" == "a\\nb")                   # => True
reveal(len("a\nb"))                          # => 3
reveal(Rb"x\n" == b"x\\n")                   # => True
reveal(f"{1 + 1}b")                          # => "2b"
reveal(b"bar")                               # => b"bar"
reveal("bar" == b"bar")                      # => False
