#!/usr/bin/env node
// Opening a large kernel module, pallas-lsp next to pyright-langserver in one
// run (issue 12: "opening that 10k-line module: first diagnostics within
// 150 ms"; "process start -> initialize reply median and the memory per open
// 10k-line document, reported").
//
// Each run starts a fresh server over pipes and measures
//   - start: process spawn -> initialize reply;
//   - open: didOpen -> the first publishDiagnostics of the document (pallas-lsp
//     publishes them before their fixes, then again with them: "fixes" is
//     didOpen -> the publish whose diagnostics carry fixes);
//   - the server's CPU time (user + system) from didOpen to the first
//     diagnostics: steadier than wall time on a loaded machine;
//   - RSS per open document: VmRSS after `--docs` copies of the module are
//     open and published, minus VmRSS after initialize, divided by `--docs`
//     (the whole process tree for pyright, a node process).
// Runs alternate between the servers (pallas, pyright, pallas, ...) so that
// each pair sees the same load on a shared machine; medians are reported.
//
//   node bench/editors/open.mjs [--runs 7] [--pyright-runs 3] [--lines 10000]
//        [--docs 3] [--only pallas|pyright] [--compare OTHER_BIN] [--json OUT]
// --compare: a second pallas-lsp binary (say, a build before a change), run
// as "pallas-lsp(b)" right after each pallas-lsp run: back-to-back pairs.
// The module is bench/editors/generate-inline.mjs (every kernel reaches an
// inline_mgpu helper, half under interpret=True: ~160 findings per 10k lines).
// env: PALLAS_LSP_BIN (default build/server/pallas-lsp), PALLAS_LSP_PYTHON (default .venv/bin/python)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LspSession, percentile, readRss, treeRssKiB } from '../../test/editors/lib/lsp.mjs';
import { generate } from './generate-inline.mjs';
import { cpuMs, serverSpecs } from './servers.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    'pyright-runs': { type: 'string', default: '3' },
    lines: { type: 'string', default: '10000' },
    docs: { type: 'string', default: '3' },
    only: { type: 'string' },
    compare: { type: 'string' },
    json: { type: 'string' },
    'timeout-ms': { type: 'string', default: '120000' },
  },
});
const TIMEOUT_MS = Number(args['timeout-ms']);
const DOCS = Math.max(1, Number(args.docs));
const python = process.env.PALLAS_LSP_PYTHON ?? join(root, '.venv', 'bin', 'python');

