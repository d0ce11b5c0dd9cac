// The language status item (the `{}` next to "Python" in the status bar) for
// the Python files and notebook cells one server serves: its state, the JAX
// it analyses for and the GPU in short words ("no GPU", never a dlopen
// error), with Doctor and Restart. It replaces an always-on status bar text.
import * as vscode from 'vscode';
import { StatusParams } from './protocol';
import { describeGpu, describeJax, parseDoctorText } from './statusText';

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';

export class LanguageStatus implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;
  private state: ServerState = 'stopped';
  private jax?: string; // "JAX 0.10.2", or "analysis JAX 0.10.2 · runs: no JAX"
  private gpu?: string;
  private serverVersion?: string;
  private detail?: string;

  constructor(id: string, selector: vscode.DocumentSelector, private readonly folderName?: string) {
    this.item = vscode.languages.createLanguageStatusItem(id, selector);
    this.item.name = 'Pallas LSP';
    this.render();
  }

  setState(state: ServerState, detail?: string): void {
    this.state = state;
    this.detail = detail;
    this.render();
  }

  setServerVersion(version: string | undefined): void {
    this.serverVersion = version;
    this.render();
  }

  applyStatus(status: StatusParams): void {
    const jax = describeJax(status);
    if (jax) {
      this.jax = jax;
    }
    const gpu = describeGpu(status);
    if (gpu) {
      this.gpu = gpu;
    }
    this.render();
  }

  applyDoctorText(text: string): void {
    this.applyStatus(parseDoctorText(text));
  }

  /** What the item shows, for the tests and the log. */
  get text(): string {
    return this.item.text;
  }

  private render(): void {
    const facts = [this.jax, this.gpu].filter(Boolean).join(' · ');
    const where = this.folderName ? ` (${this.folderName})` : '';
    switch (this.state) {
      case 'starting':
        this.item.text = `$(sync~spin) Pallas starting`;
        this.item.busy = true;
        break;
      case 'running':
        this.item.text = `Pallas${facts ? `: ${facts}` : ''}`;
        this.item.busy = false;
        break;
      default:
        this.item.text = this.state === 'failed' ? 'Pallas: not running' : 'Pallas: stopped';
        this.item.busy = false;
    }
    this.item.severity =
      this.state === 'failed' ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
    this.item.detail = `${this.serverVersion ? `pallas-lsp ${this.serverVersion}` : 'pallas-lsp'}${where}${
      this.detail ? ` — ${this.detail}` : ''
    }`;
    this.item.command =
      this.state === 'running'
        ? { title: 'Doctor', command: 'pallasLsp.doctor', tooltip: 'Python, JAX and GPU report' }
        : { title: 'Restart', command: 'pallasLsp.restart', tooltip: 'Start the server again' };
  }

  dispose(): void {
    this.item.dispose();
  }
}
