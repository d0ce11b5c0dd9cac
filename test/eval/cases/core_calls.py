# Argument binding, closures, classes, properties and super().
def f(a, b=2, *args, c=5, **kw):
    return (a, b, args, c, kw)

reveal(f(1)[1])                        # => 2
reveal(f(1, 2, 3, c=7, d=8)[3])        # => 7
reveal(f(1, 2, 3, 4)[2][1])            # => 4
reveal(f(1, d=9)[4]["d"])              # => 9

def outer():
    n = 1
    def inner():
        return n
    n = 2
    return inner

reveal(outer()())                      # => 2

class Base:
    interpret = False
    def __init__(self, k):
        self.k = k
    def run(self):
        return self.interpret
    @property
    def name(self):
        return "base-" + str(self.k)

class Child(Base):
    interpret = True
    def run(self):
        return super().run()

c = Child(4)
reveal(c.run())                        # => True
reveal(c.name)                         # => "base-4"
reveal(Base(1).run())                  # => False
