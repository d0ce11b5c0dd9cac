# json: loads of a literal string is parsed; dumps and load are unknown.
import json

doc = json.loads('{"name": "k", "n": 3, "ratio": 0.5, "ok": true, "off": false, "none": null, "xs": [1, [2, "y"]], "n": 4}')
reveal(doc["name"])                    # => "k"
reveal(doc["n"])                       # => 4
reveal(len(doc))                       # => 7
reveal(list(doc)[1])                   # => "n"
reveal(doc["ratio"])                   # => 0.5
reveal(doc["ok"])                      # => True
reveal(doc["off"])                     # => False
reveal(doc["none"])                    # => None
reveal(doc["xs"][1][1])                # => "y"
reveal(json.loads("[]"))               # => a list
reveal(json.loads(" -12 "))            # => -12
reveal(json.loads("1e2"))              # => 100.0
reveal(json.loads('"a\\u00e9\\n"') == "a\u00e9\n")  # => True
reveal(json.loads(b'{"b": 1}')["b"])   # => 1

try:
    json.loads("{'single': 1}")
    outcome = "parsed"
except ValueError as e:
    outcome = "error"
reveal(outcome)                        # => "error"

try:
    json.loads("[1, 2,]")
    outcome2 = "parsed"
except json.JSONDecodeError:
    outcome2 = "error"
reveal(outcome2)                       # => "error"

reveal(json.dumps({"a": 1}))           # => the JSON text of a dict
