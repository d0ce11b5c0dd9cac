module attributes {pallas.path = "GOLDEN/empty.py"} {
} loc("GOLDEN/empty.py":1:1)
