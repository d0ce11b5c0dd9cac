// The extension's commands. Runs and the doctor go to the server as
// `workspace/executeCommand`; Show MLIR is the custom `pallas/mlir` request.
// Each handler checks for a running client and workspace trust first, so a
// command never fails with a stack trace in the user's face.
import * as path from 'path';
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient } from 'vscode-languageclient/node';
import { enclosingTopLevelFunction, topLevelFunctions } from './entry';
import { Commands, MlirRequest, RunArguments, RunMode } from './protocol';
import { isTrusted } from './settings';
import { VirtualDocuments } from './virtualDocuments';

export interface ServerHandle {
  /** The running client, or undefined (not started, failed, restarting). */
  client(): LanguageClient | undefined;
  restart(): Promise<void>;
  output: vscode.OutputChannel;
  onDoctorText(text: string): void;
}

const MODE_TITLES: Record<RunMode, string> = {
  compiled: 'Running on the GPU (compiled)',
  interpret: 'Running interpreted',
  compare: 'Comparing compiled and interpreted runs',
};

function runningClient(server: ServerHandle): LanguageClient | undefined {
  const client = server.client();
  if (!client || !client.isRunning()) {
    void vscode.window.showErrorMessage('Pallas LSP: the server is not running (see the Pallas LSP output).');
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

/** Shows a run's result: the full result in the output channel, a summary as a message. */
function reportRun(server: ServerHandle, args: RunArguments, result: unknown): void {
  const out = server.output;
  out.appendLine(`--- ${args.mode} run of ${args.entry} (${vscode.Uri.parse(args.uri).fsPath})`);
  out.appendLine(typeof result === 'string' ? result : JSON.stringify(result, null, 2));
  let summary: string | undefined;
  if (typeof result === 'string') {
    summary = result.split('\n')[0];
  } else if (result && typeof result === 'object') {
    const r = result as Record<string, unknown>;
    summary = [r.summary, r.message, r.status].find((v): v is string => typeof v === 'string');
  }
  void vscode.window
    .showInformationMessage(`Pallas: ${args.entry} (${args.mode}): ${summary ?? 'finished'}`, 'Show output')
    .then((choice) => choice && out.show(true));
}

async function run(server: ServerHandle, mode: RunMode, lensArgs?: Partial<RunArguments>): Promise<void> {
  if (!isTrusted()) {
    void vscode.window.showWarningMessage(
      'Pallas LSP: kernels are not run in an untrusted workspace. Trust the workspace to enable runs.',
    );
    return;
  }
  const client = runningClient(server);
  if (!client) {
    return;
  }
  let args: RunArguments;
  if (lensArgs?.uri && lensArgs.entry) {
    args = { uri: lensArgs.uri, entry: lensArgs.entry, mode: lensArgs.mode ?? mode };
  } else {
    const editor = pythonEditor();
    const entry = editor && (await chooseEntry(editor));
    if (!editor || !entry) {
      return;
    }
    if (editor.document.isDirty) {
      await editor.document.save(); // The run executes the file on disk.
    }
    args = { uri: client.code2ProtocolConverter.asUri(editor.document.uri), entry, mode };
  }
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Pallas: ${MODE_TITLES[args.mode]} ${args.entry}`, cancellable: true },
    async (_progress, token) => {
      try {
        // Cancelling the notification sends $/cancelRequest; the server kills the run.
        const result = await client.sendRequest(
          ExecuteCommandRequest.type,
          { command: Commands.run, arguments: [args] },
          token,
        );
        reportRun(server, args, result);
      } catch (err) {
        if (!token.isCancellationRequested) {
          void vscode.window.showErrorMessage(`Pallas: ${args.mode} run of ${args.entry} failed: ${errorText(err)}`);
        }
      }
    },
  );
}

async function showMlir(server: ServerHandle, docs: VirtualDocuments): Promise<void> {
  const editor = pythonEditor();
  const client = editor && runningClient(server);
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

async function doctor(server: ServerHandle, docs: VirtualDocuments): Promise<void> {
  const client = runningClient(server);
  if (!client) {
    return;
  }
  try {
    const result = await client.sendRequest(ExecuteCommandRequest.type, { command: Commands.doctor, arguments: [] });
    const text = typeof result === 'string' ? result : JSON.stringify(result, null, 2);
    server.onDoctorText(text);
    await docs.show('doctor.txt', 'doctor', text);
  } catch (err) {
    void vscode.window.showErrorMessage(`Pallas: Doctor failed: ${errorText(err)}`);
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function registerCommands(server: ServerHandle, docs: VirtualDocuments): vscode.Disposable[] {
  const register = vscode.commands.registerCommand;
  return [
    register('pallasLsp.runOnGpu', (a?: Partial<RunArguments>) => run(server, 'compiled', a)),
    register('pallasLsp.runInterpreted', (a?: Partial<RunArguments>) => run(server, 'interpret', a)),
    register('pallasLsp.compare', (a?: Partial<RunArguments>) => run(server, 'compare', a)),
    register('pallasLsp.showMlir', () => showMlir(server, docs)),
    register('pallasLsp.doctor', () => doctor(server, docs)),
    register('pallasLsp.restart', () => server.restart()),
  ];
}
