// Entry point: owns the language client's lifecycle (start, restart on
// settings/interpreter/trust changes, stop) and wires the status bar, the
// commands and the read-only documents to it.
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { errorText, registerCommands, ServerHandle } from './commands';
import { Commands, StatusNotification } from './protocol';
import { onInterpreterChanged } from './pythonEnv';
import { installedServerPath, installServer, requirementFor } from './install';
import { bundledServer, resolveServer } from './serverPath';
import { ClientSettings, isTrusted, needsRestart, readSettings, SECTION } from './settings';
import { StatusBar } from './statusBar';
import { SCHEME, VirtualDocuments } from './virtualDocuments';

const CLIENT_ID = 'pallasLsp'; // Also makes vscode-languageclient honour `pallasLsp.trace.server`.
const CLIENT_NAME = 'Pallas LSP';
// Sections the server asks for in workspace/configuration: it names itself
// "pallas-lsp"; "pallasLsp" is this extension's settings namespace.
const SERVER_SECTIONS = [SECTION, 'pallas-lsp'];

class Extension implements ServerHandle, vscode.Disposable {
  readonly output = vscode.window.createOutputChannel(CLIENT_NAME);
  private readonly traceOutput = vscode.window.createOutputChannel(`${CLIENT_NAME} Trace`);
  private readonly statusBar = new StatusBar();
  private current?: LanguageClient;
  private settings?: ClientSettings;
  /** Serialises start/stop so that quick successive restarts cannot interleave. */
  private lifecycle: Promise<void> = Promise.resolve();
  /** Offer the install once per session, not on every restart. */
  private offeredInstall = false;

  constructor(private readonly extensionDir: string, private readonly version: string) {}

  client(): LanguageClient | undefined {
    return this.current;
  }

  onDoctorText(text: string): void {
    this.statusBar.applyDoctorText(text);
  }

  restart(): Promise<void> {
    this.lifecycle = this.lifecycle.then(async () => {
      await this.stopNow();
      await this.startNow();
    });
    return this.lifecycle;
  }

  stop(): Promise<void> {
    this.lifecycle = this.lifecycle.then(() => this.stopNow());
    return this.lifecycle;
  }

