"""Callers in files the editor never opened (docs/analysis.md 8.34): with
only the launch helper open, the server finds the workspace files that
import it and pass `interpret=` (an index built once in the background, the
import rule `check` uses), reads them from disk without opening them, and
analyses the helper again when such a file changes on disk
(workspace/didChangeWatchedFiles). A caller the editor opens uses the
editor's text, not the disk. Real binary over pipes; nothing here measures
time."""

from test_cross_file_callers import DEBUG, OPS, errors, published
from test_snapshots import change, open_doc

CREATED, CHANGED, DELETED = 1, 2, 3


def watched(server, path, kind):
    server.notify("workspace/didChangeWatchedFiles",
                  {"changes": [{"uri": path.as_uri(), "type": kind}]})


def workspace(server, tmp_path, caller_text=DEBUG):
    (tmp_path / "lib").mkdir(exist_ok=True)
    (tmp_path / "app").mkdir(exist_ok=True)
    (tmp_path / "lib" / "ops.py").write_text(OPS)
    if caller_text is not None:
        (tmp_path / "app" / "debug.py").write_text(caller_text)
    server.initialize(rootUri=tmp_path.as_uri(),
                      workspaceFolders=[{"uri": tmp_path.as_uri(), "name": "ws"}])
    return open_doc(server, tmp_path / "lib" / "ops.py", OPS)


def never_published(server, uri):
    return not any(m.get("method") == "textDocument/publishDiagnostics"
                   and m["params"]["uri"] == uri for m in server.seen)


def test_a_caller_on_disk_chooses_the_path_of_the_only_open_document(server, tmp_path):
    ops = workspace(server, tmp_path)
    found = errors(published(server, ops, 0, lambda d: bool(errors(d))))
    assert len(found) == 1
    assert found[0]["range"]["start"]["line"] == 12  # fence(o_ref)
    # The caller is named (the function in debug.py that passes True).
    text = found[0]["message"] + "".join(
        r["message"] for r in found[0].get("relatedInformation", []))
    assert "run" in text, found[0]
    # Read from disk, never opened: nothing is published for it.
    assert never_published(server, (tmp_path / "app" / "debug.py").as_uri())

    # The caller now passes False on disk: the helper loses its finding...
    caller = tmp_path / "app" / "debug.py"
    seen = len(server.seen)
    caller.write_text(DEBUG.replace("interpret=True", "interpret=False"))
    watched(server, caller, CHANGED)
    assert published(server, ops, seen, lambda d: not errors(d)) == []
    # ...and gets it back when the disk says True again.
    seen = len(server.seen)
    caller.write_text(DEBUG)
    watched(server, caller, CHANGED)
    assert len(errors(published(server, ops, seen, lambda d: bool(errors(d))))) == 1
    assert never_published(server, caller.as_uri())


def test_a_caller_created_and_deleted_on_disk(server, tmp_path):
    ops = workspace(server, tmp_path, caller_text=None)
    assert published(server, ops, 0, lambda d: True) == []
    caller = tmp_path / "app" / "debug.py"
    seen = len(server.seen)
    caller.write_text(DEBUG)
    watched(server, caller, CREATED)
    assert len(errors(published(server, ops, seen, lambda d: bool(errors(d))))) == 1
    seen = len(server.seen)
    caller.unlink()
    watched(server, caller, DELETED)
    assert published(server, ops, seen, lambda d: not errors(d)) == []


def test_a_file_that_imports_another_module_is_no_caller(server, tmp_path):
    # Same call, same function name, but from a module of another name: the
    # import rule, not the text, decides.
    other = DEBUG.replace("from lib.ops import add", "from lib.other import add")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "other.py").write_text(OPS)
    ops = workspace(server, tmp_path, caller_text=other)
    # Once the index is built (it counts debug.py: it passes interpret=),
    # ops.py publishes again on an edit: debug.py calls another module.
    assert "1 workspace files" in server.log_message("caller index built")["params"]["message"]
    seen = len(server.seen)
    change(server, ops, 2, OPS + "\n")
    assert published(server, ops, seen, lambda d: True) == []


def test_an_open_caller_uses_the_editors_text_not_the_disk(server, tmp_path):
    ops = workspace(server, tmp_path)
    assert len(errors(published(server, ops, 0, lambda d: bool(errors(d))))) == 1
    caller = tmp_path / "app" / "debug.py"
    seen = len(server.seen)
    open_doc(server, caller, DEBUG.replace("interpret=True", "interpret=False"))
    assert published(server, ops, seen, lambda d: not errors(d)) == []
    # The disk still says True: a change notification for the open file, then
    # an edit of the helper, publish what the editor's text chooses.
    watched(server, caller, CHANGED)
    seen = len(server.seen)
    change(server, ops, 2, OPS + "\n")
    assert published(server, ops, seen, lambda d: True) == []
    # Closed: the disk's text (True) chooses again.
    seen = len(server.seen)
    server.notify("textDocument/didClose", {"textDocument": {"uri": caller.as_uri()}})
    assert len(errors(published(server, ops, seen, lambda d: bool(errors(d))))) == 1
