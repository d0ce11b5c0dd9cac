// The status bar item: the JAX version the server analyses for and the GPU it
// found, from the `pallas/status` notification (or, for servers that do not
// send it, from the text of the doctor command). Clicking it runs the doctor.
import * as vscode from 'vscode';
import { StatusParams } from './protocol';
import { describeGpu, parseDoctorText } from './statusText';

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private state: ServerState = 'stopped';
  private jax?: string;
  private gpu?: string;
  private serverVersion?: string;
  private detail?: string;

  constructor() {
    this.item = vscode.window.createStatusBarItem('pallasLsp.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Pallas LSP';
    this.item.command = 'pallasLsp.doctor';
    this.render();
    this.item.show();
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

  /** Applies a `pallas/status` notification; absent fields keep what we had. */
  applyStatus(status: StatusParams): void {
    if (status.jaxVersion) {
      this.jax = status.jaxVersion;
    }
    const gpu = describeGpu(status);
    if (gpu) {
      this.gpu = gpu;
    }
    this.render();
  }

  /** Best effort for servers without `pallas/status`: scan doctor's text. */
  applyDoctorText(text: string): void {
    this.applyStatus(parseDoctorText(text));
  }

  private render(): void {
    const parts = ['$(circuit-board) Pallas'];
    if (this.state === 'starting') {
      parts[0] = '$(sync~spin) Pallas';
    } else if (this.state === 'failed' || this.state === 'stopped') {
      parts[0] = '$(error) Pallas';
    }
    if (this.jax) {
      parts.push(`JAX ${this.jax}`);
    }
    if (this.gpu) {
      parts.push(this.gpu);
    }
    this.item.text = parts.join(' · ');
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**Pallas LSP** ${this.serverVersion ?? ''} — ${this.state}\n\n`);
    if (this.detail) {
      tooltip.appendText(`${this.detail}\n\n`);
    }
    tooltip.appendMarkdown(`JAX: ${this.jax ?? 'unknown'}  \nGPU: ${this.gpu ?? 'unknown'}\n\nClick for the doctor report.`);
    this.item.tooltip = tooltip;
    this.item.backgroundColor =
      this.state === 'failed' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
