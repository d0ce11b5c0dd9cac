#!/usr/bin/env node
// Editor latency, pallas-lsp next to pyright-langserver, in one run: each
// server gets the same scripted session (open a generated 10k-line kernel
// file, then one-character edits typed and deleted in the middle of it) and
// we measure, per edit, the time from sending didChange to receiving
// publishDiagnostics for that document version; plus the open-to-first-
// diagnostics time and resident memory (/proc VmRSS now, VmHWM peak, and the
// RSS of the server's whole process tree).
//
//   node bench/editors/latency.mjs [--edits N] [--lines N] [--module mixed|inline] [--only pallas|pyright] [--json OUT]
// --module inline: the scale module (generate-inline.mjs: every kernel reaches an
// inline_mgpu helper, half under interpret=True; ~160 findings per 10k lines).
// --module smem-over | smem-fit: 200 Mosaic GPU launches in ~6k lines
// (generate-smem.mjs), over the SMEM limit (200 PLS005) or fitting it (none);
// --launches N changes the count, --edit helper types in the helper every
// kernel shares instead of one kernel's body. --module inline --edit
// interpret deletes and retypes the `e` of one launch's interpret=True.
// env: PALLAS_LSP_BIN (default build/server/pallas-lsp), PALLAS_LSP_PYTHON (default .venv/bin/python)
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LspSession, percentile, readRss, treeRssKiB } from '../../test/editors/lib/lsp.mjs';
import { generate as generateMixed } from './generate.mjs';
import { generate as generateInline } from './generate-inline.mjs';
import { generate as generateSmem } from './generate-smem.mjs';
import { cpuMs, serverSpecs } from './servers.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: args } = parseArgs({
  options: {
    edits: { type: 'string', default: '60' },
    lines: { type: 'string', default: '10000' },
    module: { type: 'string', default: 'mixed' },
    launches: { type: 'string', default: '200' },
    edit: { type: 'string', default: 'kernel' },
    only: { type: 'string' },
    json: { type: 'string' },
    'timeout-ms': { type: 'string', default: '60000' },
  },
});
const EDITS = Number(args.edits);
const TIMEOUT_MS = Number(args['timeout-ms']);
const python = process.env.PALLAS_LSP_PYTHON ?? join(root, '.venv', 'bin', 'python');

const servers = serverSpecs(root, python).filter((s) => !args.only || s.name.startsWith(args.only));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// CPU time (user + system, ms) the process has used: per-edit CPU is steadier
// than wall time on a loaded machine (the wall time waits for a core).
async function measure(server, file, generated) {
  if (!existsSync(server.command)) {
    return { name: server.name, error: `not found: ${server.command}` };
  }
  const session = new LspSession(server.command, server.args, {
    cwd: dirname(file),
    configuration: server.configuration,
  });
  try {
    const t0 = performance.now();
    await session.initialize(dirname(file), server.initializationOptions);
    const initializeMs = performance.now() - t0;
    const openAt = performance.now();
    const openCpuBefore = cpuMs(session.proc.pid);
    const uri = await session.open(file);
    const first = await session.diagnosticsFor(uri, 1, TIMEOUT_MS * 3);
    // CPU the server spent from didOpen to the first diagnostics (steadier
    // than wall time on a loaded machine; the analysis uses up to 2 threads).
    const openCpuMs = cpuMs(session.proc.pid) - openCpuBefore;
    const openMs = first.at - openAt;
    const findings = first.diagnostics.length;
    // pallas-lsp publishes a document's first diagnostics before their fixes
    // are computed, then again with them (same version): when the second
    // publish came (= openMs for a server that publishes once).
    let openWithFixesMs = openMs;
    if (first.diagnostics.some((d) => d.data && Array.isArray(d.data.fixes))) {
      const fixed = await session
        .waitFor(
          () =>
            (session.published.get(uri) ?? []).find(
              (p) => p.version === 1 && p.diagnostics.some((d) => d.data?.fixes?.length),
            ),
          'diagnostics with fixes for version 1',
          TIMEOUT_MS,
        )
        .catch(() => null);
      openWithFixesMs = fixed ? fixed.at - openAt : NaN;
    }
    const latencies = [];
    let missed = 0;
    const cpuBefore = cpuMs(session.proc.pid);
    for (let i = 0; i < EDITS; i++) {
      // Type one character after the literal, then delete it: the file stays
      // valid and the same size, as in a typing session.
      // (--edit interpret: delete the `e` of True, then type it back.)
      const retype = args.edit === 'interpret';
      const insert = retype ? i % 2 === 1 : i % 2 === 0;
      const at = { line: generated.editLine, character: generated.editColumn };
      const edit = insert
        ? { range: { start: at, end: at }, text: retype ? 'e' : '1' }
        : { range: { start: at, end: { line: at.line, character: at.character + 1 } }, text: '' };
      const before = session.publishedCount(uri);
      const sentAt = performance.now();
      const version = await session.change(uri, edit);
      try {
        const published = await session.waitFor(
          () => (session.published.get(uri) ?? []).slice(before).find((p) => p.version === version),
          `diagnostics for version ${version}`,
          TIMEOUT_MS,
        );
        latencies.push(published.at - sentAt);
      } catch {
        missed++;
      }
      await sleep(20); // a little slower than a fast typist: each edit is its own analysis
    }
    const cpuPerEditMs = (cpuMs(session.proc.pid) - cpuBefore) / EDITS;
    const rssKiB = readRss(session.proc.pid);
    const peakKiB = readRss(session.proc.pid, 'VmHWM');
    const treeKiB = treeRssKiB(session.proc.pid);
    await session.shutdown().catch(() => session.kill());
    return {
      name: server.name,
      initializeMs,
      openMs,
      openWithFixesMs,
      openCpuMs,
      findings,
      edits: EDITS,
      missed,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      meanMs: latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length),
      maxMs: Math.max(...latencies),
      // The first edit after the open: it meets whatever the open left to do.
      firstEditMs: latencies.length ? latencies[0] : NaN,
      cpuPerEditMs,
      rssMiB: rssKiB / 1024,
      peakRssMiB: peakKiB / 1024,
      treeRssMiB: treeKiB / 1024,
    };
  } catch (err) {
    session.kill();
    return { name: server.name, error: err.message.split('\n')[0] };
  }
}

