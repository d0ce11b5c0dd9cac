// Reading a `pallas.run` result for the user: how serious it is, a one-line
// headline for the notification, and the full text for the Pallas Runs output
// channel. VS Code-free so the tests check it against real run results.
import { compareSides } from './compareHtml';
import { parseHeatMap, worstText } from './heatMapHtml';
import type { RunArguments } from './protocol';

export type RunSeverity = 'info' | 'warning' | 'error';

type Json = Record<string, unknown>;

function asObject(v: unknown): Json | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

/** Severity from the run's own status (succeeded / cancelled / the rest). */
export function runSeverity(result: unknown): RunSeverity {
  const status = asObject(result)?.status;
  if (status === 'succeeded') {
    return 'info';
  }
  if (status === 'cancelled' || status === 'timed-out') {
    return 'warning';
  }
  return 'error';
}

/** Absolute paths as their last component: a headline has no room for them. */
export function withoutFolders(text: string): string {
  return text.replace(/(^|[\s('"`])\/(?:[^\s/:'"`()]+\/)+([^\s/:'"`()]*)/g, '$1$2');
}

/** At most `max` characters: "Pallas: kernel (interpret) succeeded" or the failure's
 *  reason: the error (setup's, else the first mode's) without folders, never the
 *  file's path that the run's own message starts with. */
export function runHeadline(args: RunArguments, result: unknown, max = 100): string {
  const r = asObject(result);
  const status = typeof r?.status === 'string' ? r.status : 'finished';
  let line = `Pallas: ${args.entry} (${args.mode}) ${status}`;
  if (status !== 'succeeded' && status !== 'cancelled') {
    const firstError = [
      asObject(r?.setup_error),
      ...((r?.modes as Json[] | undefined) ?? []).map((m) => asObject(asObject(m)?.error)),
    ].find((e) => e !== undefined);
    let detail = firstError
      ? `${String(firstError.type ?? '')}: ${String(firstError.message ?? '')}`
      : typeof r?.message === 'string'
        ? r.message
        : '';
    // The run's message starts with what ran ("/path/k.py::run (interpret) ...").
    const what = `${String(r?.file ?? '')}::${String(r?.entry ?? args.entry)} (${String(r?.mode ?? args.mode)}) `;
    if (!firstError && r?.file && detail.startsWith(what)) {
      detail = detail.slice(what.length);
    }
    detail = withoutFolders(detail.split('\n')[0].trim());
    if (detail) {
      line += `: ${detail}`;
    }
  }
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function fmt(v: unknown): string {
  return typeof v === 'number' ? (Math.abs(v) >= 1e-3 || v === 0 ? v.toPrecision(4) : v.toExponential(3)) : String(v);
}

/** The whole run as text: status, what the entry printed, outputs, timings, comparisons, errors. */
export function runReport(args: RunArguments, file: string, result: unknown): string {
  const r = asObject(result);
  if (!r) {
    return `--- ${args.mode} run of ${args.entry} (${file})\n${String(result)}\n`;
  }
  const out: string[] = [`--- ${args.mode} run of ${args.entry} (${file}): ${String(r.status ?? 'finished')}`];
  if (typeof r.message === 'string' && r.message) {
    out.push(r.message);
  }
  if (typeof r.stdout === 'string' && r.stdout.trim()) {
    out.push('stdout:', ...r.stdout.replace(/\n$/, '').split('\n').map((l) => `  ${l}`));
  }
  for (const m of (r.modes as Json[] | undefined) ?? []) {
    const timing: string[] = [];
    const t = asObject(m.timing) ?? {};
    if (typeof t.compile_s === 'number') {
      timing.push(`first call ${fmt(t.compile_s)} s`);
    }
    if (typeof t.run_s_median === 'number') {
      timing.push(`run ${fmt(t.run_s_median * 1000)} ms (median of ${String(t.runs ?? '?')}, ${String(t.method ?? '')})`);
    }
    out.push(`[${String(m.mode)}] ${m.ok ? 'ok' : 'FAILED'}${timing.length ? ` ${timing.join(', ')}` : ''}`);
    for (const o of (m.outputs as Json[] | undefined) ?? []) {
      // An entry such as main() returns None: there is no array to summarise.
      if (o.kind === 'none' || o.kind === 'other') {
        out.push(`  out${String(o.path ?? '')}: ${o.kind === 'none' ? 'None' : `a ${String(o.type ?? '?')} (not an array)`}`);
        continue;
      }
      const shape = Array.isArray(o.shape) ? o.shape.join(',') : '';
      out.push(`  out${String(o.path ?? '')}: ${String(o.dtype ?? '')}[${shape}]${o.sum !== undefined ? ` sum ${fmt(o.sum)}` : ''}`);
    }
    const error = asObject(m.error);
    if (error) {
      out.push(`  ${String(error.type ?? 'Error')}: ${String(error.message ?? '')}`);
      for (const f of (error.frames as Json[] | undefined) ?? []) {
        if (f.user) {
          out.push(`    ${String(f.file)}:${String(f.line)} in ${String(f.function)}`);
        }
      }
    }
  }
  const sides = compareSides(result);
  for (const c of (r.comparisons as Json[] | undefined) ?? []) {
    const map = c.comparable ? parseHeatMap(c.heat_map) : undefined;
    out.push(
      `compare out${String(c.path ?? '')}: ` +
        (c.comparable ? `max |${sides[0]} - ${sides[1]}| ${fmt(c.max_abs_diff)}, max rel ${fmt(c.max_rel_diff)}` : 'not comparable') +
        (c.note ? ` (${String(c.note)})` : '') +
        (map?.worst ? `; ${worstText(map, sides)}` : ''),
    );
  }
  if (typeof r.stderr === 'string' && r.stderr.trim() && r.status !== 'succeeded') {
    out.push('stderr (last lines):', ...r.stderr.trimEnd().split('\n').slice(-20).map((l) => `  ${l}`));
  }
  return `${out.join('\n')}\n`;
}
