// Installing the pallas-lsp wheel into the selected interpreter's environment,
// offered when no server is found otherwise. VS Code-free (the prompt lives in
// extension.ts) so that it is tested against a real pip and a real wheel.
import { execFile } from 'child_process';
import * as path from 'path';

/** The requirement to install: the wheel of the extension's own version, so the
 *  server and the extension agree (one version number for the project). */
export function requirementFor(extensionVersion: string): string {
  return `pallas-lsp==${extensionVersion}`;
}

/** `python -m pip install REQUIREMENT` (pip reads PIP_INDEX_URL, PIP_FIND_LINKS... from the environment). */
export function pipInstallArgs(requirement: string): string[] {
  return ['-m', 'pip', 'install', '--disable-pip-version-check', requirement];
}

/** Where the wheel puts the binary: the scripts folder beside the interpreter. */
export function installedServerPath(interpreter: string): string {
  return path.join(path.dirname(interpreter), process.platform === 'win32' ? 'pallas-lsp.exe' : 'pallas-lsp');
}

export interface InstallResult {
  ok: boolean;
  /** pip's stdout and stderr, for the output channel. */
  output: string;
}

/** Runs pip with the interpreter; never throws. */
export function installServer(
  interpreter: string,
  requirement: string,
  timeoutMs = 10 * 60 * 1000,
): Promise<InstallResult> {
  return new Promise((resolve) => {
    execFile(
      interpreter,
      pipInstallArgs(requirement),
      { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ ok: !error, output: `${stdout}${stderr}${error ? `\n${error.message}` : ''}` }),
    );
  });
}
