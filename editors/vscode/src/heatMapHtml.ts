// The heat map of one compared output in the compare view: where the two runs
// differ, drawn from the runner's "heat_map" (gpu/README.md, "compare heat
// maps"): a CSS grid of cells, each the largest |first - second| over the
// block of elements it covers, coloured on a scale with a legend (lowest ..
// highest cell), the block and the worst element on hover (title), and the
// worst element's cell outlined. Plain HTML and inline styles, no scripts and
// no resources, so it fits the view's CSP (default-src 'none'); VS Code-free
// so the tests check the page itself.

type Json = Record<string, unknown>;
type Cell = number | null; // null: infinitely different (a NaN on one side only)

export interface HeatMap {
  shape: number[];
  view: [number, number];
  grid: [number, number];
  block: [number, number];
  kind: 'abs' | 'mismatch';
  abs: Cell[][];
  rel?: Cell[][];
  max: number | null;
  mean: number | null;
  differing?: number;
  worst?: { index: number[]; abs: Cell; rel?: Cell; first: unknown; second: unknown };
}

/** Cells drawn at most per side, whatever a (newer or broken) runner sends. */
export const MAX_SIDE = 128;
/** The colour of a cell that is infinitely different (NaN on one side only). */
export const INFINITE_COLOUR = '#ff00ff';
// Blue (lowest) through pale yellow to red (highest): readable on light and
// dark themes, and the worst cells stand out.
const STOPS: [number, [number, number, number]][] = [
  [0, [49, 54, 149]],
  [0.5, [255, 255, 191]],
  [1, [165, 0, 38]],
];

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isPair = (v: unknown): v is [number, number] => Array.isArray(v) && v.length === 2 && v.every(isInt);
const isCell = (v: unknown): v is Cell => v === null || (typeof v === 'number' && Number.isFinite(v));
const isRows = (v: unknown, [rows, cols]: [number, number]): v is Cell[][] =>
  Array.isArray(v) && v.length === rows && v.every((r) => Array.isArray(r) && r.length === cols && r.every(isCell));

/** The comparison's heat map, or undefined when it has none or it is not the documented shape. */
export function parseHeatMap(value: unknown): HeatMap | undefined {
  if (!value || typeof value !== 'object') {
    return undefined;
  }
  const h = value as Json;
  if (!isPair(h.grid) || !isPair(h.block) || !isPair(h.view) || !Array.isArray(h.shape) || !h.shape.every(isInt)) {
    return undefined;
  }
  const [rows, cols] = h.grid;
  if (rows < 1 || cols < 1 || rows > MAX_SIDE || cols > MAX_SIDE || !isRows(h.abs, h.grid)) {
    return undefined;
  }
  const w = h.worst && typeof h.worst === 'object' ? (h.worst as Json) : undefined;
  return {
    shape: h.shape as number[],
    view: h.view,
    grid: h.grid,
    block: h.block,
    kind: h.kind === 'mismatch' ? 'mismatch' : 'abs',
    abs: h.abs,
    rel: isRows(h.rel, h.grid) ? h.rel : undefined,
    max: isCell(h.max) ? h.max : null,
    mean: isCell(h.mean) ? h.mean : null,
    differing: isInt(h.differing) ? h.differing : undefined,
    worst:
      w && Array.isArray(w.index) && w.index.every(isInt)
        ? {
            index: w.index as number[],
            abs: isCell(w.abs) ? w.abs : null,
            rel: isCell(w.rel) ? w.rel : undefined,
            first: w.first,
            second: w.second,
          }
        : undefined,
  };
}

/** The colour of position t (0..1) on the scale, as #rrggbb. */
export function heatColour(t: number): string {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 1));
  let i = 0;
  while (i < STOPS.length - 2 && x > STOPS[i + 1][0]) {
    i++;
  }
  const [t0, c0] = STOPS[i];
  const [t1, c1] = STOPS[i + 1];
  const f = (x - t0) / (t1 - t0);
  return `#${c0.map((c, k) => Math.round(c + (c1[k] - c) * f).toString(16).padStart(2, '0')).join('')}`;
}

/** The scale's ends: the lowest and highest finite cell (a mismatch map is always 0..1). */
export function scaleOf(map: HeatMap): { lo: number; hi: number } {
  if (map.kind === 'mismatch') {
    return { lo: 0, hi: 1 };
  }
  const finite = map.abs.flat().filter((v): v is number => v !== null);
  return finite.length ? { lo: Math.min(...finite), hi: Math.max(...finite) } : { lo: 0, hi: 0 };
}

/** A cell's colour: its place between the scale's ends; a flat map is all "lowest" unless it differs. */
export function cellColour(v: Cell, lo: number, hi: number): string {
  if (v === null) {
    return INFINITE_COLOUR;
  }
  return heatColour(hi > lo ? (v - lo) / (hi - lo) : v > 0 ? 1 : 0);
}

/** The [row, column] of the cell holding an element of the original shape. */
export function cellOf(map: HeatMap, index: number[]): [number, number] | undefined {
  if (index.length !== map.shape.length || index.some((i, k) => i >= map.shape[k])) {
    return undefined;
  }
  let row = 0;
  for (let k = 0; k < index.length - 1; k++) {
    row = row * map.shape[k] + index[k];
  }
  const col = index.length ? index[index.length - 1] : 0;
  return [Math.floor(row / map.block[0]), Math.floor(col / map.block[1])];
}

