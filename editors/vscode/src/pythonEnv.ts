// The Python extensions, when installed: ms-python.vscode-python-envs (the
// Python Environments API) and ms-python.python (its typed environments API).
// Talked to through structural types (pythonApis.ts) instead of package
// dependencies: an absent, older or broken extension yields "unknown" and
// never breaks activation.
import * as vscode from 'vscode';
import {
  Interpreter,
  interpreterFrom,
  PythonEnvironmentsApi,
  PythonExtensionApi,
  subscribeInterpreterChanges,
} from './pythonApis';

async function exportsOf<T>(id: string): Promise<T | undefined> {
  const ext = vscode.extensions.getExtension<T>(id);
  if (!ext) {
    return undefined;
  }
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch {
    return undefined; // A broken Python extension must not take ours down.
  }
}

const envsApi = () => exportsOf<PythonEnvironmentsApi>('ms-python.vscode-python-envs');
const pythonApi = () => exportsOf<PythonExtensionApi>('ms-python.python');

/** The interpreter selected for a folder or file, or undefined. */
export async function selectedInterpreter(resource?: vscode.Uri): Promise<Interpreter | undefined> {
  return interpreterFrom(await envsApi(), await pythonApi(), resource);
}

/** Subscribes to interpreter changes; the listener gets the folder or file the change is about. */
export async function onInterpreterChanged(listener: (scope: vscode.Uri | undefined) => void): Promise<vscode.Disposable> {
  const subs = subscribeInterpreterChanges(await envsApi(), await pythonApi(), (scope) => {
    const s = scope as { uri?: vscode.Uri } | vscode.Uri | undefined;
    // The environments API passes a Uri or a WorkspaceFolder ({uri}).
    listener(s instanceof vscode.Uri ? s : (s as { uri?: vscode.Uri } | undefined)?.uri);
  });
  return new vscode.Disposable(() => subs.forEach((d) => d.dispose()));
}
