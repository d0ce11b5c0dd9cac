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
