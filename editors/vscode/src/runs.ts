// The one path every kernel run takes, whether it was asked for from the
// palette, a code lens or a code action: save the buffer (the server runs the
// file as written), one run per kernel at a time, one progress notification
// whose Cancel cancels the request (the server kills the run's process
// group), the server's stage messages inside that same notification (through
// the request's own workDoneToken), the whole result in the "Pallas Runs"
// output channel and one message whose severity is the run's status.
import * as vscode from 'vscode';
import { ExecuteCommandRequest, WorkDoneProgress } from 'vscode-languageclient/node';
import { Commands, RunArguments, RunMode } from './protocol';
import { RunOwner, runKey } from './runOwner';
import { runHeadline, runReport, runSeverity } from './runResult';
import type { PallasServer } from './server';
import { errorText } from './server';
import { isTrusted } from './settings';

const MODE_TITLES: Record<RunMode, string> = {
  compiled: 'running compiled',
  interpret: 'running interpreted',
  compare: 'comparing compiled and interpreted',
};

let nextToken = 1;

export class Runs implements vscode.Disposable {
  readonly owner = new RunOwner();
  readonly channel = vscode.window.createOutputChannel('Pallas Runs');
  /** Called with a compare run's result (the compare view). */
  onCompare?: (args: RunArguments, result: unknown) => void;

  async run(server: PallasServer, args: RunArguments): Promise<unknown> {
    if (!isTrusted()) {
      void vscode.window.showWarningMessage(
        'Pallas LSP: kernels are not run in an untrusted workspace. Trust the workspace to enable runs.',
      );
      return undefined;
    }
    const client = server.client();
    if (!client) {
      void vscode.window
        .showErrorMessage('Pallas LSP: the server is not running.', 'Restart')
        .then((c) => c && server.restart(true));
      return undefined;
    }
    const key = runKey(args.uri, args.entry);
    const handle = this.owner.begin(key);
    if (!handle) {
      const choice = await vscode.window.showWarningMessage(
        `Pallas: ${args.entry} is already running.`,
        'Cancel that run',
      );
      if (choice) {
        this.owner.cancel(key);
      }
      return undefined;
    }
    // Bound before anything can wait: a cancel that comes before the request
    // is sent (while saving, before the notification shows) still counts.
    const cancel = new vscode.CancellationTokenSource();
    handle.onCancel(() => cancel.cancel());
    try {
      const uri = vscode.Uri.parse(args.uri);
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (doc?.isDirty) {
        await doc.save();
      }
      return await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Pallas: ${MODE_TITLES[args.mode] ?? args.mode} ${args.entry}`,
          cancellable: true,
        },
        async (progress, token) => {
          token.onCancellationRequested(() => handle.cancel());
          const workDoneToken = `pallas-run-${process.pid}-${nextToken++}`;
          const reports = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
            if (value.kind !== 'end' && value.message) {
              progress.report({ message: value.message });
            }
          });
          try {
            if (handle.cancelled) {
              // A token cancelled before the request starts is never looked at again.
              throw new Error('cancelled before it started');
            }
            const result = await client.sendRequest(
              ExecuteCommandRequest.type,
              { command: Commands.run, arguments: [args], workDoneToken },
              cancel.token,
            );
            this.report(args, uri, result);
            return result;
          } catch (err) {
            if (handle.cancelled) {
              this.channel.appendLine(`--- ${args.mode} run of ${args.entry}: cancelled`);
              void vscode.window.showWarningMessage(`Pallas: ${args.entry} (${args.mode}) cancelled`);
            } else {
              this.channel.appendLine(`--- ${args.mode} run of ${args.entry}: ${errorText(err)}`);
              void vscode.window
                .showErrorMessage(`Pallas: ${args.entry} (${args.mode}) could not run: ${errorText(err)}`, 'Show results')
                .then((c) => c && this.channel.show(true));
            }
            return undefined;
          } finally {
            reports.dispose();
          }
        },
      );
    } finally {
      cancel.dispose();
      handle.end();
    }
  }

  private report(args: RunArguments, uri: vscode.Uri, result: unknown): void {
    this.channel.append(runReport(args, uri.fsPath, result));
    const headline = runHeadline(args, result);
    const show = (choice: string | undefined) => choice && this.channel.show(true);
    switch (runSeverity(result)) {
      case 'info':
        void vscode.window.showInformationMessage(headline, 'Show results').then(show);
        break;
      case 'warning':
        void vscode.window.showWarningMessage(headline, 'Show results').then(show);
        break;
      default:
        void vscode.window.showErrorMessage(headline, 'Show results').then(show);
    }
    if (args.mode === 'compare') {
      this.onCompare?.(args, result);
    }
  }

  dispose(): void {
    this.owner.cancel();
    this.channel.dispose();
  }
}
