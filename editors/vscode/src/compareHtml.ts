// The compare view's page: one row per output of a `compare` run, with the
// two runs' dtype, shape and sum side by side and max |compiled - interpret|
// (absolute and relative), the row tinted by how far apart the runs are.
// VS Code-free (a string of HTML, no scripts) so the tests check it.
import type { RunArguments } from './protocol';

type Json = Record<string, unknown>;

export interface CompareRow {
  path: string;
  compiled?: string;
  interpret?: string;
  maxAbs?: number;
  maxRel?: number;
  note: string;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function describe(o: Json | undefined): string | undefined {
  if (!o) {
    return undefined;
  }
  const shape = Array.isArray(o.shape) ? o.shape.join(',') : '';
  return `${String(o.dtype ?? '?')}[${shape}]${typeof o.sum === 'number' ? ` sum ${o.sum.toPrecision(6)}` : ''}`;
}

export function compareRows(result: unknown): CompareRow[] {
  const r = (result && typeof result === 'object' ? result : {}) as Json;
  const modes = ((r.modes as Json[] | undefined) ?? []).filter((m) => m && typeof m === 'object');
  const outputsOf = (mode: string) =>
    new Map(
      (((modes.find((m) => m.mode === mode)?.outputs as Json[] | undefined) ?? []) as Json[]).map((o) => [
        String(o.path ?? ''),
        o,
      ]),
    );
  const compiled = outputsOf('compiled');
  const interpret = outputsOf('interpret');
  return ((r.comparisons as Json[] | undefined) ?? []).map((c) => {
    const path = String(c.path ?? '');
    return {
      path,
      compiled: describe(compiled.get(path)),
      interpret: describe(interpret.get(path)),
      maxAbs: c.comparable && typeof c.max_abs_diff === 'number' ? c.max_abs_diff : undefined,
      maxRel: c.comparable && typeof c.max_rel_diff === 'number' ? c.max_rel_diff : undefined,
      note: c.comparable ? String(c.note ?? '') : `not comparable${c.note ? `: ${String(c.note)}` : ''}`,
    };
  });
}

/** 0 (identical) .. 1 (relative difference of 1e-2 or more, or not comparable), on a log scale. */
export function heat(row: CompareRow): number {
  if (row.maxRel === undefined) {
    return 1;
  }
  if (row.maxRel === 0) {
    return 0;
  }
  return Math.min(1, Math.max(0, (Math.log10(row.maxRel) + 8) / 6));
}

export function compareHtml(args: RunArguments, result: unknown, cspSource = "'none'"): string {
  const rows = compareRows(result);
  const status = String((result as Json | undefined)?.status ?? 'finished');
  const body = rows.length
    ? rows
        .map((row) => {
          const h = heat(row);
          const tint = `rgba(${Math.round(255 * h)}, ${Math.round(160 * (1 - h))}, 60, 0.35)`;
          return (
            `<tr style="background:${tint}"><td><code>out${esc(row.path)}</code></td>` +
            `<td>${esc(row.compiled ?? '—')}</td><td>${esc(row.interpret ?? '—')}</td>` +
            `<td>${row.maxAbs === undefined ? '—' : row.maxAbs.toExponential(3)}</td>` +
            `<td>${row.maxRel === undefined ? '—' : row.maxRel.toExponential(3)}</td><td>${esc(row.note)}</td></tr>`
          );
        })
        .join('\n')
    : '<tr><td colspan="6">No outputs were compared (see the Pallas Runs output for why).</td></tr>';
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline' ${cspSource};">
<title>Pallas compare: ${esc(args.entry)}</title></head>
<body>
<h3>${esc(args.entry)}: compiled vs interpret (${esc(status)})</h3>
<table border="1" cellspacing="0" cellpadding="4">
<tr><th>output</th><th>compiled</th><th>interpret</th><th>max |compiled − interpret|</th><th>max relative</th><th>note</th></tr>
${body}
</table>
<p>Rows are tinted from green (identical) to red (relative difference ≥ 1e-2 or not comparable).</p>
</body></html>`;
}