const [pallasSpec, pyrightSpec] = serverSpecs(root, python);
const servers = [
  { ...pallasSpec, runs: Number(args.runs) },
  { ...pyrightSpec, runs: Number(args['pyright-runs']) },
].filter((s) => !args.only || s.name.startsWith(args.only));
if (args.compare) {
  const pallas = servers.find((s) => s.name === 'pallas-lsp');
  if (pallas) servers.splice(servers.indexOf(pallas) + 1, 0, { ...pallas, name: 'pallas-lsp(b)', command: args.compare });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Resident memory of what serves: the process tree (pyright is node plus
// workers; pallas-lsp is one process, its tree is itself).
const rssKiB = (pid) => treeRssKiB(pid) ?? readRss(pid);

async function oneRun(server, dir, files) {
  const startAt = performance.now();
  const session = new LspSession(server.command, server.args, { cwd: dir, configuration: server.configuration });
  try {
    await session.initialize(dir, server.initializationOptions);
    const startMs = performance.now() - startAt;
    await sleep(300); // let start-up work settle before the baseline
    const baseKiB = rssKiB(session.proc.pid);

    const cpuBefore = cpuMs(session.proc.pid);
    const openAt = performance.now();
    const uri = await session.open(files[0]);
    const first = await session.diagnosticsFor(uri, 1, TIMEOUT_MS);
    const openMs = first.at - openAt;
    const openCpuMs = cpuMs(session.proc.pid) - cpuBefore;
    let fixesMs = openMs;
    if (first.diagnostics.some((d) => Array.isArray(d.data?.fixes))) {
      const fixed = await session
        .waitFor(
          () =>
            (session.published.get(uri) ?? []).find(
              (p) => p.version === 1 && p.diagnostics.some((d) => d.data?.fixes?.length),
            ),
          'diagnostics with fixes',
          TIMEOUT_MS,
        )
        .catch(() => null);
      fixesMs = fixed ? fixed.at - openAt : NaN;
    }
    // The other copies, for the memory per open document.
    for (const file of files.slice(1)) {
      const u = await session.open(file);
      await session.diagnosticsFor(u, 1, TIMEOUT_MS);
    }
    await sleep(500); // fixes and hover facts of the last copy
    const openKiB = rssKiB(session.proc.pid);
    await session.shutdown().catch(() => session.kill());
    return {
      startMs,
      openMs,
      fixesMs,
      openCpuMs,
      findings: first.diagnostics.length,
      rssPerDocMiB: (openKiB - baseKiB) / 1024 / files.length,
      rssMiB: openKiB / 1024,
    };
  } catch (err) {
    session.kill();
    return { error: err.message.split('\n')[0] };
  }
}

const fmt = (v, digits = 1) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '-');
const median = (rs, key) => percentile(rs.map((r) => r[key]).filter(Number.isFinite), 50);

async function main() {
  const generated = generate(Number(args.lines));
  const lineCount = generated.text.split('\n').length - 1;
  const dir = mkdtempSync(join(tmpdir(), 'pallas-bench-open-'));
  writeFileSync(join(dir, 'pyproject.toml'), '[project]\nname = "bench"\nversion = "0"\n');
  const files = [];
  for (let i = 0; i < DOCS; i++) {
    // Distinct names and text (a comment), the same kernels: nothing is shared by content.
    const file = join(dir, `kernels_${i}.py`);
    writeFileSync(file, `# copy ${i}\n${generated.text}`);
    files.push(file);
  }
  const runs = Object.fromEntries(servers.map((s) => [s.name, []]));
  const most = Math.max(...servers.map((s) => s.runs));
  try {
    for (let i = 0; i < most; i++) {
      for (const server of servers) {
        if (i >= server.runs) continue;
        const r = await oneRun(server, dir, files);
        process.stderr.write(
          `[bench] ${server.name} run ${i + 1}: start ${fmt(r.startMs)} ms, open ${fmt(r.openMs)} ms` +
            ` (fixes ${fmt(r.fixesMs)}), CPU ${fmt(r.openCpuMs)} ms${r.error ? ` error: ${r.error}` : ''}\n`,
        );
        runs[server.name].push(r);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nOpening a ${lineCount}-line module (${generated.kernels} kernels), medians; RSS per document over ${DOCS} open copies`);
  console.log('server       runs  start→init ms  open→diag ms  open→fixes ms  open CPU ms  findings  RSS/doc MiB  RSS MiB');
  const summary = {};
  for (const server of servers) {
    const rs = runs[server.name].filter((r) => !r.error);
    if (!rs.length) {
      console.log(`${server.name.padEnd(12)} error: ${runs[server.name][0]?.error}`);
      continue;
    }
    const s = (summary[server.name] = {
      runs: rs.length,
      startMs: median(rs, 'startMs'),
      openMs: median(rs, 'openMs'),
      fixesMs: median(rs, 'fixesMs'),
      openCpuMs: median(rs, 'openCpuMs'),
      findings: rs[0].findings,
      rssPerDocMiB: median(rs, 'rssPerDocMiB'),
      rssMiB: median(rs, 'rssMiB'),
    });
    console.log(
      `${server.name.padEnd(12)} ${String(s.runs).padStart(4)} ${fmt(s.startMs).padStart(14)} ${fmt(s.openMs).padStart(13)} ` +
        `${fmt(s.fixesMs).padStart(14)} ${fmt(s.openCpuMs).padStart(12)} ${String(s.findings).padStart(9)} ` +
        `${fmt(s.rssPerDocMiB).padStart(12)} ${fmt(s.rssMiB).padStart(8)}`,
    );
  }
  const out = args.json ?? join(root, 'bench', 'results', `editors-open-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ lines: lineCount, docs: DOCS, node: process.version, summary, runs }, null, 2));
  console.log(`results: ${out}`);
}

await main();
