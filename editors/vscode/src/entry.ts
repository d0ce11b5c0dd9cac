// Which function a run command should run when it is invoked from the command
// palette rather than from a code lens (a lens carries its own arguments).
// Pure text logic with no VS Code import, so the tests can load it in plain
// node. The server remains the judge: it rejects an entry it cannot run.

const DEF = /^(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(/;

export interface TopLevelFunction {
  name: string;
  line: number; // 0-based line of the `def`
}

/** Top-level (column 0) function definitions, in order. */
export function topLevelFunctions(lines: readonly string[]): TopLevelFunction[] {
  const out: TopLevelFunction[] = [];
  lines.forEach((text, line) => {
    const m = DEF.exec(text);
    if (m) {
      out.push({ name: m[1], line });
    }
  });
  return out;
}

/**
 * The top-level function at `line`: on a decorator, the function it decorates;
 * inside a body, the last top-level `def` above, provided no other top-level
 * statement (a line starting in column 0 that is not a comment or a closing
 * bracket of a multi-line expression) comes between them.
 */
export function enclosingTopLevelFunction(lines: readonly string[], line: number): string | undefined {
  if (line < 0 || line >= lines.length) {
    return undefined;
  }
  if (lines[line].startsWith('@')) {
    for (let j = line; j < lines.length && /^[@\s)]/.test(lines[j]); j++) {
      const m = DEF.exec(lines[j + 1] ?? '');
      if (m) {
        return m[1];
      }
    }
    return undefined;
  }
  for (let i = line; i >= 0; i--) {
    const m = DEF.exec(lines[i]);
    if (m) {
      return m[1];
    }
    if (/^[^\s#)\]}@]/.test(lines[i])) {
      return undefined;
    }
  }
  return undefined;
}
