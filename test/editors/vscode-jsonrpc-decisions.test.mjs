// Issue 35 at the protocol level, with the client library VS Code's language
// client is built on (vscode-jsonrpc) against the real binary and real JAX:
//   - the path is decided where the user writes it: the hint, the path fixes
//     and the path-matrix hover stand on `interpret=True` written lines below
//     the call, and on the caller's argument that selects the path (item 8);
//   - "Run on GPU now" runs the entry the lenses run (item 4), and is not
//     offered in notebooks;
//   - runs through a launch template that forwards only stdin, stdout and
//     stderr (as ssh and srun do) work, and show the program's output while
//     it runs (items 2, 10);
//   - lenses that need a GPU say so on a machine without one, the path
//     matrix says what a bare `assert` of JAX checks, and the links of the
//     finding codes point at the repository the .vsix names (item 10).
//
//   PALLAS_LSP_BIN=build/server/pallas-lsp PALLAS_LSP_PYTHON=.venv/bin/python \
//     node --test test/editors/vscode-jsonrpc-decisions.test.mjs
import assert from 'node:assert/strict';
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { editorsTestDir } from './lib/fixture.mjs';
import { LspSession } from './lib/lsp.mjs';

const bin = process.env.PALLAS_LSP_BIN;
const python = process.env.PALLAS_LSP_PYTHON;
const DIAGNOSTIC_TIMEOUT_MS = 60000;
const RUN_TIMEOUT_MS = 240000;

let dir;
let session;
let uri;
let text;
let diagnostics;
let noGpu;
const settings = { python: python ?? null, logLevel: 'info', runner: { launchTemplate: null } };

const lines = () => text.split('\n');
const lineOf = (needle) => lines().findIndex((l) => l.includes(needle));
const colOf = (line, needle) => lines()[line].indexOf(needle);
const isHint = (d) => d.severity === 4;

before(async () => {
  assert.ok(bin && python, 'PALLAS_LSP_BIN and PALLAS_LSP_PYTHON must be set');
  dir = mkdtempSync(join(tmpdir(), 'pallas-decisions-'));
  cpSync(join(editorsTestDir, 'fixtures', 'paths'), dir, { recursive: true });
  session = new LspSession(bin, ['serve', '--stdio'], {
    cwd: dir,
    configuration: (section) => (section === 'pallas-lsp' || section === 'pallasLsp' ? settings : null),
  });
  await session.initialize(dir, { ...settings, workspaceTrusted: true });
  uri = await session.open(join(dir, 'paths.py'));
  text = session.text(uri);
  diagnostics = (await session.diagnosticsFor(uri, 1, DIAGNOSTIC_TIMEOUT_MS)).diagnostics;
  const doctor = await session.request('workspace/executeCommand', {
    command: 'pallas.doctor',
    arguments: [{ format: 'json' }],
  });
  noGpu = (doctor?.gpu?.devices ?? []).length === 0;
});

after(() => {
  session?.kill();
  if (dir) {
    rmSync(dir, { recursive: true, force: true });
  }
});

function codeActions(range, context = []) {
  return session.request('textDocument/codeAction', {
    textDocument: { uri },
    range,
    context: { diagnostics: context, triggerKind: 1 },
  });
}

function hover(line, character) {
  return session.request('textDocument/hover', { textDocument: { uri }, position: { line, character } });
}

