// What to tell the user when the server does not start: one short message
// that says what went wrong and what fixes it, and the actions to offer.
// VS Code-free (the popup lives in server.ts) so the tests check the words.

export type StartAction = 'Open settings' | 'Show output' | 'Install from a wheel…';

export interface StartFailure {
  message: string;
  actions: StartAction[];
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function firstLine(text: string, max = 160): string {
  const line = text.split('\n')[0].trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * @param err what LanguageClient.start() rejected with
 * @param command the executable we tried
 * @param source how it was found (serverPath.ts Resolution.source)
 * @param canInstall an interpreter is known and the workspace is trusted
 */
export function describeStartFailure(
  err: unknown,
  command: string,
  source: string,
  canInstall: boolean,
): StartFailure {
  const text = err instanceof Error ? err.message : String(err);
  const missing = errorCode(err) === 'ENOENT' || /ENOENT|not found|failed\.?$/i.test(text);
  if (source === 'fallback') {
    return {
      message:
        'Pallas LSP: no pallas-lsp executable was found. Build the wheel (bash scripts/build-wheel.sh) and ' +
        'install it into your Python environment, or set "pallasLsp.path".',
      actions: canInstall ? ['Install from a wheel…', 'Open settings', 'Show output'] : ['Open settings', 'Show output'],
    };
  }
  if (missing && source === 'setting') {
    return {
      message: `Pallas LSP: "pallasLsp.path" names ${command}, which cannot be run. Fix the setting, then the server restarts.`,
      actions: ['Open settings', 'Show output'],
    };
  }
  return {
    message: `Pallas LSP: the server (${command}) did not start: ${firstLine(text)}`,
    actions: ['Show output', 'Open settings'],
  };
}
