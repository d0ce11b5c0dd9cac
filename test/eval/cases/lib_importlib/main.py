# importlib.import_module: a relative name resolves against the package of
# the module that calls it, a dotted one from the top.
import pkg.a

reveal(pkg.a.relative.VALUE)                # => 7
reveal(pkg.a.absolute.VALUE)                # => 7
reveal(pkg.a.relative is pkg.a.absolute)    # => True
