// Where the `pallas-lsp` executable is. The order follows ruff's extension:
// an explicit setting, then the executable installed into the user's Python
// environment (so the server matches the JAX it analyses for), then PATH.
import * as fs from 'fs';
import * as path from 'path';

const EXE = process.platform === 'win32' ? 'pallas-lsp.exe' : 'pallas-lsp';

export interface Resolution {
  /** The executable to spawn (absolute, or a bare name left to PATH lookup). */
  command: string;
  /** How it was found, for the log and the doctor. */
  source: 'setting' | 'python-environment' | 'PATH' | 'fallback';
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The bin directory of a Python environment, given its interpreter.
 *  The interpreter is often a symlink into a base installation, so we use the
 *  directory it was named in, not the one it resolves to. */
function binDirOf(interpreter: string): string {
  return path.dirname(interpreter);
}

export function searchPath(name: string, envPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) {
      return path.join(dir, name);
    }
  }
  return undefined;
}

/**
 * @param configuredPath `pallasLsp.path` (already filtered for trust)
 * @param interpreter the Python interpreter in use, if any (already filtered for trust)
 */
export function resolveServer(configuredPath: string | undefined, interpreter: string | undefined): Resolution {
  if (configuredPath) {
    return { command: configuredPath, source: 'setting' };
  }
  if (interpreter && path.isAbsolute(interpreter)) {
    const candidate = path.join(binDirOf(interpreter), EXE);
    if (isExecutable(candidate)) {
      return { command: candidate, source: 'python-environment' };
    }
  }
  const onPath = searchPath(EXE);
  if (onPath) {
    return { command: onPath, source: 'PATH' };
  }
  // Let the spawn fail with ENOENT; the client reports that with our hint.
  return { command: EXE, source: 'fallback' };
}
