// Unit tests of the VS Code extension's modules that do not need VS Code
// (entry selection, server lookup, doctor-text parsing), run against the
// compiled output in editors/vscode/out (the suite runs tsc first).
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { editorsTestDir } from './lib/fixture.mjs';

const require = createRequire(import.meta.url);
const out = join(editorsTestDir, '..', '..', 'editors', 'vscode', 'out');
const { enclosingTopLevelFunction, topLevelFunctions } = require(join(out, 'entry.js'));
const { resolveServer, searchPath } = require(join(out, 'serverPath.js'));

const source = [
  'import jax',            // 0
  '',                      // 1
  '@jax.jit',              // 2
  'def kernel(x_ref):',    // 3
  '  y = (1 +',            // 4
  ')',                     // 5
  '  return y',            // 6
  '',                      // 7
  'async def main():',     // 8
  '  pass',                // 9
  'X = 1',                 // 10
];

test('topLevelFunctions lists column-0 defs only', () => {
  assert.deepEqual(topLevelFunctions([...source, '  def inner():']), [
    { name: 'kernel', line: 3 },
    { name: 'main', line: 8 },
  ]);
});

test('enclosingTopLevelFunction follows bodies, decorators and statements', () => {
  assert.equal(enclosingTopLevelFunction(source, 6), 'kernel', 'inside the body, past a closing bracket');
  assert.equal(enclosingTopLevelFunction(source, 2), 'kernel', 'on the decorator');
  assert.equal(enclosingTopLevelFunction(source, 7), 'kernel', 'blank line after the body');
  assert.equal(enclosingTopLevelFunction(source, 9), 'main');
  assert.equal(enclosingTopLevelFunction(source, 10), undefined, 'a module-level statement');
  assert.equal(enclosingTopLevelFunction(source, 0), undefined);
  assert.equal(enclosingTopLevelFunction(source, 99), undefined);
});

function executable(path) {
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
}

test('resolveServer: setting, then the interpreter\'s environment, then PATH', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pallas-vscode-'));
  const savedPath = process.env.PATH;
  try {
    const venvBin = join(dir, 'venv', 'bin');
    const onPath = join(dir, 'path');
    mkdirSync(venvBin, { recursive: true });
    mkdirSync(onPath);
    executable(join(onPath, 'pallas-lsp'));
    process.env.PATH = onPath;
    const python = join(venvBin, 'python');

    assert.deepEqual(resolveServer('/opt/x/pallas-lsp', python), { command: '/opt/x/pallas-lsp', source: 'setting' });
    assert.deepEqual(resolveServer(undefined, python), { command: join(onPath, 'pallas-lsp'), source: 'PATH' },
      'no pallas-lsp in the environment yet');
    executable(join(venvBin, 'pallas-lsp'));
    assert.deepEqual(resolveServer(undefined, python), { command: join(venvBin, 'pallas-lsp'), source: 'python-environment' });
    assert.deepEqual(resolveServer(undefined, 'python3'), { command: join(onPath, 'pallas-lsp'), source: 'PATH' },
      'a bare interpreter name says nothing about an environment');
    process.env.PATH = join(dir, 'empty');
    assert.deepEqual(resolveServer(undefined, undefined), { command: 'pallas-lsp', source: 'fallback' });
    assert.equal(searchPath('pallas-lsp', `${join(dir, 'nope')}:${onPath}`), join(onPath, 'pallas-lsp'));
  } finally {
    process.env.PATH = savedPath;
    rmSync(dir, { recursive: true, force: true });
  }
});

const { describeGpu, parseDoctorText } = require(join(out, 'statusText.js'));

test('describeGpu names the first GPU and counts the rest', () => {
  assert.equal(describeGpu({ gpus: [] }), 'no GPU');
  assert.equal(describeGpu({ gpus: [{ name: 'NVIDIA H100', computeCapability: [9, 0] }] }), 'NVIDIA H100 (sm 9.0)');
  assert.equal(describeGpu({ gpus: [{ name: 'A' }, { name: 'B' }] }), 'A +1');
  assert.equal(describeGpu({ gpu: 'H200' }), 'H200');
  assert.equal(describeGpu({}), undefined);
});

