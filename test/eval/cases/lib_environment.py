# os, sys, time, random, uuid, datetime: what the running environment decides.
import datetime
import os
import random
import sys
import time
import uuid

# A variable the program does not set is as the analysis's environment has
# it (run_cases.py sets PALLAS_LSP_CASE_LEVEL=3 and unsets FLAG*).
reveal(os.environ.get("FLAG"))                   # => None
reveal(os.environ.get("FLAG", "0"))              # => "0"
reveal(os.getenv("FLAG_LEVEL", 2))               # => 2
reveal("FLAG" in os.environ)                     # => False
reveal(os.environ["FLAG"])                       # => environment variable FLAG
reveal(os.environ["PALLAS_LSP_CASE_LEVEL"])      # => "3"
reveal(os.getenv("PALLAS_LSP_CASE_LEVEL", "0"))  # => "3"
reveal("PALLAS_LSP_CASE_LEVEL" in os.environ)    # => True

os.environ["FLAG_SET"] = "1"
reveal(os.environ["FLAG_SET"])                   # => "1"
reveal(os.environ.get("FLAG_SET"))               # => "1"
reveal(os.getenv("FLAG_SET"))                    # => "1"
reveal("FLAG_SET" in os.environ)                 # => True

def interpret_flag():
    return os.environ.get("FLAG_INTERPRET", "0") == "1"

if interpret_flag():
    mode = "interpret"
else:
    mode = "compiled"
reveal(mode)                                     # => "compiled"

reveal(sys.argv[0])                              # => the program's path (sys.argv[0])
reveal(len(sys.argv))                            # => 1
reveal(sys.version_info >= (3, 8))               # => True
reveal(sys.version_info[:2] == (3, 11))          # => True
reveal(sys.version_info[0])                      # => 3
reveal(sys.platform)                             # => "linux"
reveal(sys.platform.startswith("linux"))         # => True
reveal(sys.maxsize > 2**32)                      # => True

reveal(time.time())                              # => the current time (time.time())
reveal(time.perf_counter())                      # => the current time (time.perf_counter())
reveal(time.sleep(0))                            # => None
reveal(random.random())                          # => a random number (random.random())
reveal(random.choice([1, 2]))                    # => 1 | 2
reveal(uuid.uuid4())                             # => a random UUID (uuid.uuid4())
reveal(datetime.datetime.now())                  # => the current date and time (datetime.datetime.now())
reveal(os.path.exists("/tmp"))                   # => the result of os.path.exists(...)

def main():
    if len(sys.argv) < 2:
        sys.exit(1)
        reveal("unreachable")
    return "ran"

try:
    result = main()
except SystemExit:
    result = "exited"
reveal(result)                                   # => "exited"
