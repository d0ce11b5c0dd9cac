// Read-only documents for server output (the MLIR module of a file, the doctor
// report). VS Code shows a TextDocumentContentProvider's documents read-only,
// and reopening the same URI refreshes them in place.
import * as vscode from 'vscode';

export const SCHEME = 'pallas-lsp';

export class VirtualDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /** Stores `text` under a URI named `name` (tied to `key` for uniqueness) and opens it. */
  async show(name: string, key: string, text: string, language?: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${name}`, query: key });
    this.contents.set(uri.toString(), text);
    this.changed.fire(uri);
    let doc = await vscode.workspace.openTextDocument(uri);
    if (language && doc.languageId !== language) {
      const known = await vscode.languages.getLanguages();
      if (known.includes(language)) {
        doc = await vscode.languages.setTextDocumentLanguage(doc, language);
      }
    }
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }

  dispose(): void {
    this.changed.dispose();
    this.contents.clear();
  }
}
