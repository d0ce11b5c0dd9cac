// One pallas-lsp server and its language client, for one workspace folder (or
// for files outside any folder). It owns the client's lifecycle: starts and
// restarts are serialised and never throw into the chain (a start that failed
// leaves a client that is disposed, not stopped), a failed start shows one
// message with "Open settings" / "Show output", and a server that keeps
// crashing stays stopped with one message and a Restart action.
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  DocumentSelector,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { CrashPolicy } from './crashPolicy';
import { Commands, RunArguments, StatusNotification } from './protocol';
import { installServer, installedServerPath } from './install';
import { LanguageStatus } from './languageStatus';
import { bundledServer, resolveServer } from './serverPath';
import { ClientSettings, isTrusted, readSettings, SECTION } from './settings';
import { describeStartFailure } from './startFailure';

const CLIENT_ID = 'pallasLsp'; // Also makes vscode-languageclient honour `pallasLsp.trace.server`.
const CLIENT_NAME = 'Pallas LSP';
// Sections the server asks for in workspace/configuration: it names itself
// "pallas-lsp"; "pallasLsp" is this extension's settings namespace.
const SERVER_SECTIONS = [SECTION, 'pallas-lsp'];

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A language client that never raises popups of its own: this extension
 *  shows one message per failure, with actions that fix it. */
class QuietLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown, _showNotification?: boolean | 'force'): void {
    super.error(message, data, false);
  }
}

export interface Shared {
  extensionDir: string;
  output: vscode.OutputChannel;
  traceOutput: vscode.OutputChannel;
  /** Routes `pallas.run` (code lenses, code actions) through the extension's one run path. */
  run(server: PallasServer, args: Partial<RunArguments>): Promise<unknown>;
}

/** Documents a server serves: its folder's Python files and the Python cells of its notebooks. */
export function selectorFor(folder?: vscode.WorkspaceFolder, hasFolders = false): DocumentSelector {
  if (folder) {
    const pattern = `${folder.uri.fsPath}/**/*`;
    return [
      { scheme: 'file', language: 'python', pattern },
      { notebook: { notebookType: 'jupyter-notebook', pattern }, language: 'python' },
    ];
  }
  // Files outside every folder: untitled buffers always; files on disk only
  // when no folder is open (otherwise the folders' servers own them).
  const selector: DocumentSelector = [{ scheme: 'untitled', language: 'python' }];
  if (!hasFolders) {
    selector.push({ scheme: 'file', language: 'python' });
    selector.push({ notebook: 'jupyter-notebook', language: 'python' });
  }
  return selector;
}

export class PallasServer implements vscode.Disposable {
  private current?: LanguageClient;
  private settings?: ClientSettings;
  private lifecycle: Promise<void> = Promise.resolve();
  private readonly crashes = new CrashPolicy();
  private offeredInstall = false;
  readonly status: LanguageStatus;

  constructor(
    readonly folder: vscode.WorkspaceFolder | undefined,
    private readonly selector: DocumentSelector,
    private readonly shared: Shared,
  ) {
    this.status = new LanguageStatus(
      folder ? `pallasLsp.status.${folder.index}.${folder.name}` : 'pallasLsp.status',
      selector as vscode.DocumentSelector,
      folder?.name,
    );
  }

  /** Where this server's settings are read (per folder in a multi-root workspace). */
  get resource(): vscode.Uri | undefined {
    return this.folder?.uri;
  }

  client(): LanguageClient | undefined {
    return this.current?.isRunning() ? this.current : undefined;
  }

