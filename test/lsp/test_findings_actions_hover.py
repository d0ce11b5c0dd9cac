"""The server's findings pipeline (analysis -> fixes -> policy) end to end over
pipes with the real binary: PLS001 diagnostics, code actions (rewrite, quick
fixes, ignore, fix-all), the rewrite applied client-side making the
diagnostic go away, suppression comments / pyproject / client settings hiding
diagnostics exactly as `pallas-lsp check` does, and hover on Pallas and
Mosaic GPU calls and inline_mgpu regions."""

import json
import re
import subprocess
from pathlib import Path

from lspclient import BIN

FIX_ALL = "source.fixAll.pallas-lsp"

FIXTURES = Path(__file__).resolve().parents[1] / "rewrite"
# JAX's own test_inline_mgpu body (x + x + 1 on a sliced ref) under
# interpret=True: JAX raises "inline_mgpu_p does not support discharge."
# (test/rewrite runs the same file with real JAX).
KERNEL = (FIXTURES / "fixtures" / "jax_test_inline_mgpu.py").read_text()

# A region that cannot be rewritten (a TMA copy), and calls through an alias.
HOVER_KERNEL = '''import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as mgp


def kernel(a_ref, b_ref, acc_ref, smem_ref, o_ref):
  i = pl.program_id(0)
  mgp.wgmma(acc_ref, a_ref, b_ref)

  @mgp.inline_mgpu(arg_types=(mgp.RefType(), mgp.RefType()))
  def store(ctx, smem_ref, o_ref):
    ctx.async_copy(src_ref=smem_ref, dst_ref=o_ref, swizzle=128)
    ctx.await_async_copy(0)

  store(smem_ref, o_ref)
  o_ref[i] = acc_ref[...] + jnp.zeros((8,), jnp.float32)
'''


def open_doc(client, path, text, version=1):
    uri = Path(path).as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": version, "text": text}})
    return uri


def diagnostics(client, uri, version):
    msg = client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == uri and m["params"].get("version") == version,
                          timeout=60)
    return msg["params"]["diagnostics"]


def diagnostics_with_fixes(client, uri, version):
    """The publish of `version` whose diagnostics carry their fixes: a
    document's first diagnostics go out before the fixes are computed, then
    again with them."""
    msg = client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == uri and m["params"].get("version") == version
                          and any(d.get("data", {}).get("fixes") for d in m["params"]["diagnostics"]),
                          timeout=60)
    return msg["params"]["diagnostics"]


def codes(diags):
    return sorted(d["code"] for d in diags)


