// Which interpreter the user selected, asked of the Python extensions' APIs in
// order: the Python Environments extension (ms-python.vscode-python-envs,
// `getEnvironment(scope)`), then the Python extension's typed environments API
// (`getActiveEnvironmentPath` + `resolveEnvironment`, @vscode/python-extension),
// then its older execution-details API. Each is optional and may throw: a
// missing, older or broken extension yields undefined, never an exception.
// VS Code-free (structural types, resources passed through as they come) so
// that the tests load it in plain node.

/** A folder or file the question is about (a vscode.Uri; undefined: the window). */
export type Scope = unknown;

export interface PythonEnvironmentsApi {
  getEnvironment(scope: Scope): Promise<
    | {
        execInfo?: { run?: { executable?: string }; activatedRun?: { executable?: string } };
        environmentPath?: { fsPath?: string };
      }
    | undefined
  >;
  onDidChangeEnvironment?: (listener: (e: { uri?: Scope }) => unknown) => { dispose(): unknown };
}

export interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: Scope): { path: string };
    resolveEnvironment(env: { path: string } | string): Promise<
      { executable: { uri?: { fsPath: string }; sysPrefix?: string } } | undefined
    >;
    onDidChangeActiveEnvironmentPath?: (listener: (e: { resource?: Scope }) => unknown) => { dispose(): unknown };
  };
  settings?: {
    getExecutionDetails(resource?: Scope): { execCommand: string[] | undefined };
    onDidChangeExecutionDetails?: (listener: (resource?: Scope) => unknown) => { dispose(): unknown };
  };
}

export interface Interpreter {
  path: string;
  source: 'python-environments' | 'python-extension';
}

export async function interpreterFrom(
  envs: PythonEnvironmentsApi | undefined,
  python: PythonExtensionApi | undefined,
  scope?: Scope,
): Promise<Interpreter | undefined> {
  try {
    const env = await envs?.getEnvironment(scope);
    const exe = env?.execInfo?.run?.executable ?? env?.execInfo?.activatedRun?.executable;
    if (exe) {
      return { path: exe, source: 'python-environments' };
    }
  } catch {
    // fall through to the Python extension
  }
  try {
    if (python?.environments) {
      const active = python.environments.getActiveEnvironmentPath(scope);
      const resolved = await python.environments.resolveEnvironment(active);
      const exe = resolved?.executable.uri?.fsPath;
      if (exe) {
        return { path: exe, source: 'python-extension' };
      }
    }
  } catch {
    // fall through to the older API
  }
  try {
    const exec = python?.settings?.getExecutionDetails(scope).execCommand;
    if (exec && exec.length > 0 && exec[0]) {
      return { path: exec[0], source: 'python-extension' };
    }
  } catch {
    // no interpreter known
  }
  return undefined;
}

/**
 * Subscribes to interpreter changes of every API present; the listener gets
 * the scope the change is about (undefined: the whole window). Returns the
 * subscriptions (empty without the extensions).
 */
export function subscribeInterpreterChanges(
  envs: PythonEnvironmentsApi | undefined,
  python: PythonExtensionApi | undefined,
  listener: (scope: Scope | undefined) => void,
): Array<{ dispose(): unknown }> {
  const subs: Array<{ dispose(): unknown }> = [];
  const add = (f: () => { dispose(): unknown } | undefined) => {
    try {
      const d = f();
      if (d) {
        subs.push(d);
      }
    } catch {
      // an API without the event
    }
  };
  add(() => envs?.onDidChangeEnvironment?.((e) => listener(e?.uri)));
  if (python?.environments?.onDidChangeActiveEnvironmentPath) {
    add(() => python.environments?.onDidChangeActiveEnvironmentPath?.((e) => listener(e?.resource)));
  } else {
    add(() => python?.settings?.onDidChangeExecutionDetails?.((resource) => listener(resource)));
  }
  return subs;
}
