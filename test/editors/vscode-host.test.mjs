// The VS Code extension's real bundle (esbuild of editors/vscode/src) with
// the real vscode-languageclient, against the real pallas-lsp binary and real
// JAX, in a stand-in extension host (lib/vscodeHost.mjs: VS Code itself cannot
// be downloaded here). What is checked is what a user sees: the messages and
// their actions, progress notifications, output channels, the language
// status item, diagnostics, and which server processes run.
//
//   PALLAS_LSP_BIN=build/server/pallas-lsp PALLAS_LSP_PYTHON=.venv/bin/python \
//     node --test test/editors/vscode-host.test.mjs
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { editorsTestDir } from './lib/fixture.mjs';
import { createHost, until } from './lib/vscodeHost.mjs';

const bin = process.env.PALLAS_LSP_BIN;
const python = process.env.PALLAS_LSP_PYTHON;
const extensionSrc = join(editorsTestDir, '..', '..', 'editors', 'vscode');
let work;
let bundleDir;

before(() => {
  assert.ok(bin && python, 'PALLAS_LSP_BIN and PALLAS_LSP_PYTHON must be set');
  work = mkdtempSync(join(tmpdir(), 'pallas-vscode-host-'));
  // The shipped bundle's recipe (package.json "bundle"), unminified for readable stacks.
  bundleDir = join(work, 'extension');
  mkdirSync(join(bundleDir, 'dist'), { recursive: true });
  execFileSync(
    join(extensionSrc, 'node_modules', '.bin', 'esbuild'),
    ['src/extension.ts', '--bundle', `--outfile=${join(bundleDir, 'dist', 'extension.js')}`, '--external:vscode',
      '--format=cjs', '--platform=node', '--target=node18', '--log-level=warning'],
    { cwd: extensionSrc },
  );
  copyFileSync(join(extensionSrc, 'package.json'), join(bundleDir, 'package.json'));
});

after(() => rmSync(work, { recursive: true, force: true }));

function project(name) {
  const dir = join(work, name);
  cpSync(join(editorsTestDir, 'fixtures', 'project'), dir, { recursive: true });
  return dir;
}

/** pallas-lsp processes this test process started, by pid. */
function serverPids() {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there are no children
  }
  return out
    .split('\n')
    .filter((l) => l.includes(' serve --stdio'))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

