// A stand-in for the one part that cannot exist here: the VS Code extension
// host (its test runners download VS Code). It provides the `vscode` module
// the extension's real bundle and the real vscode-languageclient use, and
// records what a user would see: messages with their actions, progress
// notifications, output channels, language status items, diagnostics.
// Everything else is real: the esbuild bundle of editors/vscode, the
// language client library, the pallas-lsp binary it spawns, JAX.
//
// Only what those code paths touch is modelled; any other API member is a
// harmless no-op (a Proxy), so an unmodelled call cannot pass a test by
// accident: the tests assert on what the recorder saw.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL, fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

// ---- Uri -------------------------------------------------------------------
export class Uri {
  constructor(scheme, authority, path, query, fragment) {
    this.scheme = scheme;
    this.authority = authority ?? '';
    this.path = path ?? '';
    this.query = query ?? '';
    this.fragment = fragment ?? '';
  }
  static file(p) {
    return new Uri('file', '', p);
  }
  static parse(text) {
    const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(text);
    if (!m) {
      return new Uri('file', '', text);
    }
    return new Uri(m[1], m[2], decodeURIComponent(m[3]), m[4] ? decodeURIComponent(m[4]) : '', m[5] ? decodeURIComponent(m[5]) : '');
  }
  static from(c) {
    return new Uri(c.scheme, c.authority, c.path, c.query, c.fragment);
  }
  static joinPath(base, ...parts) {
    return base.with({ path: [base.path, ...parts].join('/').replace(/\/+/g, '/') });
  }
  get fsPath() {
    return this.path;
  }
  with(change) {
    return new Uri(
      change.scheme ?? this.scheme,
      change.authority ?? this.authority,
      change.path ?? this.path,
      change.query ?? this.query,
      change.fragment ?? this.fragment,
    );
  }
  toString() {
    if (this.scheme === 'file') {
      return pathToFileURL(this.path).href;
    }
    const enc = (s) => encodeURIComponent(s).replace(/%2F/g, '/');
    return `${this.scheme}:${this.authority ? `//${this.authority}` : ''}${enc(this.path)}${this.query ? `?${enc(this.query)}` : ''}${
      this.fragment ? `#${enc(this.fragment)}` : ''
    }`;
  }
  toJSON() {
    return { scheme: this.scheme, path: this.path, fsPath: this.fsPath };
  }
}

// ---- events, disposables, cancellation -------------------------------------
export class Disposable {
  constructor(f) {
    this._f = f;
  }
  static from(...ds) {
    return new Disposable(() => ds.forEach((d) => d?.dispose?.()));
  }
  dispose() {
    this._f?.();
    this._f = undefined;
  }
}

export class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (listener, thisArg, disposables) => {
      const l = thisArg ? listener.bind(thisArg) : listener;
      this.listeners.add(l);
      const d = new Disposable(() => this.listeners.delete(l));
      disposables?.push?.(d);
      return d;
    };
  }
  fire(value) {
    for (const l of [...this.listeners]) {
      l(value);
    }
  }
  dispose() {
    this.listeners.clear();
  }
}

class CancellationTokenSource {
  constructor() {
    const emitter = new EventEmitter();
    this._emitter = emitter;
    const token = { isCancellationRequested: false };
    // As VS Code's tokens do: a listener added to a cancelled token is called
    // (on the next tick), so a cancel that comes first is never lost.
    token.onCancellationRequested = (listener, thisArg, disposables) => {
      if (token.isCancellationRequested) {
        const handle = setTimeout(() => listener.call(thisArg), 0);
        return new Disposable(() => clearTimeout(handle));
      }
      return emitter.event(listener, thisArg, disposables);
    };
    this.token = token;
  }
  cancel() {
    if (!this.token.isCancellationRequested) {
      this.token.isCancellationRequested = true;
      this._emitter.fire();
    }
  }
  dispose() {}
}

class CancellationError extends Error {}

// ---- positions and the value classes the converters build -------------------
class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
}
class Range {
  constructor(a, b, c, d) {
    if (typeof a === 'number') {
      this.start = new Position(a, b);
      this.end = new Position(c, d);
    } else {
      this.start = a;
      this.end = b;
    }
  }
}
class Diagnostic {
  constructor(range, message, severity) {
    Object.assign(this, { range, message, severity });
  }
}
class MarkdownString {
  constructor(value = '') {
    this.value = value;
  }
  appendMarkdown(v) {
    this.value += v;
    return this;
  }
  appendText(v) {
    this.value += v;
    return this;
  }
}
class RelativePattern {
  constructor(base, pattern) {
    this.baseUri = base?.uri ?? base;
    this.base = this.baseUri?.fsPath ?? String(base);
    this.pattern = pattern;
  }
}
class ThemeColor {
  constructor(id) {
    this.id = id;
  }
}
/** Any other class: keeps its constructor arguments. */
class Value {
  constructor(...args) {
    this.args = args;
  }
}
const valueClasses = new Map();
function valueClass(name) {
  if (!valueClasses.has(name)) {
    valueClasses.set(name, class extends Value {});
  }
  return valueClasses.get(name);
}

class Kind {
  constructor(value) {
    this.value = value;
  }
  append(part) {
    return new Kind(this.value ? `${this.value}.${part}` : part);
  }
  contains(other) {
    return this.value === '' || other.value === this.value || other.value.startsWith(`${this.value}.`);
  }
  intersects(other) {
    return this.contains(other) || other.contains(this);
  }
}
const CodeActionKind = {
  Empty: new Kind(''),
  QuickFix: new Kind('quickfix'),
  Refactor: new Kind('refactor'),
  RefactorExtract: new Kind('refactor.extract'),
  RefactorInline: new Kind('refactor.inline'),
  RefactorRewrite: new Kind('refactor.rewrite'),
  Source: new Kind('source'),
  SourceOrganizeImports: new Kind('source.organizeImports'),
  SourceFixAll: new Kind('source.fixAll'),
};

/** An enum whose members are numbered on first use (only identity matters to the client). */
function numberedEnum(known = {}) {
  let next = 100;
  return new Proxy(
    { ...known },
    {
      get(target, key) {
        if (typeof key !== 'string') {
          return undefined;
        }
        if (!(key in target)) {
          target[key] = next++;
        }
        return target[key];
      },
    },
  );
}

/** An API namespace: the modelled members, and a no-op returning a Disposable for the rest. */
function namespace(members) {
  return new Proxy(members, {
    get(target, key) {
      if (key in target || typeof key !== 'string') {
        return target[key];
      }
      if (key.startsWith('onDid') || key.startsWith('onWill')) {
        return () => new Disposable();
      }
      return () => new Disposable();
    },
  });
}

// ---- glob and selectors -----------------------------------------------------
function globMatch(pattern, path) {
  const p = typeof pattern === 'string' ? pattern : `${pattern.base}/${pattern.pattern}`;
  const re = p
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*\*\//g, '\u0000')
    .replace(/\*\*/g, '.*')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]')
    .replace(/\u0000/g, '(?:.*/)?');
  return new RegExp(`^${re}$`).test(path);
}

function filterMatches(filter, doc) {
  if (typeof filter === 'string') {
    return filter === '*' || filter === doc.languageId;
  }
  if (filter.language && filter.language !== '*' && filter.language !== doc.languageId) {
    return false;
  }
  if (filter.notebookType !== undefined || filter.notebook !== undefined) {
    if (doc.uri.scheme !== 'vscode-notebook-cell') {
      return false;
    }
    const nb = typeof filter.notebook === 'object' ? filter.notebook : {};
    return !nb.pattern || globMatch(nb.pattern, doc.uri.fsPath);
  }
  if (filter.scheme && filter.scheme !== doc.uri.scheme) {
    return false;
  }
  if (filter.pattern && !globMatch(filter.pattern, doc.uri.fsPath)) {
    return false;
  }
  return true;
}

export function selectorMatches(selector, doc) {
  const filters = Array.isArray(selector) ? selector : [selector];
  return filters.some((f) => filterMatches(f, doc));
}

// ---- the host -----------------------------------------------------------------
export class TextDocument {
  constructor(path, text, languageId = 'python') {
    this.uri = Uri.file(path);
    this.fileName = path;
    this.languageId = languageId;
    this.version = 1;
    this._text = text;
    this.isDirty = false;
    this.isClosed = false;
    this.isUntitled = false;
    this.saves = 0;
  }
  getText() {
    return this._text;
  }
  get lineCount() {
    return this._text.split('\n').length;
  }
  async save() {
    this.saves++;
    this.isDirty = false;
    return true;
  }
}

/**
 * @param folders absolute paths of the workspace folders
 * @param settings { '*': {key: value}, [folderPath]: {key: value} } (keys like 'pallasLsp.path')
 */
export function createHost({ folders = [], settings = {} } = {}) {
  const rec = {
    messages: [], // { kind, text, actions }
    progress: [], // { title, location, cancellable, reports: [], source: CancellationTokenSource, done }
    channels: new Map(), // name -> { text, shown }
    statusItems: [], // LanguageStatusItem records
    diagnostics: new Map(), // uri -> Diagnostic[]
    executed: [], // commands executed through vscode.commands.executeCommand that nobody registered
    answer: () => undefined, // (message) -> the action the "user" picks
  };
  const commands = new Map();
  const config = { '*': { ...(settings['*'] ?? {}) } };
  for (const [k, v] of Object.entries(settings)) {
    config[k] = { ...v };
  }
  const workspaceFolders = folders.map((p, index) => ({ uri: Uri.file(p), name: p.split('/').pop(), index }));
  const events = {
    config: new EventEmitter(),
    open: new EventEmitter(),
    folders: new EventEmitter(),
  };
  const textDocuments = [];
  const notebookDocuments = [];
  events.openNotebook = new EventEmitter();

  const folderOf = (uri) =>
    workspaceFolders
      .filter((f) => uri && (uri.fsPath === f.uri.fsPath || uri.fsPath.startsWith(`${f.uri.fsPath}/`)))
      .sort((a, b) => b.uri.fsPath.length - a.uri.fsPath.length)[0];

  function lookup(full, resource) {
    const folder = resource ? folderOf(resource) : undefined;
    const scoped = folder ? config[folder.uri.fsPath] : undefined;
    if (scoped && full in scoped) {
      return { found: true, value: scoped[full] };
    }
    if (full in config['*']) {
      return { found: true, value: config['*'][full] };
    }
    return { found: false };
  }

  function getConfiguration(section, resource) {
    const full = (key) => (section ? `${section}.${key}` : key);
    const res = resource?.uri instanceof Uri ? resource.uri : resource;
    return {
      get(key, dflt) {
        const r = lookup(full(key), res);
        return r.found ? r.value : dflt;
      },
      has(key) {
        return lookup(full(key), res).found;
      },
      inspect(key) {
        return { key: full(key), globalValue: config['*'][full(key)] };
      },
      update: async () => undefined,
    };
  }

  function showMessage(kind) {
    return (text, ...rest) => {
      const actions = rest.filter((a) => typeof a === 'string' || (a && typeof a === 'object' && 'title' in a));
      const entry = { kind, text, actions: actions.map((a) => (typeof a === 'string' ? a : a.title)) };
      rec.messages.push(entry);
      return Promise.resolve(rec.answer(entry));
    };
  }

  function outputChannel(name) {
    const ch = { text: '', shown: 0 };
    rec.channels.set(name, ch);
    return {
      name,
      append: (v) => (ch.text += v),
      appendLine: (v) => (ch.text += `${v}\n`),
      replace: (v) => (ch.text = v),
      clear: () => (ch.text = ''),
      show: () => ch.shown++,
      hide: () => undefined,
      dispose: () => undefined,
    };
  }

  const vscode = {
    version: '1.95.0',
    Uri,
    Disposable,
    EventEmitter,
    CancellationTokenSource,
    CancellationError,
    Position,
    Range,
    Selection: Range,
    Location: valueClass('Location'),
    Diagnostic,
    MarkdownString,
    RelativePattern,
    ThemeColor,
    CodeActionKind,
    DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
    LanguageStatusSeverity: { Information: 0, Warning: 1, Error: 2 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    NotebookCellKind: { Markup: 1, Code: 2 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    TextDocumentSaveReason: { Manual: 1, AfterDelay: 2, FocusOut: 3 },
    env: { language: 'en', appName: 'Visual Studio Code (test host)', machineId: 'test', openExternal: async () => true },
    workspace: namespace({
      get workspaceFolders() {
        return workspaceFolders.length ? workspaceFolders : undefined;
      },
      get textDocuments() {
        return textDocuments;
      },
      get notebookDocuments() {
        return notebookDocuments;
      },
      onDidOpenNotebookDocument: events.openNotebook.event,
      isTrusted: true,
      getConfiguration,
      getWorkspaceFolder: (uri) => folderOf(uri),
      onDidChangeConfiguration: events.config.event,
      onDidOpenTextDocument: events.open.event,
      onDidChangeWorkspaceFolders: events.folders.event,
      createFileSystemWatcher: () => ({
        onDidCreate: () => new Disposable(),
        onDidChange: () => new Disposable(),
        onDidDelete: () => new Disposable(),
        dispose: () => undefined,
      }),
      registerTextDocumentContentProvider: () => new Disposable(),
      openTextDocument: async (uri) => textDocuments.find((d) => d.uri.toString() === uri.toString()),
      applyEdit: async () => true,
    }),
    window: namespace({
      activeTextEditor: undefined,
      visibleTextEditors: [],
      tabGroups: { all: [], onDidChangeTabs: () => new Disposable(), onDidChangeTabGroups: () => new Disposable() },
      showErrorMessage: showMessage('error'),
      showWarningMessage: showMessage('warning'),
      showInformationMessage: showMessage('info'),
      createOutputChannel: (name) => outputChannel(name),
      withProgress: async (options, task) => {
        const source = new CancellationTokenSource();
        const entry = { ...options, reports: [], source, done: false };
        rec.progress.push(entry);
        try {
          return await task({ report: (r) => entry.reports.push(r) }, source.token);
        } finally {
          entry.done = true;
        }
      },
      createStatusBarItem: (id) => {
        const item = { id, text: '', tooltip: undefined, shown: false, disposed: false };
        item.show = () => (item.shown = true);
        item.hide = () => (item.shown = false);
        item.dispose = () => (item.disposed = true);
        (rec.statusBar ??= []).push(item);
        return item;
      },
      showTextDocument: async () => undefined,
      showQuickPick: async () => undefined,
      showOpenDialog: async () => undefined,
      createWebviewPanel: (viewType, title) => {
        const panel = {
          viewType,
          title,
          webview: { html: '', cspSource: 'vscode-resource:' },
          onDidDispose: () => new Disposable(),
          dispose: () => undefined,
        };
        (rec.webviews ??= []).push(panel);
        return panel;
      },
    }),
    languages: namespace({
      match: (selector, doc) => (selectorMatches(selector, doc) ? 10 : 0),
      createDiagnosticCollection: (name) => ({
        name,
        set: (uri, diags) => {
          if (uri instanceof Uri) {
            rec.diagnostics.set(uri.toString(), diags ?? []);
          } else if (Array.isArray(uri)) {
            for (const [u, d] of uri) {
              rec.diagnostics.set(u.toString(), d ?? []);
            }
          }
        },
        delete: (uri) => rec.diagnostics.delete(uri.toString()),
        clear: () => rec.diagnostics.clear(),
        forEach: () => undefined,
        get: (uri) => rec.diagnostics.get(uri.toString()),
        has: (uri) => rec.diagnostics.has(uri.toString()),
        dispose: () => undefined,
      }),
      createLanguageStatusItem: (id, selector) => {
        const item = { id, selector, text: '', detail: '', severity: 0, busy: false, command: undefined, disposed: false };
        item.dispose = () => (item.disposed = true);
        rec.statusItems.push(item);
        return item;
      },
      getLanguages: async () => ['python'],
    }),
    commands: namespace({
      registerCommand: (id, fn) => {
        commands.set(id, fn);
        return new Disposable(() => commands.delete(id));
      },
      executeCommand: async (id, ...args) => {
        const fn = commands.get(id);
        if (fn) {
          return fn(...args);
        }
        rec.executed.push({ id, args });
        return undefined;
      },
      getCommands: async () => [...commands.keys()],
    }),
    extensions: namespace({ getExtension: () => undefined, all: [] }),
  };
  const module = new Proxy(vscode, {
    get(target, key) {
      if (key in target || typeof key !== 'string') {
        return target[key];
      }
      // An unmodelled enum (XxxKind, XxxTag, ...) or value class.
      if (/(Kind|Tag|Severity|Reason|Mode|Trigger\w*|Behavior|Alignment|Location)$/.test(key)) {
        target[key] = numberedEnum();
      } else {
        target[key] = valueClass(key);
      }
      return target[key];
    },
  });

  const host = {
    vscode: module,
    rec,
    commands,
    /** Opens a document the way VS Code does (textDocuments + onDidOpenTextDocument). */
    open(path, languageId = 'python') {
      const doc = new TextDocument(path, readFileSync(path, 'utf8'), languageId);
      textDocuments.push(doc);
      events.open.fire(doc);
      return doc;
    },
    /**
     * Opens a Jupyter notebook the way VS Code does: its cells' text documents
     * first (scheme vscode-notebook-cell), then the notebook.
     * @param cells [{ kind: 'code' | 'markdown', text }]
     */
    openNotebook(path, cells) {
      const notebook = {
        uri: Uri.file(path),
        notebookType: 'jupyter-notebook',
        version: 1,
        metadata: {},
        isDirty: false,
        isUntitled: false,
        isClosed: false,
      };
      const list = cells.map((c, index) => {
        const doc = new TextDocument(path, c.text, c.kind === 'code' ? 'python' : 'markdown');
        doc.uri = new Uri('vscode-notebook-cell', '', path, '', `W${index}sZmlsZQ==`);
        return { index, notebook, kind: c.kind === 'code' ? 2 : 1, document: doc, metadata: {}, outputs: [],
          executionSummary: undefined };
      });
      notebook.cellCount = list.length;
      notebook.cellAt = (i) => list[i];
      notebook.getCells = () => list;
      for (const cell of list) {
        textDocuments.push(cell.document);
      }
      notebookDocuments.push(notebook);
      for (const cell of list) {
        events.open.fire(cell.document);
      }
      events.openNotebook.fire(notebook);
      return notebook;
    },
    /** Changes a setting (scope: a folder path, or '*') and fires onDidChangeConfiguration. */
    setConfig(key, value, scope = '*') {
      (config[scope] ??= {})[key] = value;
      events.config.fire({
        affectsConfiguration(section, resource) {
          if (!(key === section || key.startsWith(`${section}.`))) {
            return false;
          }
          if (scope === '*' || !resource) {
            return true;
          }
          const res = resource?.uri instanceof Uri ? resource.uri : resource;
          return folderOf(res)?.uri.fsPath === scope;
        },
      });
    },
    /** Loads a CommonJS bundle with this host as its `vscode` module. */
    load(bundlePath) {
      const Module = require('module');
      const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) {
        return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
      };
      require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: module };
      delete require.cache[bundlePath];
      return require(bundlePath);
    },
    context(extensionPath) {
      return {
        subscriptions: [],
        extensionPath,
        extensionUri: Uri.file(extensionPath),
        extension: { packageJSON: JSON.parse(readFileSync(`${extensionPath}/package.json`, 'utf8')) },
        globalState: { get: () => undefined, update: async () => undefined },
        workspaceState: { get: () => undefined, update: async () => undefined },
        asAbsolutePath: (p) => `${extensionPath}/${p}`,
      };
    },
  };
  return host;
}

/** Polls `predicate` until it is truthy (returns its value) or `ms` pass (throws with `what`). */
export async function until(predicate, what, ms = 30000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = predicate();
    if (v) {
      return v;
    }
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const __filename = fileURLToPath(import.meta.url);