test('parseDoctorText finds the JAX version and the GPU or its absence', () => {
  assert.deepEqual(parseDoctorText('python: /x/bin/python\njax: 0.10.2 (jaxlib 0.10.2)\nGPU 0: NVIDIA H200 (sm_90)\n'), {
    jaxVersion: '0.10.2',
    gpu: 'NVIDIA H200 (sm_90)',
  });
  assert.deepEqual(parseDoctorText('JAX version 0.12.0.dev1\nNo CUDA driver found (libcuda.so.1)'), {
    jaxVersion: '0.12.0.dev1',
    gpu: 'no GPU',
  });
  assert.deepEqual(parseDoctorText('nothing useful'), {});
});

const { bundledServer } = require(join(out, 'serverPath.js'));

test('resolveServer: the bundled binary is the last fallback, and the only choice when untrusted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pallas-vscode-'));
  const savedPath = process.env.PATH;
  try {
    const extensionDir = join(dir, 'extension');
    const venvBin = join(dir, 'venv', 'bin');
    const onPath = join(dir, 'path');
    mkdirSync(venvBin, { recursive: true });
    mkdirSync(onPath);
    assert.equal(bundledServer(extensionDir), undefined, 'a universal .vsix has no bundled/');
    mkdirSync(join(extensionDir, 'bundled', 'bin'), { recursive: true });
    const bundled = join(extensionDir, 'bundled', 'bin', 'pallas-lsp');
    writeFileSync(bundled, '#!/bin/sh\n');
    assert.equal(bundledServer(extensionDir), undefined, 'not executable: not a server');
    executable(bundled);
    assert.equal(bundledServer(extensionDir), bundled);
    const python = join(venvBin, 'python');
    process.env.PATH = join(dir, 'empty');
    assert.deepEqual(resolveServer(undefined, python, { bundled, trusted: true }), { command: bundled, source: 'bundled' },
      'nothing else found');
    executable(join(onPath, 'pallas-lsp'));
    process.env.PATH = onPath;
    assert.deepEqual(resolveServer(undefined, python, { bundled, trusted: true }), { command: join(onPath, 'pallas-lsp'), source: 'PATH' },
      'PATH before the bundled binary');
    executable(join(venvBin, 'pallas-lsp'));
    assert.deepEqual(resolveServer(undefined, python, { bundled, trusted: true }).source, 'python-environment');
    assert.deepEqual(resolveServer('/opt/x/pallas-lsp', python, { bundled, trusted: true }).source, 'setting');
    assert.deepEqual(resolveServer('/opt/x/pallas-lsp', python, { bundled, trusted: false }), { command: bundled, source: 'bundled' },
      'untrusted: neither the settings nor the workspace\'s environments nor PATH choose the executable');
    assert.deepEqual(resolveServer(undefined, undefined, { trusted: false }), { command: join(onPath, 'pallas-lsp'), source: 'PATH' },
      'untrusted without a bundled binary: PATH, as before');
  } finally {
    process.env.PATH = savedPath;
    rmSync(dir, { recursive: true, force: true });
  }
});

const { installedServerPath, pipInstallArgs, requirementFor } = require(join(out, 'install.js'));

test('install: the wheel of the extension\'s own version, into the interpreter\'s environment', () => {
  assert.equal(requirementFor('0.1.0'), 'pallas-lsp==0.1.0');
  assert.deepEqual(pipInstallArgs('pallas-lsp==0.1.0'), ['-m', 'pip', 'install', '--disable-pip-version-check', 'pallas-lsp==0.1.0']);
  assert.equal(installedServerPath('/p/venv/bin/python'), '/p/venv/bin/pallas-lsp');
});

const { CrashPolicy } = require(join(out, 'crashPolicy.js'));

test('CrashPolicy: one automatic restart per window, then stop; a user restart forgets', () => {
  let now = 0;
  const policy = new CrashPolicy(1, 1000, () => now);
  assert.equal(policy.onCrash(), 'restart');
  now = 500;
  assert.equal(policy.onCrash(), 'stop', 'a second crash within the window');
  assert.equal(policy.recentCrashes(), 2);
  now = 2000;
  assert.equal(policy.onCrash(), 'restart', 'the old crashes left the window');
  policy.reset();
  assert.equal(policy.onCrash(), 'restart');
});