async function activate(host) {
  const ext = host.load(join(bundleDir, 'dist', 'extension.js'));
  await ext.activate(host.context(bundleDir));
  return ext;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const running = (item) => item && !item.busy && /^Pallas: JAX /.test(item.text);

test('a failed start shows one message with its fixes, and the server starts once the setting is fixed', async () => {
  const dir = project('failed-start');
  const host = createHost({
    folders: [dir],
    settings: { '*': { 'pallasLsp.path': join(work, 'no-such-pallas-lsp'), 'pallasLsp.python': python } },
  });
  const ext = await activate(host);
  try {
    assert.deepEqual(serverPids(), [], 'no Python file open: no server');
    host.open(join(dir, 'kernel.py'));
    await until(() => host.rec.messages.length > 0, 'the failed-start message');
    await sleep(1000); // a second popup (the client library's own) would come now
    assert.equal(host.rec.messages.length, 1, `one message, got ${JSON.stringify(host.rec.messages)}`);
    const [msg] = host.rec.messages;
    assert.equal(msg.kind, 'error');
    assert.match(msg.text, /pallasLsp\.path.*no-such-pallas-lsp/);
    assert.doesNotMatch(msg.text, /pip install pallas-lsp\b/, 'no install command that does not exist');
    assert.deepEqual(msg.actions, ['Open settings', 'Show output']);
    const [item] = host.rec.statusItems;
    assert.equal(item.text, 'Pallas: not running');
    assert.equal(item.severity, host.vscode.LanguageStatusSeverity.Error);
    assert.equal(item.command?.command, 'pallasLsp.restart', 'the status item offers Restart');

    // "Restart server" after the failure: the lifecycle chain is not poisoned.
    await host.commands.get('pallasLsp.restart')();
    await until(() => host.rec.messages.length === 2, 'the second failed-start message');
    assert.equal(host.rec.messages[1].text, msg.text);

    // Open settings does what it says.
    host.rec.answer = () => 'Open settings';
    await host.commands.get('pallasLsp.restart')();
    await until(() => host.rec.executed.some((c) => c.id === 'workbench.action.openSettings'), 'settings opened');
    host.rec.answer = () => undefined;

    host.setConfig('pallasLsp.path', bin);
    await until(() => running(item), 'the server running after the fix', 60000);
    assert.match(item.detail, /^pallas-lsp \d+\.\d+\.\d+/);
    assert.match(item.text, /JAX \d+\.\d+\.\d+ · (no GPU|.+)/);
    assert.doesNotMatch(item.text + item.detail, /dlopen|libcuda|\.so/, 'no raw probe error in the status');
    const uri = host.vscode.Uri.file(join(dir, 'kernel.py')).toString();
    await until(() => host.rec.diagnostics.get(uri)?.length, 'diagnostics from the started server', 60000);
    assert.equal(serverPids().length, 1);
  } finally {
    await ext.deactivate();
  }
  await until(() => serverPids().length === 0, 'the server stopped on deactivate', 10000);
});

test('a server that keeps crashing is restarted once, then stays stopped with one message', async () => {
  const dir = project('crash');
  const host = createHost({ folders: [dir], settings: { '*': { 'pallasLsp.path': bin, 'pallasLsp.python': python } } });
  const ext = await activate(host);
  try {
    host.open(join(dir, 'kernel.py'));
    const item = await until(() => running(host.rec.statusItems[0]) && host.rec.statusItems[0], 'running', 60000);
    const [first] = await until(() => serverPids().length === 1 && serverPids(), 'one server');
    process.kill(first, 'SIGKILL');
    const [second] = await until(() => {
      const pids = serverPids();
      return pids.length === 1 && pids[0] !== first && pids;
    }, 'the automatic restart', 30000);
    await until(() => running(item), 'running again', 60000);
    assert.equal(host.rec.messages.length, 0, `a single crash is no popup: ${JSON.stringify(host.rec.messages)}`);

    process.kill(second, 'SIGKILL');
    await until(() => host.rec.messages.length > 0, 'the crash message');
    await sleep(3000);
    assert.deepEqual(serverPids(), [], 'no restart loop');
    assert.equal(host.rec.messages.length, 1, JSON.stringify(host.rec.messages));
    assert.equal(host.rec.messages[0].kind, 'error');
    assert.match(host.rec.messages[0].text, /stopped \(it exited 2 times/);
    assert.deepEqual(host.rec.messages[0].actions, ['Restart', 'Show output']);
    assert.equal(item.text, 'Pallas: not running');

    await host.commands.get('pallasLsp.restart')();
    await until(() => running(item), 'running after Restart', 60000);
    assert.equal(serverPids().length, 1);
  } finally {
    await ext.deactivate();
  }
});

test('a code lens run goes through the extension: saved, one progress with the server\'s stages, one result', {
  timeout: 300000,
}, async () => {
  const dir = project('runs');
  const host = createHost({ folders: [dir], settings: { '*': { 'pallasLsp.path': bin, 'pallasLsp.python': python } } });
  const ext = await activate(host);
  try {
    const doc = host.open(join(dir, 'kernel.py'));
    await until(() => running(host.rec.statusItems[0]), 'running', 60000);
    // What a code lens calls: the server's own command, which vscode-languageclient registers.
    const lensCommand = await until(() => host.commands.get('pallas.run'), 'pallas.run registered by the client');
    doc.isDirty = true;
    const uri = host.vscode.Uri.file(join(dir, 'kernel.py')).toString();
    const result = await lensCommand({ uri, entry: 'run', mode: 'interpret' });
    assert.equal(doc.saves, 1, 'the buffer was saved before the run');
    assert.equal(result?.status, 'failed', `the fixture fails under interpret=True as JAX does: ${JSON.stringify(result)?.slice(0, 300)}`);
    assert.equal(host.rec.progress.length, 1, 'one progress notification');
    const [progress] = host.rec.progress;
    assert.equal(progress.location, host.vscode.ProgressLocation.Notification);
    assert.equal(progress.cancellable, true);
    assert.ok(progress.reports.length > 0, 'the server\'s stages arrive in that notification (its workDoneToken)');
    assert.equal(host.rec.messages.length, 1, `one message: ${JSON.stringify(host.rec.messages)}`);
    const [msg] = host.rec.messages;
    assert.equal(msg.kind, 'error', 'severity from the run\'s status');
    assert.ok(msg.text.length <= 100, msg.text);
    assert.match(msg.text, /^Pallas: run \(interpret\) failed: /);
    assert.deepEqual(msg.actions, ['Show results']);
    const runs = host.rec.channels.get('Pallas Runs').text;
    assert.match(runs, /--- interpret run of run \(.*kernel\.py\): failed/);
    assert.match(runs, /kernel\.py:\d+ in /, 'the user\'s frames');
    assert.doesNotMatch(host.rec.channels.get('Pallas LSP').text, /--- interpret run/, 'results are not in the log channel');

    // From the palette: the function at the cursor, the same single path.
    const lines = doc.getText().split('\n');
    const inRun = lines.findIndex((l) => l.startsWith('def run(')) + 1;
    host.vscode.window.activeTextEditor = { document: doc, selection: { active: { line: inRun, character: 2 } } };
    host.rec.messages.length = 0;
    const fromPalette = await host.commands.get('pallasLsp.runInterpreted')();
    assert.equal(fromPalette?.status, 'failed');
    assert.equal(host.rec.progress.length, 2, 'one more progress notification, not two');
    assert.deepEqual(host.rec.messages.map((m) => m.kind), ['error'], 'one message, with the run\'s severity');
    assert.equal((host.rec.channels.get('Pallas Runs').text.match(/--- interpret run of run /g) ?? []).length, 2);

    // A compare run opens the compare view beside the editor (no GPU here: nothing compiled to compare).
    const compared = await lensCommand({ uri, entry: 'run', mode: 'compare' });
    assert.ok(compared?.status, JSON.stringify(compared)?.slice(0, 200));
    assert.equal(host.rec.webviews?.length, 1, 'the compare view');
    assert.match(host.rec.webviews[0].webview.html, /<h3>run: compiled vs interpret/);
    assert.equal((host.rec.webviews[0].webview.html.match(/<tr style=/g) ?? []).length, (compared.comparisons ?? []).length,
      'one row per comparison the run made');
    host.rec.progress.length = 2;

    // One run per kernel: a second request while the first runs is refused, and Cancel run stops the first.
    // (An entry that runs until it is cancelled, so the cancel never races the run's end.)
    writeFileSync(join(dir, 'slow.py'), SLOW_KERNEL);
    const slowUri = host.vscode.Uri.file(join(dir, 'slow.py')).toString();
    host.rec.messages.length = 0;
    const firstRun = lensCommand({ uri: slowUri, entry: 'main', mode: 'interpret' });
    await until(() => host.rec.progress.length === 3, 'the run started');
    const again = await lensCommand({ uri: slowUri, entry: 'main', mode: 'interpret' });
    assert.equal(again, undefined);
    assert.equal(host.rec.progress.length, 3, 'no second progress for the same kernel');
    assert.match(host.rec.messages[0]?.text ?? '', /main is already running/);
    await host.commands.get('pallasLsp.cancelRun')();
    // Cancel goes to the run's progress: the server stops the run and still
    // answers, so what the run printed is kept (issue 35).
    const cancelled = await firstRun;
    assert.ok(cancelled === undefined || cancelled.status === 'cancelled', JSON.stringify(cancelled)?.slice(0, 300));
    assert.equal(host.rec.messages.at(-1).kind, 'warning');
    assert.match(host.rec.messages.at(-1).text, /cancelled/);
    assert.match(host.rec.channels.get('Pallas Runs').text, /run of main( \(.*\))?: cancelled/);

    // The notification's own Cancel button does the same.
    const third = lensCommand({ uri: slowUri, entry: 'main', mode: 'interpret' });
    const progress3 = await until(() => host.rec.progress.length === 4 && host.rec.progress[3], 'the third run');
    progress3.source.cancel();
    const third_ = await third;
    assert.ok(third_ === undefined || third_.status === 'cancelled');
    assert.match(host.rec.messages.at(-1).text, /cancelled/);
    assert.ok(progress3.done);
  } finally {
    await ext.deactivate();
  }
});

// Issue 35: what a run prints is in Pallas Runs while it runs, and a run
// cancelled from VS Code keeps it (the cancel goes to the run's progress, the
// server kills the run and still answers with its output).
const SLOW_KERNEL = `import time
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_one(x_ref, o_ref):
  o_ref[...] = x_ref[...] + 1.0


def main():
  print("started the long run", flush=True)
  time.sleep(300)
  x = jnp.ones((128,), jnp.float32)
  return pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
`;

test('a long run shows its output as it runs, and a cancelled run keeps it', { timeout: 300000 }, async () => {
  const dir = project('slow');
  writeFileSync(join(dir, 'slow.py'), SLOW_KERNEL);
  const host = createHost({ folders: [dir], settings: { '*': { 'pallasLsp.path': bin, 'pallasLsp.python': python } } });
  const ext = await activate(host);
  try {
    host.open(join(dir, 'slow.py'));
    await until(() => running(host.rec.statusItems[0]), 'running', 60000);
    const lensCommand = await until(() => host.commands.get('pallas.run'), 'pallas.run registered by the client');
    const uri = host.vscode.Uri.file(join(dir, 'slow.py')).toString();
    const run = lensCommand({ uri, entry: 'main', mode: 'interpret' });
    const runs = () => host.rec.channels.get('Pallas Runs')?.text ?? '';
    await until(() => runs().includes('started the long run'), 'the output while the run runs', 120000);
    assert.match(runs(), /--- interpret run of main: output as it runs\nstarted the long run/);
    await host.commands.get('pallasLsp.cancelRun')();
    const result = await run;
    assert.equal(result?.status, 'cancelled', JSON.stringify(result)?.slice(0, 400));
    assert.match(result.stdout, /started the long run/, 'the cancelled run\'s result keeps its stdout');
    assert.match(runs(), /--- interpret run of main \(.*slow\.py\): cancelled[\s\S]*stdout:\n  started the long run/);
    assert.equal(host.rec.messages.at(-1).kind, 'warning');
    assert.match(host.rec.messages.at(-1).text, /^Pallas: main \(interpret\) cancelled/);
  } finally {
    await ext.deactivate();
  }
});

// Issue 15: the compare view's heat maps from a real compare run. The compiled
// side needs a GPU, which cannot exist here; the stand-in for it is Mosaic
// GPU's own interpreter: the launch template appends `--compare
// interpret,gpu-interpret` (the runner's last --compare wins), so both sides
// really run, through the real server, runner and extension.
const HEAT_KERNEL = `import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def triple_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0


def main():
    x = jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256) / 7.0
    tripled = pl.pallas_call(triple_kernel, out_shape=jax.ShapeDtypeStruct((16, 256), jnp.float32))(x)
    return {"tripled": tripled, "counts": jnp.arange(10, dtype=jnp.int32)}
`;

test('a compare run shows a heat map per output in the compare view', { timeout: 300000 }, async () => {
  const dir = project('heat');
  writeFileSync(join(dir, 'heat.py'), HEAT_KERNEL);
  const host = createHost({
    folders: [dir],
    settings: {
      '*': {
        'pallasLsp.path': bin,
        'pallasLsp.python': python,
        'pallasLsp.runner.launchTemplate': '{python} {runner} {args} --compare interpret,gpu-interpret',
      },
    },
  });
  const ext = await activate(host);
  const { cellColour, scaleOf, parseHeatMap } = await import(join(extensionSrc, 'out', 'heatMapHtml.js'));
  try {
    host.open(join(dir, 'heat.py'));
    await until(() => running(host.rec.statusItems[0]), 'running', 60000);
    const lensCommand = await until(() => host.commands.get('pallas.run'), 'pallas.run registered by the client');
    const uri = host.vscode.Uri.file(join(dir, 'heat.py')).toString();
    const result = await lensCommand({ uri, entry: 'main', mode: 'compare' });
    assert.equal(result?.status, 'succeeded', JSON.stringify(result)?.slice(0, 600));
    assert.deepEqual(result.comparisons.map((c) => [c.path, c.heat_map?.kind, c.heat_map?.grid]),
      [["['counts']", 'mismatch', [1, 10]], ["['tripled']", 'abs', [16, 64]]], 'a map per output from the runner');
    const html = host.rec.webviews?.[0]?.webview.html ?? '';
    assert.match(html, /<h3>main: interpret vs gpu-interpret \(succeeded\)/);
    for (const c of result.comparisons) {
      const start = html.indexOf(`<figure class="heat" data-path="${c.path.replace(/'/g, '&#39;')}">`);
      assert.ok(start >= 0, `the view draws out${c.path}`);
      const figure = html.slice(start, html.indexOf('</figure>', start));
      const colours = [...figure.matchAll(/<i(?: class="worst")? style="background:(#[0-9a-f]{6})"/g)].map((m) => m[1]);
      const map = parseHeatMap(c.heat_map);
      const { lo, hi } = scaleOf(map);
      assert.deepEqual(colours, map.abs.flat().map((v) => cellColour(v, lo, hi)), `out${c.path}: one cell per value, its colour`);
      assert.match(figure, new RegExp(`shape \\[${c.heat_map.shape.join(', ')}\\]`));
    }
  } finally {
    await ext.deactivate();
  }
});

test('multi-root: one server per folder, each with its own settings', async () => {
  const a = project('root-a');
  const b = project('root-b');
  const host = createHost({
    folders: [a, b],
    settings: { '*': { 'pallasLsp.path': bin, 'pallasLsp.python': python }, [b]: { 'pallasLsp.logLevel': 'debug' } },
  });
  const ext = await activate(host);
  try {
    host.open(join(a, 'kernel.py'));
    host.open(join(b, 'kernel.py'));
    await until(() => host.rec.statusItems.length === 2 && host.rec.statusItems.every(running), 'two servers running', 90000);
    const pids = serverPids();
    assert.equal(pids.length, 2);
    const args = execFileSync('ps', ['-o', 'args=', '-p', pids.join(',')], { encoding: 'utf8' });
    assert.match(args, /--log-level info/, 'folder a: the default');
    assert.match(args, /--log-level debug/, 'folder b: its own setting');
    const [itemA, itemB] = host.rec.statusItems;
    const docA = { uri: host.vscode.Uri.file(join(a, 'kernel.py')), languageId: 'python' };
    assert.ok(host.vscode.languages.match(itemA.selector, docA) > 0 && host.vscode.languages.match(itemB.selector, docA) === 0,
      'each status item is for its own folder');
    for (const f of [a, b]) {
      const uri = host.vscode.Uri.file(join(f, 'kernel.py')).toString();
      await until(() => host.rec.diagnostics.get(uri)?.length, `diagnostics in ${f}`, 60000);
    }
    // A setting of folder b restarts b's server only.
    const pidOf = (folder) =>
      pids.find((p) => execFileSync('readlink', [`/proc/${p}/cwd`], { encoding: 'utf8' }).trim() === folder);
    const pidA = pidOf(a);
    const pidB = pidOf(b);
    assert.ok(pidA && pidB, 'each server runs in its folder');
    host.setConfig('pallasLsp.logLevel', 'warn', b);
    await until(() => {
      const now = serverPids();
      return now.length === 2 && now.includes(pidA) && !now.includes(pidB);
    }, 'b restarted, a untouched', 30000);
  } finally {
    await ext.deactivate();
  }
});

test('a Jupyter notebook: its Python cells are synchronised as one notebook and findings land on their cells', async () => {
  const dir = project('notebook');
  const kernel = readFileSync(join(dir, 'kernel.py'), 'utf8');
  // The fixture's kernel split the way notebooks are written: imports, the
  // kernel, a markdown cell, the launch.
  const at = (needle) => kernel.indexOf(needle);
  const cells = [
    { kind: 'code', text: kernel.slice(at('import jax'), at('def kernel')) },
    { kind: 'code', text: kernel.slice(at('def kernel'), at('def run')) },
    { kind: 'markdown', text: '# Run it\nUnder `interpret=True`.' },
    { kind: 'code', text: kernel.slice(at('def run')) },
  ];
  const host = createHost({ folders: [dir], settings: { '*': { 'pallasLsp.path': bin, 'pallasLsp.python': python } } });
  const ext = await activate(host);
  try {
    const nb = host.openNotebook(join(dir, 'kernels.ipynb'), cells);
    const kernelCell = nb.cellAt(1).document.uri.toString();
    const launchCell = nb.cellAt(3).document.uri.toString();
    const diags = await until(() => host.rec.diagnostics.get(kernelCell)?.length && host.rec.diagnostics.get(kernelCell),
      'diagnostics on the kernel cell', 60000);
    const finding = diags.find((d) => d.code === 'PLS001' || d.code?.value === 'PLS001');
    assert.ok(finding, JSON.stringify(diags));
    const callLine = cells[1].text.split('\n').findIndex((l) => l.includes('double(x_ref, o_ref)'));
    assert.equal(finding.range.start.line, callLine, 'a line of the kernel cell');
    const launchLine = cells[3].text.split('\n').findIndex((l) => l.includes('pl.pallas_call'));
    assert.match(finding.message, new RegExp(`launch at cell 4, line ${launchLine + 1}\\)`));
    const hints = await until(() => host.rec.diagnostics.get(launchCell)?.length && host.rec.diagnostics.get(launchCell),
      'the hint on the launch cell');
    assert.deepEqual(hints.map((h) => h.range.start.line), [launchLine]);
    assert.equal(host.rec.diagnostics.get(nb.cellAt(0).document.uri.toString())?.length ?? 0, 0);
    assert.ok(![...host.rec.diagnostics.keys()].some((u) => u.startsWith('file:') && u.endsWith('.ipynb')),
      'nothing on the notebook file itself');
    assert.equal(serverPids().length, 1, 'the folder\'s one server');
  } finally {
    await ext.deactivate();
  }
});
