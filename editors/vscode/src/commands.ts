// The extension's commands. Runs go through Runs (runs.ts), the doctor to the
// server as `workspace/executeCommand`, Show MLIR is the custom `pallas/mlir`
// request. Each command acts on the server of the active editor's folder and
// checks that it runs first, so a command never fails with a stack trace.
import * as path from 'path';
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient } from 'vscode-languageclient/node';
import { enclosingTopLevelFunction, topLevelFunctions } from './entry';
import { Commands, MlirRequest, RunArguments, RunMode } from './protocol';
import { Runs } from './runs';
import type { PallasServer } from './server';
import { errorText } from './server';
import { VirtualDocuments } from './virtualDocuments';

export interface Servers {
  /** The server for a document (its workspace folder's), starting it if needed. */
  serverFor(uri?: vscode.Uri): PallasServer | undefined;
  restartAll(): Promise<void>;
}

function runningClient(server: PallasServer | undefined): LanguageClient | undefined {
  const client = server?.client();
  if (!server || !client) {
    void vscode.window
      .showErrorMessage('Pallas LSP: the server is not running (see the Pallas LSP output).', 'Restart')
      .then((c) => c && server?.restart(true));
    return undefined;
  }
  return client;
}

function pythonEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'python') {
    void vscode.window.showErrorMessage('Pallas LSP: open a Python file first.');
    return undefined;
  }
  return editor;
}

/** The entry for a palette invocation: the function at the cursor, else a pick. */
async function chooseEntry(editor: vscode.TextEditor): Promise<string | undefined> {
  const lines = editor.document.getText().split(/\r?\n/);
  const here = enclosingTopLevelFunction(lines, editor.selection.active.line);
  if (here) {
    return here;
  }
  const functions = topLevelFunctions(lines);
  if (functions.length === 0) {
    void vscode.window.showErrorMessage('Pallas LSP: this file has no top-level function to run.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    functions.map((f) => ({ label: f.name, description: `line ${f.line + 1}` })),
    { placeHolder: 'Entry function to run (it must take no arguments)' },
  );
  return pick?.label;
}

/** A run from the palette, or from a lens / code action with its own arguments. */
async function run(servers: Servers, runs: Runs, mode: RunMode, given?: Partial<RunArguments>): Promise<unknown> {
  if (given?.uri && given.entry) {
    const server = servers.serverFor(vscode.Uri.parse(given.uri));
    return server && runs.run(server, { uri: given.uri, entry: given.entry, mode: given.mode ?? mode });
  }
  const editor = pythonEditor();
  const server = editor && servers.serverFor(editor.document.uri);
  const client = editor && runningClient(server);
  const entry = client && editor && (await chooseEntry(editor));
  if (!editor || !server || !client || !entry) {
    return undefined;
  }
  return runs.run(server, { uri: client.code2ProtocolConverter.asUri(editor.document.uri), entry, mode });
}

async function showMlir(servers: Servers, docs: VirtualDocuments): Promise<void> {
  const editor = pythonEditor();
  const client = editor && runningClient(servers.serverFor(editor.document.uri));
  if (!editor || !client) {
    return;
  }
  try {
    const uri = client.code2ProtocolConverter.asUri(editor.document.uri);
    const result = await client.sendRequest(MlirRequest, { textDocument: { uri } });
    const header =
      result.functionsTotal !== undefined
        ? `// ${path.basename(editor.document.uri.fsPath)}: ${result.functionsTotal} functions` +
          (result.functionsRelowered !== undefined ? `, ${result.functionsRelowered} re-lowered on the last edit` : '') +
          '\n'
        : '';
    await docs.show(`${path.basename(editor.document.uri.fsPath)}.mlir`, uri, header + result.mlir, 'mlir');
  } catch (err) {
    void vscode.window.showErrorMessage(`Pallas: Show MLIR failed: ${errorText(err)}`);
  }
}

async function doctor(servers: Servers, docs: VirtualDocuments): Promise<void> {
  const server = servers.serverFor(vscode.window.activeTextEditor?.document.uri);
  const client = runningClient(server);
  if (!server || !client) {
    return;
  }
  try {
    const result = await client.sendRequest(ExecuteCommandRequest.type, { command: Commands.doctor, arguments: [] });
    const text = typeof result === 'string' ? result : JSON.stringify(result, null, 2);
    server.status.applyDoctorText(text);
    await docs.show('doctor.txt', 'doctor', text);
  } catch (err) {
    void vscode.window.showErrorMessage(`Pallas: Doctor failed: ${errorText(err)}`);
  }
}

export function registerCommands(servers: Servers, runs: Runs, docs: VirtualDocuments): vscode.Disposable[] {
  const register = vscode.commands.registerCommand;
  return [
    register('pallasLsp.runOnGpu', (a?: Partial<RunArguments>) => run(servers, runs, 'compiled', a)),
    register('pallasLsp.runInterpreted', (a?: Partial<RunArguments>) => run(servers, runs, 'interpret', a)),
    register('pallasLsp.compare', (a?: Partial<RunArguments>) => run(servers, runs, 'compare', a)),
    register('pallasLsp.cancelRun', () => {
      if (runs.owner.cancel() === 0) {
        void vscode.window.showInformationMessage('Pallas: no run in progress.');
      }
    }),
    register('pallasLsp.showMlir', () => showMlir(servers, docs)),
    register('pallasLsp.doctor', () => doctor(servers, docs)),
    register('pallasLsp.restart', () => {
      const editor = vscode.window.activeTextEditor;
      const server = editor && servers.serverFor(editor.document.uri);
      return server ? server.restart(true) : servers.restartAll();
    }),
  ];
}