const { RunOwner, runKey } = require(join(out, 'runOwner.js'));

test('RunOwner: one run per kernel, cancel one or all', () => {
  const owner = new RunOwner();
  const a = owner.begin(runKey('file:///k.py', 'run'));
  assert.ok(a);
  assert.equal(owner.begin(runKey('file:///k.py', 'run')), undefined, 'the same kernel again');
  const b = owner.begin(runKey('file:///k.py', 'other'));
  assert.ok(b, 'another kernel may run');
  let cancelled = 0;
  a.onCancel(() => cancelled++);
  assert.equal(owner.cancel(runKey('file:///k.py', 'run')), 1);
  assert.equal(a.cancelled, true);
  assert.equal(b.cancelled, false);
  assert.equal(owner.cancel(), 1, 'cancel all: only b is left uncancelled');
  assert.equal(cancelled, 1);
  a.end();
  assert.ok(owner.begin(runKey('file:///k.py', 'run')), 'free again after the run ended');
});

const { runHeadline, runReport, runSeverity } = require(join(out, 'runResult.js'));

test('runResult: severity from the status, a short headline, the whole report', () => {
  const args = { uri: 'file:///p/k.py', entry: 'main', mode: 'interpret' };
  const failed = {
    status: 'failed',
    message: 'the entry raised',
    stdout: 'hello\n',
    modes: [{ mode: 'interpret', ok: false, timing: { compile_s: 0.5, run_s_median: null, runs: 0, method: '' },
      outputs: [], error: { type: 'NotImplementedError', message: 'inline_mgpu is not supported in interpret mode ' + 'x'.repeat(200),
        frames: [{ file: '/p/k.py', line: 7, function: 'main', user: true }, { file: '/jax/x.py', line: 1, function: 'f', user: false }] } }],
    comparisons: [],
  };
  assert.equal(runSeverity(failed), 'error');
  assert.equal(runSeverity({ status: 'succeeded' }), 'info');
  assert.equal(runSeverity({ status: 'cancelled' }), 'warning');
  assert.equal(runSeverity(undefined), 'error');
  const headline = runHeadline(args, failed);
  assert.ok(headline.length <= 100, headline);
  assert.match(headline, /^Pallas: main \(interpret\) failed: NotImplementedError: inline_mgpu/);
  assert.equal(runHeadline(args, { status: 'succeeded' }), 'Pallas: main (interpret) succeeded');
  const report = runReport(args, '/p/k.py', failed);
  assert.match(report, /^--- interpret run of main \(\/p\/k\.py\): failed\n/);
  assert.match(report, /stdout:\n  hello\n/);
  assert.match(report, /\[interpret\] FAILED first call 0\.5000 s/);
  assert.match(report, /\/p\/k\.py:7 in main/);
  assert.doesNotMatch(report, /\/jax\/x\.py/, 'only the user\'s frames');

  // A compare run: per output the largest differences and, from its heat map, the worst element.
  const compared = runReport({ ...args, mode: 'compare' }, '/p/k.py', {
    status: 'succeeded',
    modes: [{ mode: 'compiled', ok: true, outputs: [] }, { mode: 'interpret', ok: true, outputs: [] }],
    comparisons: [{ path: '[0]', comparable: true, max_abs_diff: 0.25, max_rel_diff: 0.2, note: '',
      heat_map: { shape: [2, 2], view: [2, 2], grid: [2, 2], block: [1, 1], kind: 'abs', abs: [[0, 0], [0.25, 0]],
        max: 0.25, mean: 0.0625, differing: 1, worst: { index: [1, 0], abs: 0.25, rel: 0.2, first: 1.25, second: 1 } } }],
  });
  assert.match(compared, /compare out\[0\]: max \|compiled - interpret\| 0\.2500, max rel 0\.2000; worst element \[1, 0\]: compiled 1\.25, interpret 1, \|diff\| 0\.25, relative 0\.2\n/);
});

