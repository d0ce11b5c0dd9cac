// A webview beside the editor with a compare run's per-output table
// (compareHtml.ts); the full text stays in the Pallas Runs output channel.
import * as vscode from 'vscode';
import { compareHtml } from './compareHtml';
import type { RunArguments } from './protocol';

export class CompareView implements vscode.Disposable {
  private panel?: vscode.WebviewPanel;

  show(args: RunArguments, result: unknown): void {
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        'pallasLsp.compare',
        `Pallas compare: ${args.entry}`,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: false },
      );
      this.panel.onDidDispose(() => (this.panel = undefined));
    }
    this.panel.title = `Pallas compare: ${args.entry}`;
    this.panel.webview.html = compareHtml(args, result, this.panel.webview.cspSource);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