def apply_edits(text, edits):
    """Applies LSP TextEdits (ASCII text: UTF-16 units are bytes), last first."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def off(p):
        return offsets[p["line"]] + p["character"]
    for e in sorted(edits, key=lambda e: off(e["range"]["start"]), reverse=True):
        text = text[:off(e["range"]["start"])] + e["newText"] + text[off(e["range"]["end"]):]
    return text


def check_codes(path, *args):
    out = subprocess.run([BIN, "check", "--format", "json", *args, str(path)],
                         check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    data = json.loads(out.stdout)
    findings = data["findings"] if isinstance(data, dict) else data
    return sorted(f["code"] for f in findings)


def test_capabilities_advertised(server):
    caps = server.initialize()["capabilities"]
    assert caps["hoverProvider"] is True
    kinds = caps["codeActionProvider"]["codeActionKinds"]
    assert "quickfix" in kinds and FIX_ALL in kinds


def test_first_diagnostics_go_out_before_their_fixes_then_again_with_them(ready, tmp_path):
    path = tmp_path / "kern.py"
    path.write_text(KERNEL)
    uri = open_doc(ready, path, KERNEL)
    final = diagnostics_with_fixes(ready, uri, 1)
    publishes = [m["params"]["diagnostics"] for m in ready.seen
                 if m.get("method") == "textDocument/publishDiagnostics"
                 and m["params"]["uri"] == uri and m["params"].get("version") == 1]
    assert len(publishes) == 2, publishes
    early = publishes[0]
    # The same diagnostics, in the same order, only without their fixes.
    # (Diagnostics that never carry fixes, e.g. about what a launch selects,
    # are the same in both.)
    strip = lambda ds: [{**d, "data": {**d["data"], "fixes": []}} if "fixes" in d.get("data", {})
                        else d for d in ds]
    assert all(d["data"].get("fixes", []) == [] for d in early), early
    assert strip(final) == early
    assert publishes[1] == final
    # Code actions asked in between or after offer the fixes all the same.
    diag = next(d for d in final if d["code"] == "PLS001")
    actions = ready.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": diag["range"],
        "context": {"diagnostics": [early[final.index(diag)]]}})["result"]
    offered = {a["title"].removeprefix("Pallas: ").removesuffix(" (needs a GPU)") for a in actions}
    assert {f["title"] for f in diag["data"]["fixes"]} <= offered, (offered, diag["data"]["fixes"])

    # An edit reuses the fixes of unchanged code and publishes once, with them.
    ready.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"text": KERNEL + "\n"}]})
    second = diagnostics(ready, uri, 2)
    assert any(d["data"].get("fixes") for d in second if d["code"] == "PLS001"), second


def test_pls001_actions_rewrite_and_fix_all(ready, tmp_path):
    path = tmp_path / "kern.py"
    path.write_text(KERNEL)
    uri = open_doc(ready, path, KERNEL)
    diags = diagnostics_with_fixes(ready, uri, 1)
    pls001 = [d for d in diags if d["code"] == "PLS001"]
    assert pls001, diags
    diag = pls001[0]
    # The diagnostic carries its fixes (the same objects the actions come from).
    assert diag["data"]["fixes"], diag

    resp = ready.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": diag["range"],
        "context": {"diagnostics": [diag]}})
    actions = resp["result"]
    titles = [a["title"] for a in actions]
    assert all(a["kind"] == "quickfix" for a in actions), actions
    rewrite = [a for a in actions if "standard Pallas" in a["title"]]
    assert rewrite, titles
    assert rewrite[0].get("isPreferred") is True
    assert [d["code"] for d in rewrite[0]["diagnostics"]] == ["PLS001"]
    assert any("compiled" in t for t in titles), titles
    ignore = [a for a in actions if "pallas-lsp: ignore[PLS001]" in json.dumps(a.get("edit", {}))]
    assert ignore, titles

    # Fix-all takes safe fixes only: the rewrite (unsafe: layouts and
    # swizzles can differ), the path changes and the ignore comment are not.
    fix_all = ready.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": diag["range"],
        "context": {"diagnostics": [], "only": [FIX_ALL]}})["result"]
    assert all(a["kind"] == FIX_ALL for a in fix_all), fix_all
    assert "standard Pallas" not in json.dumps(fix_all)
    assert "ignore[PLS001]" not in json.dumps(fix_all)

    # Apply the rewrite client-side; the new text has no PLS001.
    edits = rewrite[0]["edit"]["changes"][uri]
    new_text = apply_edits(KERNEL, edits)
    assert new_text != KERNEL and "@plgpu.inline_mgpu" not in new_text
    ready.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"text": new_text}]})
    after = diagnostics(ready, uri, 2)
    assert "PLS001" not in codes(after), after
    # ... and nothing left to act on there.
    resp = ready.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": diag["range"], "context": {"diagnostics": []}})
    assert not [a for a in resp["result"] if "standard Pallas" in a["title"]]


GPU_INTERPRET_TITLE = "Pallas: Use GPU interpret mode"
# TMA copy + barrier under interpret=True: no state discharge rule for
# copy_gmem_to_smem; GPU interpret mode runs them (test/rewrite/gpu_interpret
# runs the same kernels with real JAX).
TMA_KERNEL = (FIXTURES / "gpu_interpret" / "tma_round_trip.py").read_text()


def test_gpu_interpret_action_offered_only_where_it_runs(ready, tmp_path):
    path = tmp_path / "tma.py"
    path.write_text(TMA_KERNEL)
    uri = open_doc(ready, path, TMA_KERNEL)
    diags = diagnostics(ready, uri, 1)
    assert diags and all(d["code"] == "PLS002" for d in diags), diags
    resp = ready.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": diags[0]["range"],
        "context": {"diagnostics": [diags[0]]}})
    gpu = [a for a in resp["result"] if a["title"].startswith(GPU_INTERPRET_TITLE)]
    assert len(gpu) == 1, [a["title"] for a in resp["result"]]
    new_text = apply_edits(TMA_KERNEL, gpu[0]["edit"]["changes"][uri])
    assert "interpret=InterpretGPUParams()" in new_text and "import InterpretGPUParams" in new_text
    ready.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"text": new_text}]})
    assert diagnostics(ready, uri, 2) == []

    # The inline_mgpu kernel: GPU interpret mode cannot run inline_mgpu_p in
    # the bundled JAX, so the action is not there.
    other = tmp_path / "kern.py"
    other.write_text(KERNEL)
    uri2 = open_doc(ready, other, KERNEL)
    diags2 = [d for d in diagnostics(ready, uri2, 1) if d["code"] == "PLS001"]
    assert diags2
    resp = ready.request("textDocument/codeAction", {
        "textDocument": {"uri": uri2}, "range": diags2[0]["range"],
        "context": {"diagnostics": [diags2[0]]}})
    titles = [a["title"] for a in resp["result"]]
    assert any("compiled" in t for t in titles), titles
    assert not any(t.startswith(GPU_INTERPRET_TITLE) for t in titles), titles


def test_suppression_comment_hides_like_check(ready, tmp_path):
    path = tmp_path / "kern.py"
    path.write_text(KERNEL)
    uri = open_doc(ready, path, KERNEL)
    diag = next(d for d in diagnostics(ready, uri, 1) if d["code"] == "PLS001")
    line = diag["range"]["start"]["line"]
    lines = KERNEL.split("\n")
    lines[line] += "  # pallas-lsp: ignore[PLS001]"
    suppressed = "\n".join(lines)
    ready.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"text": suppressed}]})
    shown = codes(diagnostics(ready, uri, 2))
    assert "PLS001" not in shown
    # `check` on the same text says the same.
    path.write_text(suppressed)
    assert check_codes(path) == shown
    path.write_text(KERNEL)
    assert "PLS001" in check_codes(path)
    # No action for a finding the editor does not show.
    resp = ready.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": diag["range"], "context": {"diagnostics": []}})
    assert resp["result"] == []


def test_pyproject_config_hides_like_check_push_and_pull(server, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nignore = ["PLS001"]\n')
    sub = tmp_path / "pkg"
    sub.mkdir()
    path = sub / "kern.py"
    path.write_text(KERNEL)
    server.initialize({"textDocument": {"diagnostic": {"dynamicRegistration": False}}})
    uri = open_doc(server, path, KERNEL)
    report = server.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]
    assert "PLS001" not in codes(report["items"])
    assert codes(report["items"]) == check_codes(path)
    ws = server.request("workspace/diagnostic", {"previousResultIds": []})["result"]
    assert "PLS001" not in codes(ws["items"][0]["items"])
    # The same file with the table gone: the finding is back.
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": [{"text": KERNEL + "\n"}]})
    report = server.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]
    assert "PLS001" in codes(report["items"])


def test_client_settings_ignore(server, tmp_path):
    """`ignore` from the client's settings, then changed by didChangeConfiguration."""
    server.auto_reply["workspace/configuration"] = [{"ignore": ["PLS001"]}]
    server.initialize({"workspace": {"configuration": True}})
    # The reply goes out before didOpen, so the open document is analysed
    # with the settings applied.
    server.wait_for(lambda m: m.get("method") == "workspace/configuration")
    path = tmp_path / "kern.py"
    path.write_text(KERNEL)
    uri = open_doc(server, path, KERNEL)
    assert "PLS001" not in codes(diagnostics(server, uri, 1))
    # Settings change: the server asks again and re-publishes.
    server.auto_reply["workspace/configuration"] = [{"ignore": []}]
    server.notify("workspace/didChangeConfiguration", {"settings": None})
    msg = server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == uri
                          and "PLS001" in codes(m["params"]["diagnostics"]), timeout=60)
    assert msg