test('runResult: an entry that returns None or a non-array says so, not an empty array row', () => {
  const args = { uri: 'file:///p/k.py', entry: 'main', mode: 'interpret' };
  const report = runReport(args, '/p/k.py', {
    status: 'succeeded',
    modes: [{ mode: 'interpret', ok: true, outputs: [{ path: '', kind: 'none' }, { path: '[1]', kind: 'other', type: 'str' }] }],
  });
  assert.match(report, /  out: None\n/);
  assert.match(report, /  out\[1\]: a str \(not an array\)/);
  assert.doesNotMatch(report, /\[\]/);
});

test('runResult: a failure headline spends its room on the reason, not on paths (issue 35)', () => {
  const args = { uri: 'file:///p/k.py', entry: 'run', mode: 'interpret' };
  const deep = '/home/someone/projects/a-rather-long-project-name/src/kernels/attention/flash';
  // A setup error (JAX not importable): the run's message starts with the file's path.
  const notFound = {
    status: 'failed', file: `${deep}/kernel.py`, entry: 'run', mode: 'interpret',
    message: `${deep}/kernel.py::run (interpret) could not start: JaxNotFound: ${deep}/.venv/bin/python cannot import jax`,
    setup_error: { type: 'JaxNotFound', message: `the interpreter ${deep}/.venv/bin/python cannot import jax (No module named 'jax')` },
    modes: [],
  };
  const headline = runHeadline(args, notFound);
  assert.ok(headline.length <= 100, headline);
  assert.match(headline, /^Pallas: run \(interpret\) failed: JaxNotFound: the interpreter python cannot import jax/);
  assert.doesNotMatch(headline, /\/home\//);
  // No error objects: the run's message without the "<file>::<entry> (<mode>)" it starts with.
  const crashed = { status: 'crashed', file: `${deep}/kernel.py`, entry: 'run', mode: 'interpret',
    message: `${deep}/kernel.py::run (interpret) the Python process was killed by SIGKILL` };
  assert.match(runHeadline(args, crashed), /^Pallas: run \(interpret\) crashed: the Python process was killed by SIGKILL$/);
  assert.equal(runHeadline(args, { status: 'cancelled', message: 'x was cancelled' }), 'Pallas: run (interpret) cancelled');
});

const { describeJax } = require(join(out, 'statusText.js'));

test('describeJax: what runs use apart from what the analysis reads (issue 35)', () => {
  assert.equal(describeJax({ jaxVersion: '0.10.2' }), 'JAX 0.10.2');
  const analysis = { jaxVersion: '0.10.2', how: 'bundled' };
  assert.equal(describeJax({ jaxVersion: '0.10.2', analysis, runs: { state: 'ready', jaxVersion: '0.10.2' } }), 'JAX 0.10.2');
  assert.equal(describeJax({ jaxVersion: '0.10.2', analysis, runs: { state: 'no-jax', python: 'python3' } }),
    'analysis JAX 0.10.2 · runs: no JAX');
  assert.equal(describeJax({ analysis, runs: { state: 'ready', jaxVersion: '0.9.0' } }), 'analysis JAX 0.10.2 · runs JAX 0.9.0');
  assert.equal(describeJax({ analysis, runs: { state: 'template', via: 'ssh' } }), 'analysis JAX 0.10.2 · runs via ssh');
  assert.equal(describeJax({ analysis, runs: { state: 'refused' } }), 'analysis JAX 0.10.2 · runs off');
});

test('the pallasLsp.python setting says what docs/editors.md says (issue 35)', async () => {
  const { readFileSync } = await import('node:fs');
  const manifest = JSON.parse(readFileSync(join(editorsTestDir, '..', '..', 'editors', 'vscode', 'package.json'), 'utf8'));
  const description = manifest.contributes.configuration.properties['pallasLsp.python'].markdownDescription;
  const docs = readFileSync(join(editorsTestDir, '..', '..', 'docs', 'editors.md'), 'utf8');
  const row = docs.split('\n').find((l) => l.startsWith('| `pallasLsp.python` |'));
  assert.ok(row, 'docs/editors.md has a pallasLsp.python row');
  for (const fact of ['[tool.pallas-lsp] python', 'Python extension', '.venv', 'python3', 'untrusted']) {
    assert.ok(description.includes(fact), `package.json's description names ${fact}: ${description}`);
    assert.ok(row.includes(fact), `docs/editors.md's row names ${fact}: ${row}`);
  }
  assert.doesNotMatch(description, /else `python3` on `PATH`\.$/, 'not the old contradicting text');
});

const { describeStartFailure } = require(join(out, 'startFailure.js'));

test('describeStartFailure: what went wrong and what fixes it', () => {
  const enoent = Object.assign(new Error('Launching server using command /x/pallas-lsp failed.'), { code: 'ENOENT' });
  const missing = describeStartFailure(enoent, 'pallas-lsp', 'fallback', true);
  assert.match(missing.message, /no pallas-lsp executable was found.*build-wheel\.sh.*pallasLsp\.path/);
  assert.doesNotMatch(missing.message, /pip install pallas-lsp\b/);
  assert.deepEqual(missing.actions, ['Install from a wheel…', 'Open settings', 'Show output']);
  assert.deepEqual(describeStartFailure(enoent, 'pallas-lsp', 'fallback', false).actions, ['Open settings', 'Show output']);
  assert.match(describeStartFailure(enoent, '/x/pallas-lsp', 'setting', false).message, /"pallasLsp\.path" names \/x\/pallas-lsp/);
  const other = describeStartFailure(new Error('initialize failed\nstack...'), '/v/bin/pallas-lsp', 'python-environment', false);
  assert.equal(other.message, 'Pallas LSP: the server (/v/bin/pallas-lsp) did not start: initialize failed');
});

const { interpreterFrom, subscribeInterpreterChanges } = require(join(out, 'pythonApis.js'));

test('interpreterFrom: Python Environments, then the typed API, then execution details; broken APIs fall through', async () => {
  const folder = { fsPath: '/ws/a' };
  const envs = { getEnvironment: async (scope) => (scope === folder ? { execInfo: { run: { executable: '/ws/a/.venv/bin/python' } } } : undefined) };
  const typed = {
    environments: {
      getActiveEnvironmentPath: (r) => ({ path: r === folder ? '/ws/a/env' : '/usr' }),
      resolveEnvironment: async (e) => ({ executable: { uri: { fsPath: `${e.path}/bin/python3` } } }),
    },
    settings: { getExecutionDetails: () => ({ execCommand: ['/old/python', '-X'] }) },
  };
  assert.deepEqual(await interpreterFrom(envs, typed, folder), { path: '/ws/a/.venv/bin/python', source: 'python-environments' });
  assert.deepEqual(await interpreterFrom(envs, typed, { fsPath: '/ws/b' }), { path: '/usr/bin/python3', source: 'python-extension' },
    'the environments extension knows nothing of this folder');
  const throwing = { getEnvironment: async () => { throw new Error('not ready'); } };
  assert.deepEqual(await interpreterFrom(throwing, typed, folder), { path: '/ws/a/env/bin/python3', source: 'python-extension' });
  assert.deepEqual(await interpreterFrom(undefined, { settings: typed.settings }), { path: '/old/python', source: 'python-extension' });
  assert.equal(await interpreterFrom(undefined, undefined), undefined, 'no Python extension: unknown, no exception');
  assert.equal(await interpreterFrom(undefined, { environments: { getActiveEnvironmentPath: () => { throw new Error('x'); } } }), undefined);
  const seen = [];
  let fire;
  const subs = subscribeInterpreterChanges(
    { getEnvironment: async () => undefined, onDidChangeEnvironment: (l) => ((fire = l), { dispose() {} }) },
    undefined,
    (scope) => seen.push(scope),
  );
  assert.equal(subs.length, 1);
  fire({ uri: folder });
  assert.deepEqual(seen, [folder]);
});

const { compareHtml, compareRows, heat } = require(join(out, 'compareHtml.js'));

test('compare view: one row per compared output, tinted by the difference, escaped', () => {
  const result = {
    status: 'succeeded',
    modes: [
      { mode: 'compiled', outputs: [{ path: '[0]', dtype: 'float32', shape: [4], sum: 10 }] },
      { mode: 'interpret', outputs: [{ path: '[0]', dtype: 'float32', shape: [4], sum: 10.001 }] },
    ],
    comparisons: [
      { path: '[0]', comparable: true, max_abs_diff: 0.001, max_rel_diff: 1e-4, note: '' },
      { path: '[1]', comparable: false, max_abs_diff: null, max_rel_diff: null, note: '<shape differs>' },
    ],
  };
  const rows = compareRows(result);
  assert.equal(rows.length, 2);
  assert.equal(rows[0].first, 'float32[4] sum 10.0000');
  assert.equal(rows[0].maxRel, 1e-4);
  assert.equal(rows[1].maxAbs, undefined);
  assert.ok(heat(rows[0]) > 0 && heat(rows[0]) < 1);
  assert.equal(heat(rows[1]), 1);
  assert.equal(heat({ maxRel: 0 }), 0);
  const html = compareHtml({ uri: 'file:///k.py', entry: 'main<script>', mode: 'compare' }, result);
  assert.doesNotMatch(html, /<script>/, 'escaped');
  assert.match(html, /not comparable: &#60;shape differs&#62;/);
  assert.equal((html.match(/<tr style=/g) ?? []).length, 2);
});

// Issue 15: a heat map of |compiled - interpret| per output under the table.
const heatMaps = require(join(out, 'heatMapHtml.js'));

/** The heat map cells of one output in the page: [{ colour, title, worst }] in row-major order. */
function cellsOf(html, path) {
  const start = html.indexOf(`<figure class="heat" data-path="${path}">`);
  assert.ok(start >= 0, `a heat map for out${path}`);
  const figure = html.slice(start, html.indexOf('</figure>', start));
  return [...figure.matchAll(/<i( class="worst")? style="background:(#[0-9a-f]{6})" title="([^"]*)"><\/i>/g)].map((m) => ({
    worst: Boolean(m[1]),
    colour: m[2],
    title: m[3].replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))),
  }));
}

