# logging: levels as CPython's logging computes them.
import logging

log = logging.getLogger("kernels.softmax")
reveal(log is logging.getLogger("kernels.softmax"))      # => True
reveal(log.isEnabledFor(logging.DEBUG))                  # => False
reveal(log.isEnabledFor(logging.WARNING))                # => True
reveal(log.getEffectiveLevel())                          # => 30
reveal(logging.getLogger().getEffectiveLevel())          # => 30

logging.getLogger("kernels").setLevel(logging.INFO)
reveal(log.isEnabledFor(logging.INFO))                   # => True
reveal(log.isEnabledFor(logging.DEBUG))                  # => False
log.setLevel("DEBUG")
reveal(log.isEnabledFor(logging.DEBUG))                  # => True
reveal(log.getChild("rows").getEffectiveLevel())         # => 10
reveal(logging.getLevelName(logging.ERROR))              # => "ERROR"
reveal(logging.getLevelName("INFO"))                     # => 20

other = logging.getLogger("other")
logging.basicConfig(level=logging.DEBUG)
reveal(other.isEnabledFor(logging.DEBUG))                # => True
logging.basicConfig(level=logging.ERROR)                 # the root has a handler: no change
reveal(other.isEnabledFor(logging.INFO))                 # => True
logging.basicConfig(level=logging.ERROR, force=True)
reveal(other.isEnabledFor(logging.INFO))                 # => False

logging.disable(logging.CRITICAL)
reveal(log.isEnabledFor(logging.DEBUG))                  # => False
logging.disable(logging.NOTSET)
reveal(log.isEnabledFor(logging.DEBUG))                  # => True


def debug_enabled():
    return logging.getLogger("kernels.softmax").isEnabledFor(logging.DEBUG)


reveal(debug_enabled())                                  # => True
