// A small LSP client on vscode-jsonrpc (the protocol library under
// vscode-languageclient) for the end-to-end tests and the editor benchmark:
// spawns a real server over pipes, answers the requests servers send to
// clients, tracks published diagnostics, and applies workspace edits the way
// an editor does.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import rpc from 'vscode-jsonrpc/node.js';

export const uriOf = (path) => pathToFileURL(path).href;

/**
 * Client capabilities of a modern editor (what VS Code 1.82 sends, trimmed).
 * With `pull`, the client also offers pull diagnostics (textDocument/diagnostic),
 * as vscode-languageclient 9 does; without, it relies on publishDiagnostics.
 */
export function clientCapabilities({ pull = false } = {}) {
  const caps = {
    general: { positionEncodings: ['utf-16'] },
    window: { workDoneProgress: true, showMessage: {} },
    workspace: {
      applyEdit: true,
      configuration: true,
      workspaceEdit: { documentChanges: true },
      didChangeConfiguration: { dynamicRegistration: true },
      didChangeWatchedFiles: { dynamicRegistration: true },
      codeLens: { refreshSupport: true },
      executeCommand: { dynamicRegistration: false },
    },
    textDocument: {
      synchronization: { didSave: true, dynamicRegistration: false },
      publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true },
      codeAction: {
        codeActionLiteralSupport: {
          codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'refactor.rewrite', 'source', 'source.fixAll'] },
        },
        resolveSupport: { properties: ['edit'] },
        dataSupport: true,
        isPreferredSupport: true,
      },
      codeLens: {},
      hover: { contentFormat: ['markdown', 'plaintext'] },
    },
  };
  if (pull) {
    caps.textDocument.diagnostic = { dynamicRegistration: false, relatedDocumentSupport: false };
    caps.workspace.diagnostics = { refreshSupport: true };
  }
  return caps;
}