const heatResult = {
  status: 'succeeded',
  modes: [
    { mode: 'compiled', outputs: [{ path: "['o']", dtype: 'float32', shape: [2, 3], sum: 1 }, { path: '[1]', dtype: 'int32', shape: [4] }] },
    { mode: 'interpret', outputs: [{ path: "['o']", dtype: 'float32', shape: [2, 3], sum: 4 }, { path: '[1]', dtype: 'int32', shape: [4] }] },
  ],
  comparisons: [
    {
      path: "['o']", comparable: true, max_abs_diff: null, max_rel_diff: null, note: 'NaN on one side only at 1 element(s)',
      heat_map: {
        shape: [2, 3], view: [2, 3], grid: [2, 3], block: [1, 1], kind: 'abs',
        abs: [[0, 1, 2], [0.5, null, 0]], rel: [[0, 0.1, 0.5], [0.2, null, 0]],
        max: null, mean: null, differing: 4,
        worst: { index: [1, 1], abs: null, rel: null, first: 'nan', second: 3.25 },
      },
    },
    {
      path: '[1]', comparable: true, max_abs_diff: 7, max_rel_diff: 0.5, note: '',
      heat_map: {
        shape: [4], view: [1, 4], grid: [1, 2], block: [1, 2], kind: 'mismatch',
        abs: [[0, 1]], max: 1, mean: 0.25, differing: 1,
        worst: { index: [3], abs: 1, first: 7, second: 0 },
      },
    },
  ],
};