def test_client_default_settings_report_everything(server, tmp_path):
    """Both editors send `select: []` and `ignore: []` by default ("all codes");
    an empty selection must not hide every finding."""
    server.auto_reply["workspace/configuration"] = [{"select": [], "ignore": []}]
    server.initialize({"workspace": {"configuration": True}})
    server.wait_for(lambda m: m.get("method") == "workspace/configuration")
    path = tmp_path / "kern.py"
    path.write_text(KERNEL)
    uri = open_doc(server, path, KERNEL)
    assert "PLS001" in codes(diagnostics(server, uri, 1))


def knowledge_table(hover_value):
    """The knowledge table the hover says it used (by its JAX version)."""
    match = re.search(r"Knowledge: JAX ([^*\s]+)", hover_value)
    assert match, hover_value
    root = Path(__file__).resolve().parents[2]
    path = root / "analysis" / "knowledge" / f"jax-{match.group(1)}.json"
    return json.loads(path.read_text())


def hover(client, uri, line, character):
    return client.request("textDocument/hover", {
        "textDocument": {"uri": uri}, "position": {"line": line, "character": character}})["result"]


def position_of(text, needle, offset=0):
    for i, line in enumerate(text.split("\n")):
        if needle in line:
            return i, line.index(needle) + offset
    raise AssertionError(needle)


