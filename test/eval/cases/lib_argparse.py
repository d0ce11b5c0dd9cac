# argparse: parse_args of a spelled-out list is parsed; of the command line,
# the program as written runs without arguments: each value is its default,
# unless an empty command line does not parse (a required argument) or the
# parser has sub-commands; then each value is its default or what the user
# passes.
import argparse
import sys

parser = argparse.ArgumentParser(description="run a kernel")
parser.add_argument("--interpret", action="store_true", help="run in interpret mode")
parser.add_argument("--no-check", dest="check", action="store_false")
parser.add_argument("--block", type=int, default=128)
parser.add_argument("--scale", type=float, default="0.5")
parser.add_argument("--fast", action=argparse.BooleanOptionalAction)
parser.add_argument("-v", "--verbose", action="count", default=0)
parser.add_argument("--mode", choices=["a", "b"], default="a")
parser.add_argument("--xs", action="append", type=int)

args = parser.parse_args()
reveal(args.interpret)                 # => False
reveal(args.check)                     # => True
reveal(args.block)                     # => 128
reveal(args.scale)                     # => 0.5
reveal(args.fast)                      # => None
reveal(args.verbose)                   # => 0

if args.interpret:
    mode = "interpret"
else:
    mode = "compiled"
reveal(mode)                           # => "compiled"

lit = parser.parse_args(["--interp", "--block=64", "-vv", "--no-fast", "--xs", "1", "--xs", "2", "--mode", "b"])
reveal(lit.interpret)                  # => True
reveal(lit.check)                      # => True
reveal(lit.block)                      # => 64
reveal(lit.scale)                      # => 0.5
reveal(lit.fast)                       # => False
reveal(lit.verbose)                    # => 2
reveal(lit.mode)                       # => "b"
reveal(lit.xs[1])                      # => 2
reveal(len(lit.xs))                    # => 2

empty = parser.parse_args([])
reveal(empty.interpret)                # => False
reveal(empty.xs)                       # => None
reveal(vars(empty)["block"])           # => 128

# Positionals and nargs, matched as argparse does.
p2 = argparse.ArgumentParser()
p2.add_argument("src")
p2.add_argument("rest", nargs="*")
p2.add_argument("--opt", nargs="?", const="C", default="D")
p2.add_argument("-n", type=int)
r = p2.parse_args(["a.py", "b", "c", "-n5", "--opt"])
reveal(r.src)                          # => "a.py"
reveal(r.rest[1])                      # => "c"
reveal(r.n)                            # => 5
reveal(r.opt)                          # => "C"
r2 = p2.parse_args(["x", "--", "-n"])
reveal(r2.rest[0])                     # => "-n"
reveal(r2.opt)                         # => "D"

known, extra = p2.parse_known_args(["x", "--other", "1"])
reveal(known.src)                      # => "x"
reveal(extra[0])                       # => "--other"

def parse_or_exit(argv):
    try:
        return p2.parse_args(argv)
    except SystemExit:
        return "exited"

reveal(parse_or_exit([]))              # => "exited"
reveal(parse_or_exit(["a", "--bogus"]))  # => "exited"
reveal(parse_or_exit(["a", "-n", "x"]))  # => "exited"

# From the command line: the program runs without arguments, as CPython here
# does, so the fallback list is parsed.
cl = p2.parse_args(sys.argv[1:] or ["in.py"])
reveal(cl.src)                         # => "in.py"
reveal(cl.opt)                         # => "D"
# A required argument the empty command line lacks: what the user passes is
# not known (the program is surely run with it).
req = p2.parse_args()
reveal(req.src)                        # => command-line argument src
reveal(req.opt)                        # => "D" | command-line option --opt

# Groups, set_defaults, sub-commands.
p3 = argparse.ArgumentParser()
g = p3.add_argument_group("tuning")
g.add_argument("--tile", type=int, default=8)
p3.set_defaults(device="gpu")
sub = p3.add_subparsers(dest="command")
run = sub.add_parser("run")
run.add_argument("--steps", type=int, default=10)
run.set_defaults(handler="do_run")
check = sub.add_parser("check")
check.set_defaults(handler="do_check")
s = p3.parse_args(["--tile", "4", "run", "--steps", "3"])
reveal(s.tile)                         # => 4
reveal(s.device)                       # => "gpu"
reveal(s.command)                      # => "run"
reveal(s.steps)                        # => 3
reveal(s.handler)                      # => "do_run"
reveal(p3.parse_args(["check"]).handler)  # => "do_check"
reveal(p3.parse_args([]).command)      # => None
c = p3.parse_args()
reveal(c.command)                      # => "check" | "run" | None
reveal(getattr(c, "handler", None))    # => "do_check" | "do_run" | `handler` (missing without a sub-command)
reveal(c.tile)                         # => 8 | command-line option --tile

ns, unknown_args = parser.parse_known_args()
reveal(ns.block)                       # => 128
reveal(argparse.Namespace(a=1).a)      # => 1
reveal(parser.parse_args(sys.argv[1:]).block)  # => 128
