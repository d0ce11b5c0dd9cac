"""`pallas-lsp check` and `mlir` on files an unlucky user or an attacker can
put in the way (issue 14, items 6 and 7): FIFOs, devices, huge files, and
fixes applied through symbolic links, to hard links, CRLF files and
read-only files. The real binary (the sanitized one under 80-sanitizers)."""

import os
import stat
import subprocess
from pathlib import Path

from lspclient import BIN
from test_hardening import KERNEL, REGION_LINE


def check(*args, cwd=None, timeout=120):
    return subprocess.run([BIN, "check", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def test_fifo_is_skipped_not_waited_on(tmp_path):
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    r = check(str(fifo), timeout=60)
    assert r.returncode == 2, r
    assert "fifo.py: skipped: not a regular file (a FIFO)" in r.stderr
    r = subprocess.run([BIN, "mlir", str(fifo)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "not a regular file (a FIFO)" in r.stderr, r


def test_link_to_dev_zero_is_skipped(tmp_path):
    link = tmp_path / "zero.py"
    link.symlink_to("/dev/zero")
    r = check(str(link), timeout=60)
    assert r.returncode == 2, r
    assert "zero.py: skipped: not a regular file (a character device)" in r.stderr


def test_file_over_64_mib_is_skipped(tmp_path):
    big = tmp_path / "big.py"
    with open(big, "wb") as f:
        f.truncate(64 * 1024 * 1024 + 1)  # sparse: costs no disk
    r = check(str(big), timeout=60)
    assert r.returncode == 2, r
    assert "big.py: skipped: larger than 64 MiB" in r.stderr


def test_other_files_of_the_run_are_still_checked(tmp_path):
    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "k.py").write_text(KERNEL)
    r = check(str(tmp_path / "fifo.py"), str(tmp_path / "k.py"), "--format", "github")
    assert r.returncode == 2, r
    assert "line=%d" % (REGION_LINE + 1) in r.stdout, r.stdout


def fix(path, cwd):
    return check("--fix", "--unsafe-fixes", "--select", "PLS001", str(path), cwd=cwd)


def test_fix_writes_through_a_symlink(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "k.py").write_text(KERNEL)
    link = tmp_path / "k.py"
    link.symlink_to("real/k.py")
    r = fix(link, tmp_path)
    assert r.returncode in (0, 1), r
    assert link.is_symlink(), "the link was replaced by a file"
    assert os.readlink(link) == "real/k.py"
    assert (real / "k.py").read_text() != KERNEL, r


def test_fix_keeps_hard_links(tmp_path):
    # The links stay one file. Since issue 34 such a file is left alone with
    # a message (it was rewritten in place, which is not crash-safe:
    # test_check_hardening_round3.py).
    a = tmp_path / "k.py"
    a.write_text(KERNEL)
    b = tmp_path / "other_name.py"
    os.link(a, b)
    inode = a.stat().st_ino
    r = fix(a, tmp_path)
    assert r.returncode == 1, r
    assert "has 2 hard links; its fixes were not applied" in r.stderr, r.stderr
    assert a.stat().st_ino == inode and a.stat().st_nlink == 2
    assert b.read_text() == a.read_text() == KERNEL


def test_fix_keeps_crlf_line_ends(tmp_path):
    k = tmp_path / "k.py"
    k.write_bytes(KERNEL.replace("\n", "\r\n").encode())
    r = fix(k, tmp_path)
    assert r.returncode in (0, 1), r
    data = k.read_bytes()
    assert data != KERNEL.replace("\n", "\r\n").encode(), r
    assert b"\n" not in data.replace(b"\r\n", b""), "a bare LF was written into a CRLF file"


def test_fix_refuses_a_read_only_file(tmp_path):
    k = tmp_path / "k.py"
    k.write_text(KERNEL)
    k.chmod(0o444)
    r = fix(k, tmp_path)
    assert "is read-only; its fixes were not applied" in r.stderr, r
    assert k.read_text() == KERNEL
    assert stat.S_IMODE(k.stat().st_mode) == 0o444
    assert r.returncode == 1, r  # the finding is still there


def test_too_deep_file_is_reported(tmp_path):
    k = tmp_path / "deep.py"
    k.write_text(KERNEL + "x = " + "(" * 70000 + "\n")
    r = check("--format", "github", str(k))
    assert r.returncode == 1, r
    assert "deep.py:%d:1: nested deeper than the analysis follows" % (KERNEL.count("\n") + 1) \
        in r.stderr, r.stderr
    assert "line=%d" % (REGION_LINE + 1) in r.stdout  # what is above is still analysed


# Deep nesting under the parser's limit (it takes up to 50,000 open brackets):
# every walk of the analysis over such a module must be iterative or bounded.
# A module-level name read through the module's values (MODE), a deep tuple at
# module level, and long `not` chains in conditions the analysis evaluates.
DEEP_NOTS = "not " * 20000
DEEP_KERNEL = KERNEL.replace("interpret=True", "interpret=MODE") + f"""

MODE = True
DEPTH = {"(" * 45000}0{")" * 45000}
if {DEEP_NOTS}MODE:
  MODE = True


def helper(x, flag):
  if {DEEP_NOTS}flag:
    return x
  return x
"""


def test_deep_module_level_nesting_is_analysed(tmp_path):
    k = tmp_path / "deep_module.py"
    k.write_text(DEEP_KERNEL)
    r = check("--format", "github", str(k))
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    assert "line=%d" % (REGION_LINE + 1) in r.stdout, r.stdout  # interpret=MODE is followed
    assert "could not analyse" not in r.stderr, r.stderr
    # A not-chain deeper than lowering follows is said, and is not fatal.
    assert "nested deeper than the analysis follows" in r.stderr, r.stderr
