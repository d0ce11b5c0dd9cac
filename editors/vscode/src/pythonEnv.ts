// The Python interpreter the user selected in the Python extension
// (ms-python.python), when that extension is installed. We talk to its public
// API through a minimal structural type instead of a package dependency: the
// API has been stable for years, and an absent or older extension must simply
// yield "unknown" rather than break activation.
import * as vscode from 'vscode';

interface ResolvedEnvironment {
  executable: { uri?: vscode.Uri; sysPrefix?: string };
}

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(env: { path: string } | string): Promise<ResolvedEnvironment | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
  settings?: {
    getExecutionDetails(resource?: vscode.Uri): { execCommand: string[] | undefined };
    onDidChangeExecutionDetails?: vscode.Event<unknown>;
  };
}

const PYTHON_EXTENSION_ID = 'ms-python.python';

async function api(): Promise<PythonExtensionApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (!ext) {
    return undefined;
  }
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch {
    return undefined; // A broken Python extension must not take ours down.
  }
}

/** Absolute path of the selected interpreter, or undefined. */
export async function selectedInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const python = await api();
  if (!python) {
    return undefined;
  }
  try {
    if (python.environments) {
      const active = python.environments.getActiveEnvironmentPath(resource);
      const resolved = await python.environments.resolveEnvironment(active);
      const exe = resolved?.executable.uri?.fsPath;
      if (exe) {
        return exe;
      }
    }
    // The older API: a command line whose first word is the interpreter.
    const exec = python.settings?.getExecutionDetails(resource).execCommand;
    return exec && exec.length > 0 ? exec[0] : undefined;
  } catch {
    return undefined;
  }
}

/** Subscribes to interpreter changes; returns a disposable (no-op without the extension). */
export async function onInterpreterChanged(listener: () => void): Promise<vscode.Disposable> {
  const python = await api();
  const event =
    python?.environments?.onDidChangeActiveEnvironmentPath ??
    python?.settings?.onDidChangeExecutionDetails;
  return event ? event(() => listener()) : new vscode.Disposable(() => undefined);
}