test('compare view: a heat map per output, each cell coloured by its value on the legend\'s scale', () => {
  const html = compareHtml({ uri: 'file:///k.py', entry: 'main', mode: 'compare' }, heatResult);
  // The scale's ends and middle are the ramp's stops: blue, pale yellow, red; NaN on one side is magenta.
  const [blue, yellow, red] = [heatMaps.heatColour(0), heatMaps.heatColour(0.5), heatMaps.heatColour(1)];
  assert.deepEqual([blue, yellow, red], ['#313695', '#ffffbf', '#a50026']);
  const cells = cellsOf(html, "[&#39;o&#39;]");
  assert.equal(cells.length, 6, 'one cell per grid cell (2x3)');
  // abs [[0, 1, 2], [0.5, null, 0]] on the scale 0..2.
  assert.deepEqual(cells.map((c) => c.colour), [blue, yellow, red, heatMaps.heatColour(0.25), heatMaps.INFINITE_COLOUR, blue]);
  assert.match(cells[2].title, /^rows 0, cols 2: max \|diff\| 2, max relative 0\.5$/);
  assert.match(cells[3].title, /^rows 1, cols 0: max \|diff\| 0\.5, max relative 0\.2$/);
  // The worst element's cell is outlined and names the element, both values and the difference.
  assert.deepEqual(cells.map((c) => c.worst), [false, false, false, false, true, false]);
  assert.match(cells[4].title, /max \|diff\| ∞, max relative ∞\nworst element \[1, 1\]: compiled nan, interpret 3\.25, \|diff\| ∞/);
  // The legend: lowest .. highest cell, the ramp, and the NaN swatch; shape and block in the caption.
  const figure = html.slice(html.indexOf('data-path="[&#39;o&#39;]"'));
  assert.match(figure, /<span class="lo">0<\/span><span class="bar" style="background:linear-gradient\(to right, #313695 0%, #ffffbf 50%, #a50026 100%\)"><\/span><span class="hi">2<\/span>/);
  assert.match(figure, /NaN on one side only/);
  assert.match(figure, /shape \[2, 3\], 2×3 cells of 1×1 element\(s\)/);

  // An int output: a mismatch map (equal / differs), blocks of two elements.
  const ints = cellsOf(html, '[1]');
  assert.deepEqual(ints.map((c) => c.colour), [blue, red]);
  assert.match(ints[1].title, /^rows 0, cols 2–3: differs \(1\) or not \(0\) 1\nfirst mismatch at \[3\]: compiled 7, interpret 0$/);
  assert.ok(ints[1].worst && !ints[0].worst);
  assert.match(html, /shape \[4\] as one row, 1×2 cells of 1×2 element\(s\)/);
  // Still the table, and still no scripts or resources (the view's CSP).
  assert.equal((html.match(/<tr style=/g) ?? []).length, 2);
  assert.doesNotMatch(html, /<script|https?:|src=/);
});

