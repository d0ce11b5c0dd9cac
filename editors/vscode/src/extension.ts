// Entry point. Multi-root: one pallas-lsp server per workspace folder that
// holds Python files or notebooks (its own settings, interpreter and working
// directory), started when the first such document of the folder opens, plus
// one for untitled buffers (and for files when no folder is open). Wires the
// commands, the runs and the read-only documents to them.
import * as vscode from 'vscode';
import { registerCommands, Servers } from './commands';
import { CompareView } from './compareView';
import { onInterpreterChanged } from './pythonEnv';
import { Runs } from './runs';
import { PallasServer, selectorFor, Shared } from './server';
import { needsRestart, SECTION } from './settings';
import { SCHEME, VirtualDocuments } from './virtualDocuments';

const NO_FOLDER = '<no folder>';

function servesDocument(doc: vscode.TextDocument): boolean {
  return doc.languageId === 'python' && ['file', 'untitled', 'vscode-notebook-cell'].includes(doc.uri.scheme);
}

class Extension implements Servers, vscode.Disposable {
  private readonly servers = new Map<string, PallasServer>();
  private readonly output = vscode.window.createOutputChannel('Pallas LSP');
  private readonly traceOutput = vscode.window.createOutputChannel('Pallas LSP Trace');
  readonly runs = new Runs();
  private readonly shared: Shared;

  constructor(extensionDir: string) {
    this.shared = {
      extensionDir,
      output: this.output,
      traceOutput: this.traceOutput,
      run: (server, args) =>
        args.uri && args.entry
          ? this.runs.run(server, { uri: args.uri, entry: args.entry, mode: args.mode ?? 'interpret' })
          : Promise.resolve(undefined),
    };
  }

  private folderOf(uri: vscode.Uri): vscode.WorkspaceFolder | undefined {
    // Notebook cells carry the notebook's path with their own scheme.
    const asFile = uri.scheme === 'vscode-notebook-cell' ? vscode.Uri.file(uri.fsPath) : uri;
    return vscode.workspace.getWorkspaceFolder(asFile);
  }

  serverFor(uri?: vscode.Uri): PallasServer | undefined {
    const folder = uri ? this.folderOf(uri) : vscode.workspace.workspaceFolders?.[0];
    if (uri && !folder && uri.scheme === 'file' && (vscode.workspace.workspaceFolders?.length ?? 0) > 0) {
      return undefined; // a file outside every open folder: no server owns it
    }
    const key = folder ? folder.uri.toString() : NO_FOLDER;
    let server = this.servers.get(key);
    if (!server) {
      const hasFolders = (vscode.workspace.workspaceFolders?.length ?? 0) > 0;
      server = new PallasServer(folder, selectorFor(folder, hasFolders), this.shared);
      this.servers.set(key, server);
      void server.restart();
    }
    return server;
  }

  ensureFor(doc: vscode.TextDocument): void {
    if (servesDocument(doc)) {
      this.serverFor(doc.uri);
    }
  }

  all(): PallasServer[] {
    return [...this.servers.values()];
  }

  async restartAll(): Promise<void> {
    await Promise.all(this.all().map((s) => s.restart(true)));
  }

  foldersChanged(e: vscode.WorkspaceFoldersChangeEvent): void {
    for (const removed of e.removed) {
      const key = removed.uri.toString();
      this.servers.get(key)?.dispose();
      this.servers.delete(key);
    }
    // The folderless server's selector depends on whether folders exist.
    const loose = this.servers.get(NO_FOLDER);
    if (loose) {
      loose.dispose();
      this.servers.delete(NO_FOLDER);
    }
    vscode.workspace.textDocuments.forEach((d) => this.ensureFor(d));
  }

  configurationChanged(e: vscode.ConfigurationChangeEvent): void {
    for (const server of this.all()) {
      if (!e.affectsConfiguration(SECTION, server.resource)) {
        continue;
      }
      void (needsRestart(e, server.resource) ? server.restart(true) : server.settingsChanged());
    }
  }

  interpreterChanged(scope: vscode.Uri | undefined): void {
    for (const server of this.all()) {
      const own = vscode.workspace.getConfiguration(SECTION, server.resource).get<string>('python', '');
      const concerned = !scope || !server.folder || this.folderOf(scope)?.uri.toString() === server.folder.uri.toString();
      if (own === '' && concerned) {
        void server.restart(true);
      }
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.all().map((s) => s.stop()));
  }

  dispose(): void {
    this.all().forEach((s) => s.dispose());
    this.servers.clear();
    this.runs.dispose();
    this.output.dispose();
    this.traceOutput.dispose();
  }
}

let extension: Extension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const ext = new Extension(context.extensionPath);
  extension = ext;
  const docs = new VirtualDocuments();
  const compare = new CompareView();
  ext.runs.onCompare = (args, result) => compare.show(args, result);
  context.subscriptions.push(
    ext,
    docs,
    compare,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
    ...registerCommands(ext, ext.runs, docs),
    vscode.workspace.onDidOpenTextDocument((d) => ext.ensureFor(d)),
    vscode.workspace.onDidOpenNotebookDocument((nb) => nb.getCells().forEach((c) => ext.ensureFor(c.document))),
    vscode.workspace.onDidChangeWorkspaceFolders((e) => ext.foldersChanged(e)),
    vscode.workspace.onDidChangeConfiguration((e) => ext.configurationChanged(e)),
    // Trust enables custom paths and runs: start again in full mode.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void ext.restartAll()),
    await onInterpreterChanged((scope) => ext.interpreterChanged(scope)),
  );
  vscode.workspace.textDocuments.forEach((d) => ext.ensureFor(d));
  vscode.workspace.notebookDocuments.forEach((nb) => nb.getCells().forEach((c) => ext.ensureFor(c.document)));
}

export async function deactivate(): Promise<void> {
  await extension?.stopAll();
  extension = undefined;
}