def test_hover_api_calls_through_alias(ready, tmp_path):
    path = tmp_path / "hover.py"
    path.write_text(HOVER_KERNEL)
    uri = open_doc(ready, path, HOVER_KERNEL)
    line, col = position_of(HOVER_KERNEL, "mgp.wgmma", 5)
    h = hover(ready, uri, line, col)
    assert h["contents"]["kind"] == "markdown"
    value = h["contents"]["value"]
    assert "plgpu.wgmma" in value  # the alias resolved to the canonical API
    table = knowledge_table(value)
    prims = table["apis"]["plgpu.wgmma"]["binds"]
    assert prims
    for key in prims:
        facts = table["primitives"][key]
        assert f"`{facts['name']}`" in value
        if facts["hardware"]:
            assert facts["hardware"]["requires"] in value  # hardware needs
        # Accumulator-only primitives lower only after discharge.
        if not facts["mosaicGpuLowering"] and facts["discharge"]["status"] == "exists":
            assert f"Binds `{facts['name']}`:\n- compiled (Mosaic GPU): only discharged" in value
    assert h["range"]["start"] == {"line": line, "character": col - 5}
    assert h["range"]["end"] == {"line": line, "character": col - 5 + len("mgp.wgmma")}

    line, col = position_of(HOVER_KERNEL, "pl.program_id", 3)
    value = hover(ready, uri, line, col)["contents"]["value"]
    assert "pl.program_id" in value and "`program_id`" in value
    assert "plgpu.wgmma" not in value
    # program_id takes no Ref and JAX resolves it from the grid on every path.
    assert "Binds `program_id`:\n- compiled (Mosaic GPU): yes (" in value
    assert "without: yes" in value
    # Bullet lists, not a wide table; the thread semantics said in words.
    assert "|---" not in value and "LanexWarp" not in value
    assert "default (Lane) lowering" in value

    # Not on a call: nothing.
    line, col = position_of(HOVER_KERNEL, "def kernel")
    assert hover(ready, uri, line, 0) is None
    # A call pallas-lsp knows nothing about: null (issue 15; an empty "binds
    # no primitive" hover replaced other servers' hovers in Neovim).
    for needle in ("jnp.zeros", "jnp.float32"):
        line, col = position_of(HOVER_KERNEL, needle, 5)
        assert hover(ready, uri, line, col) is None, needle