test('compare view: heat maps name the compared modes, bound their size and skip broken maps', () => {
  const other = structuredClone(heatResult);
  other.modes[0].mode = 'interpret';
  other.modes[1].mode = 'gpu-interpret';
  const html = compareHtml({ uri: 'file:///k.py', entry: 'main', mode: 'compare' }, other);
  assert.match(html, /<h3>main: interpret vs gpu-interpret/);
  assert.match(html, /\|interpret − gpu-interpret\|/);
  assert.match(html, /<td>int32\[4\]<\/td><td>int32\[4\]<\/td>/, 'the table\'s columns are the two modes');
  // A map whose cells do not match its grid, or one larger than the view draws, is left out, not misdrawn.
  other.comparisons[0].heat_map.abs.pop();
  other.comparisons[1].heat_map.grid = [1, 1000];
  other.comparisons[1].heat_map.abs = [Array(1000).fill(0)];
  assert.equal(heatMaps.parseHeatMap(other.comparisons[0].heat_map), undefined);
  assert.equal(heatMaps.parseHeatMap(other.comparisons[1].heat_map), undefined);
  assert.doesNotMatch(compareHtml({ uri: 'file:///k.py', entry: 'main', mode: 'compare' }, other), /<figure/);
  // Where an element of a rank-3 output lands: leading dims merged into rows, then the block.
  const map = heatMaps.parseHeatMap({ shape: [2, 3, 8], view: [6, 8], grid: [3, 2], block: [2, 4], kind: 'abs',
    abs: [[0, 0], [0, 0], [0, 0]], max: 0, mean: 0 });
  assert.deepEqual(heatMaps.cellOf(map, [1, 2, 5]), [2, 1]);
  assert.deepEqual(heatMaps.cellOf(map, [0, 1, 3]), [0, 0]);
  assert.equal(heatMaps.cellOf(map, [2, 0, 0]), undefined);
});