  /** Stop, then start; queued behind any start or stop in progress, never rejected. */
  restart(userAsked = false): Promise<void> {
    if (userAsked) {
      this.crashes.reset();
    }
    return this.enqueue(async () => {
      await this.stopNow();
      await this.startNow();
    });
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.stopNow());
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    // A step that throws is logged and the chain goes on: one failure must not
    // leave every later restart waiting on a rejected promise.
    this.lifecycle = this.lifecycle.then(step).catch((err) => {
      this.shared.output.appendLine(`[client] ${errorText(err)}`);
    });
    return this.lifecycle;
  }

  /** Settings the server applies without a restart. */
  async settingsChanged(): Promise<void> {
    const client = this.client();
    if (!client) {
      return;
    }
    this.settings = await readSettings(this.resource);
    await client.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { [SECTION]: this.settings.server },
    });
  }

  private async stopNow(): Promise<void> {
    const client = this.current;
    this.current = undefined;
    if (client) {
      // A client whose start failed (or that already stopped) must not be
      // stopped again: vscode-languageclient throws for it.
      if (client.needsStop()) {
        try {
          await client.stop(5000);
        } catch (err) {
          this.shared.output.appendLine(`[client] stopping the server: ${errorText(err)}`);
        }
      }
      try {
        await client.dispose(1000);
      } catch (err) {
        this.shared.output.appendLine(`[client] disposing the client: ${errorText(err)}`);
      }
    }
    this.status.setState('stopped');
  }

  private log(line: string): void {
    this.shared.output.appendLine(`[client${this.folder ? ` ${this.folder.name}` : ''}] ${line}`);
  }

  private async startNow(): Promise<void> {
    const settings = await readSettings(this.resource);
    this.settings = settings;
    const server = resolveServer(settings.serverPath, settings.python, {
      bundled: bundledServer(this.shared.extensionDir),
      trusted: isTrusted(),
    });
    this.log(
      `starting ${server.command} (found via ${server.source}); python: ${settings.python ?? 'not set'}` +
        ` (${settings.pythonSource}); workspace ${isTrusted() ? 'trusted' : 'untrusted: limited mode'}`,
    );
    const serverOptions: ServerOptions = {
      command: server.command,
      // The server's CLI knows error|warn|info|debug; "trace" is debug plus the client's JSON-RPC trace.
      args: ['serve', '--stdio', '--log-level', settings.server.logLevel === 'trace' ? 'debug' : settings.server.logLevel],
      options: this.folder ? { cwd: this.folder.uri.fsPath } : undefined,
    };
    const folderPath = this.folder?.uri.fsPath;
    const clientOptions: LanguageClientOptions = {
      documentSelector: this.selector,
      workspaceFolder: this.folder,
      diagnosticCollectionName: 'pallas-lsp',
      outputChannel: this.shared.output,
      traceOutputChannel: this.shared.traceOutput,
      initializationOptions: settings.server,
      synchronize: {
        // Helpers in other files and pyproject.toml change findings in open files.
        fileEvents: vscode.workspace.createFileSystemWatcher(
          this.folder ? new vscode.RelativePattern(this.folder, '**/{*.py,pyproject.toml}') : '**/{*.py,pyproject.toml}',
        ),
      },
      // Notebooks of other folders belong to their own folder's server.
      notebookDocumentOptions: {
        filterCells: (notebook, cells) =>
          !folderPath || notebook.uri.fsPath.startsWith(folderPath + '/') ? cells : [],
      },
      initializationFailedHandler: (err) => {
        this.log(`initialize failed: ${errorText(err)}`);
        return false;
      },
      errorHandler: {
        error: (_error, _message, count) => ({
          action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown,
          handled: true,
        }),
        closed: () => this.onServerClosed(),
      },
      middleware: {
        // Code lenses and code actions call `pallas.run`: route them through
        // the extension's one run path (save, one progress with cancel, one
        // result in the Pallas Runs channel, one run per kernel).
        executeCommand: async (command, args, next) => {
          if (command === Commands.run) {
            return this.shared.run(this, (args?.[0] ?? {}) as Partial<RunArguments>);
          }
          return next(command, args);
        },
        workspace: {
          // Answer `workspace/configuration` for our section with the resolved
          // settings (interpreter found, trust applied), not the raw ones.
          configuration: async (params, token, next) => {
            const raw = await next(params, token);
            if (!Array.isArray(raw)) {
              return raw;
            }
            return raw.map((value, i) =>
              SERVER_SECTIONS.includes(params.items[i]?.section ?? '') ? (this.settings?.server ?? value) : value,
            );
          },
        },
      },
    };
    const client = new QuietLanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    this.current = client;
    let gotStatus = false;
    client.onNotification(StatusNotification, (status) => {
      gotStatus = true;
      this.status.applyStatus(status);
    });
    client.onDidChangeState((e) => {
      if (this.current !== client) {
        return;
      }
      if (e.newState === State.Running) {
        this.status.setState('running');
      } else if (e.newState === State.Starting) {
        this.status.setState('starting');
      }
    });
    this.status.setState('starting');
    try {
      await client.start();
    } catch (err) {
      this.log(`the server did not start: ${errorText(err)}`);
      this.status.setState('failed', 'did not start (see the Pallas LSP output)');
      const canInstall = !!settings.python && isTrusted() && !this.offeredInstall;
      const failure = describeStartFailure(err, server.command, server.source, canInstall);
      void this.showFailure(failure.message, failure.actions, settings.python);
      return;
    }
    this.status.setServerVersion(client.initializeResult?.serverInfo?.version);
    const commands = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    // Servers that do not push `pallas/status` still answer the doctor; ask it once.
    setTimeout(() => {
      if (!gotStatus && this.current === client && client.isRunning() && commands.includes(Commands.doctor)) {
        client
          .sendRequest(ExecuteCommandRequest.type, { command: Commands.doctor, arguments: [] })
          .then((text) => typeof text === 'string' && this.status.applyDoctorText(text))
          .catch(() => undefined);
      }
    }, 2000);
  }

  /** The connection closed without a stop: restart once in a while, else stop with one message. */
  private onServerClosed(): { action: CloseAction; handled: boolean } {
    if (this.crashes.onCrash() === 'restart') {
      this.log('the server exited; restarting it');
      return { action: CloseAction.Restart, handled: true };
    }
    const n = this.crashes.recentCrashes();
    this.log(`the server exited ${n} times in 3 minutes; it stays stopped until you restart it`);
    this.status.setState('failed', `exited ${n} times`);
    void vscode.window
      .showErrorMessage(
        `Pallas LSP: the server stopped (it exited ${n} times in 3 minutes). See the output for why.`,
        'Restart',
        'Show output',
      )
      .then((choice) => {
        if (choice === 'Restart') {
          void this.restart(true);
        } else if (choice === 'Show output') {
          this.shared.output.show(true);
        }
      });
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  private async showFailure(message: string, actions: string[], python: string | undefined): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, ...actions);
    if (choice === 'Open settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', SECTION);
    } else if (choice === 'Show output') {
      this.shared.output.show(true);
    } else if (choice?.startsWith('Install') && python) {
      this.offeredInstall = true;
      await this.installFromWheel(python);
    }
  }

  /** pip-installs a pallas-lsp wheel the user picks into the interpreter's environment. */
  private async installFromWheel(python: string): Promise<void> {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false,
      filters: { 'pallas-lsp wheel': ['whl'] },
      openLabel: 'Install into this environment',
    });
    const wheel = picked?.[0]?.fsPath;
    if (!wheel) {
      return;
    }
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Pallas: installing ${wheel}` },
      () => installServer(python, wheel),
    );
    this.log(`${python} -m pip install ${wheel}:\n${result.output}`);
    if (result.ok) {
      this.log(`installed ${installedServerPath(python)}`);
      await this.restart(true);
    } else {
      void vscode.window
        .showErrorMessage('Pallas LSP: pip could not install the wheel.', 'Show output')
        .then((c) => c && this.shared.output.show(true));
    }
  }

  dispose(): void {
    void this.stop();
    this.status.dispose();
  }
}
