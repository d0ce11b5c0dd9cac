// The end-to-end fixture project, copied to a fresh temporary folder per run
// (the session edits files and runs them from disk), and facts read from its
// markers rather than hard-coded.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = dirname(fileURLToPath(import.meta.url));
export const editorsTestDir = join(here, '..');

export function copyProject() {
  const dir = mkdtempSync(join(tmpdir(), 'pallas-e2e-'));
  cpSync(join(editorsTestDir, 'fixtures', 'project'), dir, { recursive: true });
  return { dir, kernel: join(dir, 'kernel.py'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** 0-based line of the `# <- CODE` marker in `text`. */
export function markerLine(text, code) {
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes(`# <- ${code}`));
  if (line < 0) {
    throw new Error(`fixture has no '# <- ${code}' marker`);
  }
  return line;
}

/** Parts waiting for features, from pending.json: { part: reason }. */
export function pendingParts() {
  const all = JSON.parse(readFileSync(join(editorsTestDir, 'pending.json'), 'utf8'));
  delete all._comment;
  return all;
}
