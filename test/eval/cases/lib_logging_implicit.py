# logging.info() before basicConfig gives the root logger a handler (CPython
# calls basicConfig() for it), so basicConfig(level=...) after it changes
# nothing: the debug path stays off.
import logging

logging.info("starting")
logging.basicConfig(level=logging.DEBUG)
reveal(logging.getLogger("kernels").isEnabledFor(logging.DEBUG))  # => False
reveal(logging.getLogger("kernels").isEnabledFor(logging.WARNING))  # => True
