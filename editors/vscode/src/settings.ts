// Reads the extension's settings and turns them into what the client and the
// server need, applying workspace trust: in an untrusted workspace nothing the
// workspace provides may choose an executable (no workspace-level path or
// interpreter, no interpreter selected from the workspace's own virtual
// environment), and kernel runs are off.
import * as vscode from 'vscode';
import { ServerSettings } from './protocol';
import { selectedInterpreter } from './pythonEnv';

export const SECTION = 'pallasLsp';

export function isTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

/** A string setting; in an untrusted workspace only the user's own value counts. */
function trustedString(config: vscode.WorkspaceConfiguration, key: string): string | undefined {
  const value = isTrusted() ? config.get<string>(key) : config.inspect<string>(key)?.globalValue;
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

export interface ClientSettings {
  /** `pallasLsp.path`, trust-filtered. */
  serverPath?: string;
  /** The interpreter to analyse and run with, and where it came from. */
  python?: string;
  pythonSource: 'setting' | 'python-environments' | 'python-extension' | 'none';
  server: ServerSettings;
}

export async function readSettings(resource?: vscode.Uri): Promise<ClientSettings> {
  const config = vscode.workspace.getConfiguration(SECTION, resource);
  const trusted = isTrusted();
  let python = trustedString(config, 'python');
  let pythonSource: ClientSettings['pythonSource'] = python ? 'setting' : 'none';
  if (!python && trusted) {
    const selected = await selectedInterpreter(resource);
    if (selected) {
      python = selected.path;
      pythonSource = selected.source;
    }
  }
  return {
    serverPath: trustedString(config, 'path'),
    python,
    pythonSource,
    server: {
      python: python ?? null,
      pythonSource,
      logLevel: config.get<string>('logLevel', 'info'),
      select: config.get<string[]>('select', []),
      ignore: config.get<string[]>('ignore', []),
      runner: {
        launchTemplate: trusted ? trustedString(config, 'runner.launchTemplate') ?? null : null,
        timeoutSeconds: config.get<number>('runner.timeoutSeconds', 300),
        // Runs are shown by the extension (runs.ts): no window/showMessage from the server.
        clientShowsResults: true,
      },
      workspaceTrusted: trusted,
    },
  };
}

/** Settings whose change needs a new server process rather than a notification. */
export function needsRestart(event: vscode.ConfigurationChangeEvent, resource?: vscode.Uri): boolean {
  return ['path', 'python', 'logLevel'].some((key) => event.affectsConfiguration(`${SECTION}.${key}`, resource));
}