  /** Pushes settings that the server can apply without a restart. */
  async settingsChanged(): Promise<void> {
    const client = this.current;
    if (!client?.isRunning()) {
      return;
    }
    this.settings = await readSettings();
    await client.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { [SECTION]: this.settings.server },
    });
  }

  private async stopNow(): Promise<void> {
    const client = this.current;
    this.current = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.output.appendLine(`[client] stopping the server: ${errorText(err)}`);
      }
      await client.dispose();
    }
    this.statusBar.setState('stopped');
  }

  private async startNow(): Promise<void> {
    const settings = await readSettings();
    this.settings = settings;
    const server = resolveServer(settings.serverPath, settings.python, {
      bundled: bundledServer(this.extensionDir),
      trusted: isTrusted(),
    });
    this.output.appendLine(
      `[client] starting ${server.command} (found via ${server.source}); python: ${settings.python ?? 'not set'}` +
        ` (${settings.pythonSource}); workspace ${isTrusted() ? 'trusted' : 'untrusted: limited mode'}`,
    );
    const serverOptions: ServerOptions = {
      command: server.command,
      // The server's CLI knows error|warn|info|debug; "trace" is debug plus the client's JSON-RPC trace.
      args: ['serve', '--stdio', '--log-level', settings.server.logLevel === 'trace' ? 'debug' : settings.server.logLevel],
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'python' },
        { scheme: 'untitled', language: 'python' },
      ],
      diagnosticCollectionName: 'pallas-lsp',
      outputChannel: this.output,
      traceOutputChannel: this.traceOutput,
      initializationOptions: settings.server,
      synchronize: {
        // Helpers in other files and pyproject.toml change findings in open files.
        fileEvents: vscode.workspace.createFileSystemWatcher('**/{*.py,pyproject.toml}'),
      },
      middleware: {
        // Code lenses call `pallas.run` directly; in limited mode refuse it here too
        // (the server also refuses when `workspaceTrusted` is false).
        executeCommand: async (command, args, next) => {
          if (command === Commands.run && !isTrusted()) {
            void vscode.window.showWarningMessage('Pallas LSP: kernels are not run in an untrusted workspace.');
            return undefined;
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
              SERVER_SECTIONS.includes(params.items[i]?.section ?? '') ? this.settings?.server ?? value : value,
            );
          },
        },
      },
    };
    const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    this.current = client;
    let gotStatus = false;
    client.onNotification(StatusNotification, (status) => {
      gotStatus = true;
      this.statusBar.applyStatus(status);
    });
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.statusBar.setState('running');
      } else if (e.newState === State.Stopped && this.current === client) {
        this.statusBar.setState('stopped');
      }
    });
    this.statusBar.setState('starting');
    try {
      await client.start();
    } catch (err) {
      const hint =
        server.source === 'fallback'
          ? ' No pallas-lsp was found: install it into your Python environment (pip install pallas-lsp) or set "pallasLsp.path".'
          : '';
      this.statusBar.setState('failed', errorText(err));
      this.output.appendLine(`[client] the server did not start: ${errorText(err)}`);
      if (server.source === 'fallback' && settings.python && isTrusted() && !this.offeredInstall) {
        this.offeredInstall = true;
        void this.offerInstall(settings.python);
        return;
      }
      void vscode.window.showErrorMessage(`Pallas LSP: the server did not start: ${errorText(err)}.${hint}`);
      return;
    }
    this.statusBar.setServerVersion(client.initializeResult?.serverInfo?.version);
    const commands = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    // Servers that do not push `pallas/status` still answer the doctor; ask it once.
    setTimeout(() => {
      if (!gotStatus && this.current === client && client.isRunning() && commands.includes(Commands.doctor)) {
        client
          .sendRequest(ExecuteCommandRequest.type, { command: Commands.doctor, arguments: [] })
          .then((text) => typeof text === 'string' && this.statusBar.applyDoctorText(text))
          .catch(() => undefined);
      }
    }, 2000);
  }

  /** No pallas-lsp anywhere: offer to pip-install the wheel into the selected
   *  interpreter's environment (where resolveServer looks first after the setting). */
  private async offerInstall(python: string): Promise<void> {
    const requirement = requirementFor(this.version);
    const choice = await vscode.window.showInformationMessage(
      `Pallas LSP: no pallas-lsp was found. Install ${requirement} into the environment of ${python}?`,
      'Install',
      'Set pallasLsp.path',
    );
    if (choice === 'Set pallasLsp.path') {
      void vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.path`);
      return;
    }
    if (choice !== 'Install') {
      return;
    }
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Installing ${requirement}` },
      () => installServer(python, requirement),
    );
    this.output.appendLine(`[client] ${python} -m pip install ${requirement}:\n${result.output}`);
    if (result.ok) {
      this.output.appendLine(`[client] installed ${installedServerPath(python)}`);
      await this.restart();
    } else {
      this.output.show(true);
      void vscode.window.showErrorMessage(`Pallas LSP: pip could not install ${requirement} (see the output channel).`);
    }
  }

  dispose(): void {
    void this.stop();
    this.statusBar.dispose();
    this.output.dispose();
    this.traceOutput.dispose();
  }
}

let extension: Extension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const ext = new Extension(context.extensionPath, String(context.extension.packageJSON.version ?? ''));
  extension = ext;
  const docs = new VirtualDocuments();
  context.subscriptions.push(
    ext,
    docs,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
    ...registerCommands(ext, docs),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SECTION)) {
        return;
      }
      void (needsRestart(e) ? ext.restart() : ext.settingsChanged());
    }),
    // Trust enables custom paths and runs: start again in full mode.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void ext.restart()),
    await onInterpreterChanged(() => {
      if (vscode.workspace.getConfiguration(SECTION).get<string>('python', '') === '') {
        void ext.restart();
      }
    }),
  );
  await ext.restart();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
  extension = undefined;
}