def test_hover_inline_mgpu_region_rewrite_status(ready, tmp_path):
    path = tmp_path / "hover.py"
    path.write_text(HOVER_KERNEL)
    uri = open_doc(ready, path, HOVER_KERNEL)
    tma_line, _ = position_of(HOVER_KERNEL, "ctx.async_copy")
    line, col = position_of(HOVER_KERNEL, "def store", 5)
    value = hover(ready, uri, line, col)["contents"]["value"]
    assert f"not rewritable: uses ctx.async_copy (TMA) at line {tma_line + 1}" in value

    ok = tmp_path / "kern.py"
    ok.write_text(KERNEL)
    ok_uri = open_doc(ready, ok, KERNEL)
    line, col = position_of(KERNEL, "def foo", 5)
    value = hover(ready, ok_uri, line, col)["contents"]["value"]
    assert "can be rewritten with standard Pallas primitives" in value
    # On the decorator: the API facts and the region status together.
    line, col = position_of(KERNEL, "plgpu.inline_mgpu", 8)
    value = hover(ready, ok_uri, line, col)["contents"]["value"]
    assert "plgpu.inline_mgpu" in value and "does not support discharge" in value
    assert "can be rewritten" in value


def test_knowledge_version_is_the_table_in_use(tmp_path):
    """Project::knowledgeJaxVersion: the bundled table's version (was "unknown")."""
    path = tmp_path / "kern.py"
    path.write_text(KERNEL)
    out = subprocess.run([BIN, "check", "--format", "json", "--no-config", str(path)],
                         check=False, capture_output=True, text=True, timeout=120)
    reported = json.loads(out.stdout)["jaxVersion"]
    tables = sorted((Path(__file__).resolve().parents[2] / "analysis" / "knowledge").glob("jax-*.json"))
    versions = {json.loads(t.read_text())["jax_version"] for t in tables}
    assert reported in versions, (reported, versions)


def test_action_titles_name_pallas_and_gpu_actions_say_they_need_one(ready, tmp_path):
    """Issue 15: every action's title starts with "Pallas: "; where the device
    probe finds no GPU, a compiled run says "(needs a GPU)" and the same run
    in interpret mode is offered next to it (not for a finding about
    interpret=True itself, which that run would only repeat)."""
    text = (Path(__file__).resolve().parents[1] / "oracle" / "fixtures" / "compiled_acc_inline.py").read_text()
    path = tmp_path / "acc.py"
    path.write_text(text)
    uri = open_doc(ready, path, text)
    diags = [d for d in diagnostics(ready, uri, 1) if d["severity"] != 4]
    assert diags and diags[0]["data"]["executionPath"].startswith("compiled"), diags
    gpus = ready.request("workspace/executeCommand", {
        "command": "pallas.doctor", "arguments": [{"format": "json"}]})["result"]["gpu"]["devices"]
    actions = ready.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": diags[0]["range"],
        "context": {"diagnostics": [diags[0]]}})["result"]
    titles = [a["title"] for a in actions]
    assert titles and all(t.startswith("Pallas: ") for t in titles), titles
    interpreted = [a for a in actions if a["title"] == "Pallas: Run in interpret mode now (run)"]
    if not gpus:
        assert "Pallas: Run on GPU now (run, compiled) (needs a GPU)" in titles, titles
        assert len(interpreted) == 1, titles
        assert interpreted[0]["command"]["arguments"] == [{"uri": uri, "entry": "run", "mode": "interpret"}]
    else:
        assert not [t for t in titles if "needs a GPU" in t] and not interpreted, titles