const fmt = (v, digits = 1) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '-');

async function main() {
  const smem = args.module.match(/^smem-(over|fit)$/);
  const generate = args.module === 'inline' ? generateInline : generateMixed;
  const generated = smem
    ? generateSmem(Number(args.launches), smem[1], args.edit)
    : args.module === 'inline'
      ? generateInline(Number(args.lines), 2, args.edit)
      : generate(Number(args.lines));
  const lineCount = generated.text.split('\n').length - 1;
  const dir = mkdtempSync(join(tmpdir(), 'pallas-bench-editors-'));
  const file = join(dir, 'kernels.py');
  writeFileSync(file, generated.text);
  writeFileSync(join(dir, 'pyproject.toml'), '[project]\nname = "bench"\nversion = "0"\n');
  const results = [];
  try {
    for (const server of servers) {
      process.stderr.write(`[bench] ${server.name}: open ${lineCount} lines, ${EDITS} one-character edits\n`);
      results.push(await measure(server, file, generated));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nEditor latency: ${lineCount}-line kernel file (${generated.kernels} kernels), ${EDITS} one-character edits`);
  console.log('server       open→diag ms  (with fixes)  edit→diag p50 ms   p99 ms   mean ms  1st edit ms  CPU/edit ms  missed  findings  RSS MiB  peak MiB  tree MiB');
  for (const r of results) {
    if (r.error) {
      console.log(`${r.name.padEnd(12)} error: ${r.error}`);
      continue;
    }
    console.log(
      `${r.name.padEnd(12)} ${fmt(r.openMs).padStart(11)} ${fmt(r.openWithFixesMs).padStart(13)} ${fmt(r.p50Ms, 2).padStart(18)} ${fmt(r.p99Ms, 2).padStart(8)} ` +
        `${fmt(r.meanMs, 2).padStart(9)} ${fmt(r.firstEditMs, 2).padStart(12)} ${fmt(r.cpuPerEditMs, 1).padStart(12)} ${String(r.missed).padStart(7)} ${String(r.findings).padStart(9)} ` +
        `${fmt(r.rssMiB).padStart(8)} ${fmt(r.peakRssMiB).padStart(9)} ${fmt(r.treeRssMiB).padStart(9)}`,
    );
  }
  const [pallas, pyright] = [results.find((r) => r.name === 'pallas-lsp'), results.find((r) => r.name === 'pyright')];
  if (pallas?.p50Ms && pyright?.p50Ms) {
    console.log(
      `\npallas-lsp is ${fmt(pyright.p50Ms / pallas.p50Ms)}x faster at p50 and ${fmt(pyright.p99Ms / pallas.p99Ms)}x at p99 ` +
        `(target: 10x); it uses ${fmt(pyright.rssMiB / pallas.rssMiB)}x less resident memory.`,
    );
  }
  const out = args.json ?? join(root, 'bench', 'results', `editors-latency-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ lines: lineCount, module: args.module, edit: args.edit, edits: EDITS, node: process.version, results }, null, 2));
  console.log(`results: ${out}`);
}

await main();
