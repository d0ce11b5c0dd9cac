module attributes {pallas.path = "GOLDEN/comments_only.py"} {
} loc("GOLDEN/comments_only.py":1:1)
