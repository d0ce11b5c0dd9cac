// The compare view's page: one row per output of a `compare` run, with the
// two runs' dtype, shape and sum side by side and max |compiled - interpret|
// (absolute and relative), the row tinted by how far apart the runs are;
// under the table, a heat map per output of where they differ (heatMapHtml.ts).
// VS Code-free (a string of HTML, no scripts) so the tests check it.
import { HEAT_MAP_STYLE, type HeatMap, heatMapHtml, parseHeatMap } from './heatMapHtml';
import type { RunArguments } from './protocol';

type Json = Record<string, unknown>;

export interface CompareRow {
  path: string;
  first?: string; // the first run's output (compiled, unless the run compared other modes)
  second?: string; // the second run's (interpret)
  maxAbs?: number;
  maxRel?: number;
  note: string;
  heatMap?: HeatMap;
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

/** The two runs' mode names, in the runner's order (compiled, interpret unless told otherwise). */
export function compareSides(result: unknown): [string, string] {
  const modes = ((result as Json | undefined)?.modes as Json[] | undefined) ?? [];
  const name = (i: number, fallback: string) =>
    modes[i] && typeof modes[i].mode === 'string' ? String(modes[i].mode) : fallback;
  return [name(0, 'compiled'), name(1, 'interpret')];
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
  const [firstName, secondName] = compareSides(result);
  const first = outputsOf(firstName);
  const second = outputsOf(secondName);
  return ((r.comparisons as Json[] | undefined) ?? []).map((c) => {
    const path = String(c.path ?? '');
    return {
      path,
      first: describe(first.get(path)),
      second: describe(second.get(path)),
      maxAbs: c.comparable && typeof c.max_abs_diff === 'number' ? c.max_abs_diff : undefined,
      maxRel: c.comparable && typeof c.max_rel_diff === 'number' ? c.max_rel_diff : undefined,
      note: c.comparable ? String(c.note ?? '') : `not comparable${c.note ? `: ${String(c.note)}` : ''}`,
      heatMap: c.comparable ? parseHeatMap(c.heat_map) : undefined,
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
  const sides = compareSides(result);
  const [a, b] = sides.map(esc);
  const status = String((result as Json | undefined)?.status ?? 'finished');
  const body = rows.length
    ? rows
        .map((row) => {
          const h = heat(row);
          const tint = `rgba(${Math.round(255 * h)}, ${Math.round(160 * (1 - h))}, 60, 0.35)`;
          return (
            `<tr style="background:${tint}"><td><code>out${esc(row.path)}</code></td>` +
            `<td>${esc(row.first ?? '—')}</td><td>${esc(row.second ?? '—')}</td>` +
            `<td>${row.maxAbs === undefined ? '—' : row.maxAbs.toExponential(3)}</td>` +
            `<td>${row.maxRel === undefined ? '—' : row.maxRel.toExponential(3)}</td><td>${esc(row.note)}</td></tr>`
          );
        })
        .join('\n')
    : '<tr><td colspan="6">No outputs were compared (see the Pallas Runs output for why).</td></tr>';
  const maps = rows.filter((row) => row.heatMap).map((row) => heatMapHtml(row.path, row.heatMap as HeatMap, sides));
  const mapsSection = maps.length
    ? `<h4>Where they differ</h4>
<p>Each output viewed as 2-D (leading dimensions merged into rows), each cell the largest difference in
the block of elements it covers; hover a cell for its block and values, the outlined cell holds the worst element.</p>
${maps.join('\n')}`
    : '';
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline' ${cspSource};">
<title>Pallas compare: ${esc(args.entry)}</title>
<style>${HEAT_MAP_STYLE}</style></head>
<body>
<h3>${esc(args.entry)}: ${a} vs ${b} (${esc(status)})</h3>
<table border="1" cellspacing="0" cellpadding="4">
<tr><th>output</th><th>${a}</th><th>${b}</th><th>max |${a} − ${b}|</th><th>max relative</th><th>note</th></tr>
${body}
</table>
<p>Rows are tinted from green (identical) to red (relative difference ≥ 1e-2 or not comparable).</p>
${mapsSection}
</body></html>`;
}
