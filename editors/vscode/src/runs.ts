// The one path every kernel run takes, whether it was asked for from the
// palette, a code lens or a code action: save the buffer (the server runs the
// file as written), one run per kernel at a time, one progress notification
// whose Cancel cancels the run's work-done progress (the server kills the
// run's process group and still answers, so what the run printed is kept),
// the server's stage messages inside that same notification (through the
// request's own workDoneToken), what the program prints in the "Pallas Runs"
// output channel as it prints it, the whole result there at the end, and
// one message whose severity is the run's status.
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
} from 'vscode-languageclient/node';
import { Commands, RunArguments, RunMode, RunOutputNotification } from './protocol';
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
// After Cancel, how long the server has to stop the run and answer with
// what it printed before the request itself is cancelled.
const CANCEL_GRACE_MS = 15000;

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
    // Once the request is out, Cancel goes to the run's progress; the request
    // itself is cancelled only if the server has not answered soon after.
    const cancel = new vscode.CancellationTokenSource();
    const workDoneToken = `pallas-run-${process.pid}-${nextToken++}`;
    let sent = false;
    let fallback: ReturnType<typeof setTimeout> | undefined;
    handle.onCancel(() => {
      if (!sent) {
        cancel.cancel();
        return;
      }
      void client.sendNotification(WorkDoneProgressCancelNotification.type, { token: workDoneToken });
      fallback = setTimeout(() => cancel.cancel(), CANCEL_GRACE_MS);
    });
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
          const reports = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
            if (value.kind !== 'end' && value.message) {
              progress.report({ message: value.message });
            }
          });
          // What the program prints, as it prints it (one run per server at a time).
          let liveHeader = false;
          const output = client.onNotification(RunOutputNotification, (params) => {
            if (typeof params?.text !== 'string') {
              return;
            }
            if (!liveHeader) {
              this.channel.appendLine(`--- ${args.mode} run of ${args.entry}: output as it runs`);
              liveHeader = true;
            }
            this.channel.append(params.text);
          });
          try {
            if (handle.cancelled) {
              // A token cancelled before the request starts is never looked at again.
              throw new Error('cancelled before it started');
            }
            sent = true;
            const result = await client.sendRequest(
              ExecuteCommandRequest.type,
              { command: Commands.run, arguments: [args], workDoneToken },
              cancel.token,
            );
            if (liveHeader) {
              this.channel.appendLine('');
            }
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
            output.dispose();
          }
        },
      );
    } finally {
      if (fallback) {
        clearTimeout(fallback);
      }
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
