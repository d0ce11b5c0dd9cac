"""The pallas-lsp command line: --help, version, usage errors (exit 2)."""

import subprocess

from lspclient import BIN


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=30)


def test_help_lists_every_subcommand():
    r = run("--help")
    assert r.returncode == 0
    for name in ("serve", "version"):
        assert f"\n  {name}" in r.stdout
    assert "usage: pallas-lsp <command>" in r.stdout


def test_version():
    r = run("version")
    assert r.returncode == 0
    assert r.stdout.startswith("pallas-lsp ")
    assert "JAX knowledge" in r.stdout


def test_unknown_subcommand_exits_2_with_one_line():
    r = run("frobnicate")
    assert r.returncode == 2
    assert r.stderr == "pallas-lsp: unknown command 'frobnicate' (try 'pallas-lsp --help')\n"


def test_no_subcommand_exits_2():
    r = run()
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("pallas-lsp: ")


def test_bad_flags_exit_2_with_one_line():
    for args, needle in ((["serve", "--bogus"], "unknown option '--bogus'"),
                         (["serve", "--listen"], "--listen needs a value"),
                         (["serve", "--listen", "localhost"], "--listen expects HOST:PORT"),
                         (["serve", "--log-level", "loud"], "--log-level must be"),
                         (["serve", "--stdio", "--listen", "127.0.0.1:1"], "exclusive"),
                         (["serve", "--log-file", "/nonexistent/dir/x.log"], "cannot open log file"),
                         (["version", "extra"], "unexpected argument"),
                         (["--bogus"], "unknown option '--bogus'")):
        r = run(*args)
        assert r.returncode == 2, args
        assert r.stderr.startswith("pallas-lsp: ") and r.stderr.count("\n") == 1, (args, r.stderr)
        assert needle in r.stderr, (args, r.stderr)


def test_subcommand_help():
    r = run("serve", "--help")
    assert r.returncode == 0
    assert "--listen" in r.stdout