export class LspSession {
  /**
   * @param {string} command executable
   * @param {string[]} args
   * @param {{cwd?: string, env?: object, settings?: object, section?: string,
   *          configuration?: (section: string | undefined) => unknown}} options
   *   `workspace/configuration` is answered by `configuration(section)` when
   *   given, else with `settings` for `section` and null for other sections.
   */
  constructor(command, args, options = {}) {
    this.proc = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...(options.env ?? {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => {
      // Keep the tail only: a failing test prints it, and a chatty server must not exhaust memory.
      this.stderr = (this.stderr + d.toString()).slice(-20000);
    });
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
    this.connection = rpc.createMessageConnection(
      new rpc.StreamMessageReader(this.proc.stdout),
      new rpc.StreamMessageWriter(this.proc.stdin),
    );
    this.settings = options.settings ?? {};
    this.section = options.section;
    /** uri -> [{version, diagnostics, at}] in arrival order */
    this.published = new Map();
    this.waiters = [];
    this.messages = [];
    this.progress = [];
    this.registrations = [];
    this.connection.onNotification('textDocument/publishDiagnostics', (params) => {
      const list = this.published.get(params.uri) ?? [];
      list.push({ version: params.version, diagnostics: params.diagnostics, at: performance.now() });
      this.published.set(params.uri, list);
      this.wake();
    });
    this.connection.onNotification('window/showMessage', (p) => {
      this.messages.push(p);
      this.wake();
    });
    this.connection.onNotification('window/logMessage', () => undefined);
    this.connection.onNotification('$/progress', (p) => this.progress.push(p));
    this.connection.onNotification((method) => {
      this.lastUnhandled = method; // custom notifications (pallas/status, telemetry)
    });
    const configuration =
      options.configuration ?? ((section) => (section && section === this.section ? this.settings : null));
    this.connection.onRequest('workspace/configuration', (params) =>
      params.items.map((item) => configuration(item.section) ?? null),
    );
    this.connection.onRequest('window/workDoneProgress/create', () => null);
    this.connection.onRequest('client/registerCapability', (p) => {
      this.registrations.push(...p.registrations);
      return null;
    });
    this.connection.onRequest('client/unregisterCapability', () => null);
    this.connection.onRequest('workspace/codeLens/refresh', () => null);
    this.connection.onRequest('workspace/diagnostic/refresh', () => null);
    this.connection.onRequest('workspace/semanticTokens/refresh', () => null);
    this.connection.onRequest('window/showMessageRequest', () => null);
    this.documents = new Map(); // uri -> {text, version}
    this.appliedEdits = [];
    this.connection.onRequest('workspace/applyEdit', async (params) => {
      this.appliedEdits.push(await this.applyWorkspaceEdit(params.edit));
      return { applied: true };
    });
    this.connection.listen();
  }

  wake() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      if (!w.check()) {
        this.waiters.push(w);
      }
    }
  }

  /** Resolves with predicate()'s first truthy value; rejects with `what` after timeoutMs. */
  waitFor(predicate, what, timeoutMs = 30000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n--- server stderr (tail) ---\n${this.stderr}`));
      }, timeoutMs);
      const waiter = {
        check: () => {
          const value = predicate();
          if (value) {
            clearTimeout(timer);
            resolve(value);
            return true;
          }
          return false;
        },
      };
      if (!waiter.check()) {
        this.waiters.push(waiter);
      }
    });
  }

  /** Diagnostics published for `uri` at `version` (or, for servers that omit versions, the next publication). */
  diagnosticsFor(uri, version, timeoutMs, afterIndex = 0) {
    return this.waitFor(() => {
      const list = (this.published.get(uri) ?? []).slice(afterIndex);
      return list.find((p) => p.version === version) ?? list.find((p) => p.version === undefined || p.version === null);
    }, `publishDiagnostics for ${uri} version ${version}`, timeoutMs);
  }

  publishedCount(uri) {
    return (this.published.get(uri) ?? []).length;
  }

  request(method, params, token) {
    // An explicit undefined would count as a second positional parameter.
    return token ? this.connection.sendRequest(method, params, token) : this.connection.sendRequest(method, params);
  }

  notify(method, params) {
    return this.connection.sendNotification(method, params);
  }

  async initialize(rootPath, initializationOptions, { pull = false } = {}) {
    const result = await this.request('initialize', {
      processId: process.pid,
      clientInfo: { name: 'pallas-e2e', version: '1' },
      rootUri: uriOf(rootPath),
      workspaceFolders: [{ uri: uriOf(rootPath), name: 'e2e' }],
      capabilities: clientCapabilities({ pull }),
      initializationOptions,
    });
    await this.notify('initialized', {});
    return result;
  }

  async open(path, languageId = 'python', text = readFileSync(path, 'utf8')) {
    const uri = uriOf(path);
    this.documents.set(uri, { text, version: 1 });
    await this.notify('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
    return uri;
  }

  text(uri) {
    return this.documents.get(uri).text;
  }

  /** Sends an edit (one range replacement, or full text with range omitted); returns the new version. */
  async change(uri, edit) {
    const doc = this.documents.get(uri);
    doc.version += 1;
    doc.text = edit.range ? applyTextEdits(doc.text, [edit]) : edit.text;
    await this.notify('textDocument/didChange', {
      textDocument: { uri, version: doc.version },
      contentChanges: [edit.range ? { range: edit.range, text: edit.text } : { text: edit.text }],
    });
    return doc.version;
  }

  /**
   * Applies a WorkspaceEdit the way an editor does: to each open document's
   * text, followed by a full-text didChange. Returns {uri: newVersion}.
   */
  async applyWorkspaceEdit(edit) {
    const versions = {};
    for (const [uri, edits] of editsByUri(edit)) {
      const doc = this.documents.get(uri);
      if (!doc) {
        throw new Error(`edit for a document that is not open: ${uri}`);
      }
      versions[uri] = await this.change(uri, { text: applyTextEdits(doc.text, edits) });
    }
    return versions;
  }

  async shutdown(timeoutMs = 10000) {
    await this.request('shutdown', null);
    await this.notify('exit', null);
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), timeoutMs);
    const result = await this.exited;
    clearTimeout(timer);
    this.connection.dispose();
    return result;
  }

  kill() {
    this.connection.dispose();
    this.proc.kill('SIGKILL');
  }

  /** Resident memory of the server process (VmRSS from /proc), in KiB. */
  residentKiB() {
    return readRss(this.proc.pid);
  }
}

/** A field of /proc/PID/status in KiB (VmRSS: resident now; VmHWM: peak resident). */
export function readRss(pid, field = 'VmRSS') {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Process ids of `pid` and all its descendants (from /proc/PID/task/TID/children). */
export function processTree(pid) {
  const out = [];
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift();
    out.push(p);
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      continue; // exited
    }
    for (const tid of tasks) {
      try {
        const children = readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').trim();
        queue.push(...children.split(/\s+/).filter(Boolean).map(Number));
      } catch {
        // task gone
      }
    }
  }
  return out;
}

/** Resident memory of a process and its descendants, in KiB. */
export function treeRssKiB(pid) {
  return processTree(pid).reduce((sum, p) => sum + (readRss(p) ?? 0), 0);
}

/** A WorkspaceEdit's text edits grouped by document URI (`changes` and `documentChanges`). */
export function editsByUri(edit) {
  const perUri = new Map();
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
    perUri.set(uri, [...edits]);
  }
  for (const change of edit.documentChanges ?? []) {
    if (!change.textDocument) {
      throw new Error(`unsupported resource operation in edit: ${JSON.stringify(change)}`);
    }
    perUri.set(change.textDocument.uri, [...(perUri.get(change.textDocument.uri) ?? []), ...change.edits]);
  }
  return perUri;
}

/** Offset in `text` (a JS string, so UTF-16 code units) of an LSP position. */
export function offsetAt(text, position) {
  let offset = 0;
  for (let line = 0; line < position.line; line++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) {
      return text.length;
    }
    offset = next + 1;
  }
  const lineEnd = text.indexOf('\n', offset);
  const end = lineEnd < 0 ? text.length : lineEnd;
  return Math.min(offset + position.character, end);
}

/** Applies TextEdits (non-overlapping, positions in the original text), as LSP specifies. */
export function applyTextEdits(text, edits) {
  const resolved = edits
    .map((e, i) => ({ start: offsetAt(text, e.range.start), end: offsetAt(text, e.range.end), newText: e.newText ?? e.text, i }))
    .sort((a, b) => b.start - a.start || b.i - a.i);
  for (const e of resolved) {
    text = text.slice(0, e.start) + e.newText + text.slice(e.end);
  }
  return text;
}

/** Percentile (nearest rank) of a list of numbers. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}