export function num(v: Cell | undefined): string {
  if (v === undefined) {
    return '—';
  }
  return v === null ? '∞' : v === 0 ? '0' : Math.abs(v) >= 1e-3 && Math.abs(v) < 1e4 ? String(v) : v.toExponential(2);
}

function value(v: unknown): string {
  return typeof v === 'number' ? String(v) : typeof v === 'string' || typeof v === 'boolean' ? String(v) : '?';
}

function span(start: number, size: number, limit: number): string {
  const end = Math.min(start + size, limit) - 1;
  return end > start ? `${start}–${end}` : `${start}`;
}

/** The worst element in words: where, both values, how far apart. */
export function worstText(map: HeatMap, sides: [string, string]): string {
  const w = map.worst;
  if (!w) {
    return '';
  }
  const where = `[${w.index.join(', ')}]`;
  if (map.differing === 0 || map.max === 0) {
    return 'every element equal';
  }
  if (map.kind === 'mismatch') {
    return `first mismatch at ${where}: ${sides[0]} ${value(w.first)}, ${sides[1]} ${value(w.second)}`;
  }
  return (
    `worst element ${where}: ${sides[0]} ${value(w.first)}, ${sides[1]} ${value(w.second)}, ` +
    `|diff| ${num(w.abs)}${w.rel !== undefined ? `, relative ${num(w.rel)}` : ''}`
  );
}

/** The HTML of one output's heat map (a <figure>); `sides` name the two runs. */
export function heatMapHtml(path: string, map: HeatMap, sides: [string, string]): string {
  const [rows, cols] = map.grid;
  const { lo, hi } = scaleOf(map);
  const px = Math.max(4, Math.min(24, Math.floor(480 / Math.max(rows, cols))));
  const differs = map.differing !== 0 && map.max !== 0;
  const worstCell = map.worst && differs ? cellOf(map, map.worst.index) : undefined;
  const what = map.kind === 'mismatch' ? 'differs (1) or not (0)' : 'max |diff|';
  const cells: string[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const v = map.abs[r][c];
      const isWorst = worstCell !== undefined && worstCell[0] === r && worstCell[1] === c;
      let title =
        `rows ${span(r * map.block[0], map.block[0], map.view[0])}, cols ${span(c * map.block[1], map.block[1], map.view[1])}: ` +
        `${what} ${num(v)}${map.rel ? `, max relative ${num(map.rel[r][c])}` : ''}`;
      if (isWorst) {
        title += `\n${worstText(map, sides)}`;
      }
      cells.push(
        `<i${isWorst ? ' class="worst"' : ''} style="background:${cellColour(v, lo, hi)}" title="${esc(title)}"></i>`,
      );
    }
  }
  const gradient = STOPS.map(([t]) => `${heatColour(t)} ${t * 100}%`).join(', ');
  const hasInfinite = map.abs.some((r) => r.includes(null));
  const legend =
    map.kind === 'mismatch'
      ? `<span class="swatch" style="background:${heatColour(0)}"></span> equal ` +
        `<span class="swatch" style="background:${heatColour(1)}"></span> differs`
      : `<span class="lo">${num(lo)}</span><span class="bar" style="background:linear-gradient(to right, ${gradient})"></span>` +
        `<span class="hi">${num(hi)}</span>`;
  const infinite = hasInfinite
    ? ` <span class="swatch" style="background:${INFINITE_COLOUR}"></span> NaN on one side only`
    : '';
  const viewed =
    map.shape.length > 2 ? ` viewed as ${map.view[0]}×${map.view[1]}` : map.shape.length < 2 ? ' as one row' : '';
  const heading =
    map.kind === 'mismatch'
      ? `where ${esc(sides[0])} and ${esc(sides[1])} differ`
      : `|${esc(sides[0])} − ${esc(sides[1])}|`;
  const stats =
    map.kind === 'mismatch'
      ? `${map.differing ?? '?'} element(s) differ`
      : `max ${num(map.max)}, mean ${num(map.mean)}${map.differing !== undefined ? `, ${map.differing} element(s) differ` : ''}`;
  return `<figure class="heat" data-path="${esc(path)}">
<figcaption><code>out${esc(path)}</code>: ${heading}, shape [${map.shape.join(', ')}]${viewed}, ` +
    `${rows}×${cols} cells of ${map.block[0]}×${map.block[1]} element(s), each the block's largest; ${stats}</figcaption>
<div class="grid" style="grid-template-columns:repeat(${cols}, ${px}px);grid-auto-rows:${px}px">${cells.join('')}</div>
<div class="legend">${legend}${infinite}</div>
<div class="worst-text">${esc(worstText(map, sides))}</div>
</figure>`;
}

/** The page's styles for heat maps (inline <style>, allowed by style-src 'unsafe-inline'). */
export const HEAT_MAP_STYLE = `
.heat { margin: 1em 0; }
.heat .grid { display: grid; gap: 0; width: max-content; border: 1px solid #888; }
.heat .grid i { display: block; }
.heat .grid i.worst { outline: 2px solid currentColor; outline-offset: -2px; }
.heat .legend { display: flex; align-items: center; gap: 0.4em; margin-top: 0.3em; font-size: 90%; }
.heat .bar { display: inline-block; width: 160px; height: 10px; border: 1px solid #888; }
.heat .swatch { display: inline-block; width: 10px; height: 10px; border: 1px solid #888; }
.heat .worst-text { font-size: 90%; margin-top: 0.2em; }
`;
