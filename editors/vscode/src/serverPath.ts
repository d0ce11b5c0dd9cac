// Where the `pallas-lsp` executable is. The order follows ruff's extension:
// an explicit setting, then the executable installed into the user's Python
// environment (so the server matches the JAX it analyses for), then PATH, and
// last the self-contained binary bundled in a platform-specific .vsix
// (`bundled/bin/pallas-lsp`). In an untrusted workspace the bundled binary is
// the only choice when there is one: nothing the workspace can influence
// (its PATH, its environments) picks the executable.
import * as fs from 'fs';
import * as path from 'path';

const EXE = process.platform === 'win32' ? 'pallas-lsp.exe' : 'pallas-lsp';

export interface Resolution {
  /** The executable to spawn (absolute, or a bare name left to PATH lookup). */
  command: string;
  /** How it was found, for the log and the doctor. */
  source: 'setting' | 'python-environment' | 'PATH' | 'bundled' | 'fallback';
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

/** The binary a platform-specific .vsix carries, under the extension's folder. */
export function bundledServer(extensionDir: string): string | undefined {
  const candidate = path.join(extensionDir, 'bundled', 'bin', EXE);
  return isExecutable(candidate) ? candidate : undefined;
}

export interface ResolveOptions {
  /** The bundled binary (bundledServer), if this .vsix has one. */
  bundled?: string;
  /** Workspace trust; untrusted: the bundled binary only, when present. */
  trusted?: boolean;
}

/**
 * @param configuredPath `pallasLsp.path` (already filtered for trust)
 * @param interpreter the Python interpreter in use, if any (already filtered for trust)
 */
export function resolveServer(
  configuredPath: string | undefined,
  interpreter: string | undefined,
  options: ResolveOptions = {},
): Resolution {
  if (options.trusted === false && options.bundled) {
    return { command: options.bundled, source: 'bundled' };
  }
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
  if (options.bundled) {
    return { command: options.bundled, source: 'bundled' };
  }
  // Let the spawn fail with ENOENT; the client reports that with our hint.
  return { command: EXE, source: 'fallback' };
}
