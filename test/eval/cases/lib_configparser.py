# configparser: a settings block the program spells out, parsed as CPython's
# ConfigParser parses it.
import configparser

INI = """
[DEFAULT]
block = 64

[pallas]
interpret = yes
Warp_Specialized = off
registers: 40
scale = 0.5
# a comment
; another
note = first
  second

  third

[shapes]
rows = 64
block = 128
"""

cp = configparser.ConfigParser()
cp.read_string(INI)
sec = cp["pallas"]
reveal(sec.getboolean("interpret"))                    # => True
reveal(sec.getboolean("warp_specialized"))             # => False
reveal(sec.getint("registers"))                        # => 40
reveal(sec.getfloat("scale"))                          # => 0.5
reveal(sec["note"].split("\n")[1])                     # => "second"
reveal(len(sec["note"].split("\n")))                   # => 4
reveal(sec["note"].split("\n")[3])                     # => "third"
reveal(cp.getint("pallas", "block"))                   # => 64
reveal(cp.getint("shapes", "block"))                   # => 128
reveal(cp.get("shapes", "missing", fallback="x"))      # => "x"
reveal(sec.get("missing"))                             # => None
reveal("shapes" in cp)                                 # => True
reveal("tpu" in cp)                                    # => False
reveal("rows" in cp["shapes"])                         # => True
reveal(len(cp.sections()))                             # => 2
reveal(cp.sections()[1])                               # => "shapes"

cp.read_dict({"extra": {"depth": 3}})
reveal(cp.getint("extra", "depth"))                    # => 3
cp.set("extra", "depth", "4")
reveal(cp["extra"].getint("depth"))                    # => 4

files = configparser.ConfigParser()
files.read("settings.ini")
reveal(files.getboolean("pallas", "interpret", fallback=True))  # => option interpret of configuration section pallas