test('the hint, the path fixes and the path matrix stand on interpret=True written lines below the call', async () => {
  const selects = lineOf('# <- selects');
  const call = lineOf('return pl.pallas_call(');
  assert.ok(selects - call >= 10, 'the fixture writes interpret=True ten lines below the call');
  const hint = diagnostics.filter(isHint).find((d) => d.range.start.line === selects);
  assert.ok(hint, `a hint on the interpret=True line ${selects + 1}, got ${JSON.stringify(diagnostics.filter(isHint).map((d) => d.range))}`);
  assert.equal(hint.range.start.character, colOf(selects, 'interpret=True'));
  assert.equal(hint.range.end.character, colOf(selects, 'interpret=True') + 'interpret=True'.length);
  assert.match(hint.message, /^selects interpret=True, which cannot run region 'double' \(line \d+\)$/);
  assert.ok(!diagnostics.filter(isHint).some((d) => d.range.start.line === call), 'no hint on the launch line');

  // Code actions where the cursor is, on interpret=True: the fixes that change the path.
  const actions = await codeActions(hint.range, [hint]);
  const titles = actions.map((a) => a.title);
  const compiled = actions.find((a) => a.title.startsWith('Pallas: Run this kernel compiled (remove `interpret=True`)'));
  assert.ok(compiled, `the compiled-path fix on interpret=True, got ${JSON.stringify(titles)}`);
  const [edit] = Object.values(compiled.edit.changes)[0];
  assert.equal(edit.newText, '');
  assert.ok(edit.range.start.line <= selects && edit.range.end.line === selects, 'it removes what the hint marks');
  assert.deepEqual(compiled.diagnostics.map((d) => d.message), [hint.message], 'it is the hint\'s action');
  assert.ok(!titles.some((t) => /Rewrite|Ignore PLS001/.test(t)), `only path fixes there: ${JSON.stringify(titles)}`);

  // Hover there: the path matrix of the launch it decides.
  const shown = await hover(selects, colOf(selects, 'interpret') + 2);
  assert.ok(shown, 'a hover on interpret=True');
  assert.match(shown.contents.value, new RegExp(`Paths that can run the launch at line ${call + 1}:`));
  assert.match(shown.contents.value, /- `interpret=True`: no \(`inline_mgpu_p` line \d+: NotImplementedError: inline_mgpu_p does not support discharge/);
  assert.match(shown.contents.value, /This launch\*\* selects interpret=True/);
});

test('a caller that passes interpret=True gets the hint, the fix and the hover at its argument', async () => {
  const caller = lineOf('# <- caller selects');
  const hint = diagnostics.filter(isHint).find((d) => d.range.start.line === caller);
  assert.ok(hint, `a hint at the caller's argument (line ${caller + 1}): ${JSON.stringify(diagnostics.filter(isHint).map((d) => d.range.start.line))}`);
  // The caller's value that selects the path (its argument, `True`).
  assert.equal(hint.range.start.character, colOf(caller, 'True'));
  assert.equal(hint.range.end.character, colOf(caller, 'True') + 'True'.length);
  const actions = await codeActions(hint.range, [hint]);
  const fix = actions.find((a) => a.title === 'Pallas: Run this kernel compiled (pass `interpret=False` here)' ||
    a.title === 'Pallas: Run this kernel compiled (pass `interpret=False` here) (needs a GPU)');
  assert.ok(fix, `the caller's fix: ${JSON.stringify(actions.map((a) => a.title))}`);
  const [edit] = Object.values(fix.edit.changes)[0];
  assert.equal(edit.newText, 'False');
  assert.equal(edit.range.start.line, caller);
  assert.equal(edit.range.start.character, colOf(caller, 'True'));
  const shown = await hover(caller, colOf(caller, 'True') + 1);
  const launch = lineOf('def apply(') + 1;
  assert.match(shown?.contents?.value ?? '', new RegExp(`Paths that can run the launch at line ${launch + 1}:`));
});

test('"Run on GPU now" runs the entry the lenses run, not a wrapper that takes arguments', async () => {
  const site = lineOf('# <- PLS001');
  const finding = diagnostics.find((d) => d.code === 'PLS001' && d.severity !== 4 && d.range.start.line === site);
  assert.ok(finding, JSON.stringify(diagnostics));
  const actions = await codeActions(finding.range, [finding]);
  const runs = actions.filter((a) => a.command?.command === 'pallas.run');
  const entries = runs.map((a) => a.command.arguments[0].entry).sort();
  assert.ok(runs.length > 0, `run actions: ${JSON.stringify(actions.map((a) => a.title))}`);
  assert.ok(!entries.includes('apply'), `apply(x, interpret=False) takes arguments: ${JSON.stringify(entries)}`);
  assert.ok(entries.includes('main'), `apply's launch runs through main: ${JSON.stringify(entries)}`);
  assert.ok(runs.some((a) => a.title.startsWith('Pallas: Run on GPU now (main, compiled)')), JSON.stringify(runs.map((a) => a.title)));
  // The lenses agree.
  const lenses = await session.request('textDocument/codeLens', { textDocument: { uri } });
  const applyLine = lineOf('def apply(');
  assert.ok(lenses.some((l) => l.range.start.line === applyLine && l.command.arguments[0].entry === 'main' &&
    /\(via main\)/.test(l.command.title)), JSON.stringify(lenses.map((l) => l.command.title)));
});

test('lenses that need a GPU say so where there is none', async () => {
  const lenses = await session.request('textDocument/codeLens', { textDocument: { uri } });
  const titles = lenses.map((l) => l.command.title);
  if (!noGpu) {
    assert.ok(!titles.some((t) => t.includes('(needs a GPU)')), JSON.stringify(titles));
    return;
  }
  assert.ok(titles.includes('Run on GPU (needs a GPU)'), JSON.stringify(titles));
  assert.ok(titles.includes('Compare (needs a GPU)'), JSON.stringify(titles));
  assert.ok(titles.includes('Run interpreted'), JSON.stringify(titles));
});

test('the path matrix says what a bare assert of JAX checks', async () => {
  const launch = lineOf('# <- moving block');
  const shown = await hover(launch, colOf(launch, 'pallas_call') + 2);
  const value = shown?.contents?.value ?? '';
  assert.match(value, /- GPU interpret mode: no \(`[^`]+` line \d+: AssertionError \(GPU interpret mode copies each operand .*asserts that every block is the whole array/, value);
  assert.doesNotMatch(value, /AssertionError: \)|AssertionError: $/m);
});

test('code links point at the repository the extension names', async () => {
  const manifest = JSON.parse(readFileSync(join(editorsTestDir, '..', '..', 'editors', 'vscode', 'package.json'), 'utf8'));
  const repository = manifest.repository.url.replace(/\.git$/, '');
  const finding = diagnostics.find((d) => d.codeDescription);
  assert.ok(finding.codeDescription.href.startsWith(`${repository}/`), `${finding.codeDescription.href} vs ${repository}`);
});

test('a notebook offers no "Run ... now" action (the runner runs files)', async () => {
  const nbUri = pathToFileURL(join(dir, 'paths.ipynb')).toString();
  const cells = [text];
  const cellUri = `vscode-notebook-cell:${join(dir, 'paths.ipynb')}#cell0`;
  await session.notify('notebookDocument/didOpen', {
    notebookDocument: { uri: nbUri, notebookType: 'jupyter-notebook', version: 1, cells: [{ kind: 2, document: cellUri }] },
    cellTextDocuments: [{ uri: cellUri, languageId: 'python', version: 1, text: cells[0] }],
  });
  const published = await session.waitFor(() => (session.published.get(cellUri) ?? []).find((p) => p.diagnostics.some((d) => d.code === 'PLS001')),
    'findings on the cell', DIAGNOSTIC_TIMEOUT_MS);
  const finding = published.diagnostics.find((d) => d.code === 'PLS001' && d.severity !== 4);
  const actions = await session.request('textDocument/codeAction', {
    textDocument: { uri: cellUri },
    range: finding.range,
    context: { diagnostics: [finding], triggerKind: 1 },
  });
  assert.ok(actions.length > 0, 'the cell has fixes');
  assert.deepEqual(actions.filter((a) => a.command?.command === 'pallas.run').map((a) => a.title), [],
    'no run actions in a notebook');
  assert.deepEqual((finding.data?.fixes ?? []).filter((f) => f.command?.command === 'pallas.run'), [],
    'nor run fixes in the cell\'s diagnostic data');
  await session.notify('notebookDocument/didClose', { notebookDocument: { uri: nbUri }, cellTextDocuments: [{ uri: cellUri }] });
});

// A stand-in for ssh / srun: it runs the command with only stdin, stdout and
// stderr (every other descriptor closed), as they do.
const FORWARD_ONLY_STDIO = `#!/usr/bin/env python3
import os, sys
os.closerange(3, 65536)
os.execvp(sys.argv[1], sys.argv[1:])
`;

const PRINTING_KERNEL = `import os
import time
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_one(x_ref, o_ref):
  o_ref[...] = x_ref[...] + 1.0


def main():
  print("step 1 of 2", flush=True)
  # Waits until the test saw step 1 while the run was still going.
  for _ in range(600):
    if os.path.exists(GO_FILE):
      break
    time.sleep(0.1)
  x = jnp.ones((128,), jnp.float32)
  y = pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
  print("step 2 of 2", flush=True)
  return y
`;

test('a run through a template that forwards only stdin, stdout and stderr works, with live output', { timeout: RUN_TIMEOUT_MS }, async () => {
  const forward = join(dir, 'forward-only-stdio');
  writeFileSync(forward, FORWARD_ONLY_STDIO);
  chmodSync(forward, 0o755);
  const go = join(dir, 'go');
  const file = join(dir, 'printing.py');
  writeFileSync(file, PRINTING_KERNEL.replace('GO_FILE', JSON.stringify(go)));
  const printingUri = await session.open(file);
  settings.runner = { launchTemplate: `${forward} {cmd}`, timeoutSeconds: 200 };
  await session.notify('workspace/didChangeConfiguration', { settings: { pallasLsp: settings } });
  const live = [];
  let replied = false;
  session.connection.onNotification('pallas/runOutput', (p) => {
    live.push({ text: p.text, beforeReply: !replied });
    if (p.text.includes('step 1 of 2')) {
      writeFileSync(go, '');
    }
  });
  const result = await session.request('workspace/executeCommand', {
    command: 'pallas.run',
    arguments: [{ uri: printingUri, entry: 'main', mode: 'interpret' }],
  });
  replied = true;
  assert.equal(result?.status, 'succeeded', JSON.stringify(result, null, 1)?.slice(0, 3000));
  assert.doesNotMatch(JSON.stringify(result), /Bad file descriptor|cannot open the result channel/);
  assert.match(result.stdout, /step 1 of 2\nstep 2 of 2/, 'what the entry printed is the run\'s stdout');
  assert.ok(live.some((o) => o.text.includes('step 1 of 2') && o.beforeReply), `step 1 arrived live: ${JSON.stringify(live)}`);
  settings.runner = { launchTemplate: null };
  await session.notify('workspace/didChangeConfiguration', { settings: { pallasLsp: settings } });
});
