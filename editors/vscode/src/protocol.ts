// The wire contract between this extension and `pallas-lsp serve`, beyond
// standard LSP. Kept in one file so that a change on the server side has one
// place to be mirrored; docs/editors.md describes the same messages.
import { NotificationType, RequestType } from 'vscode-languageclient/node';

/** `workspace/executeCommand` command names the server implements. */
export const Commands = {
  run: 'pallas.run',
  doctor: 'pallas.doctor',
} as const;

export type RunMode = 'compiled' | 'interpret' | 'compare';

/** The single argument of `pallas.run`. */
export interface RunArguments {
  uri: string;
  entry: string;
  mode: RunMode;
}

export interface MlirParams {
  textDocument: { uri: string };
}

export interface MlirResult {
  mlir: string;
  functionsTotal?: number;
  functionsRelowered?: number;
}

/** `pallas/mlir`: the MLIR module the server keeps for a document. */
export const MlirRequest = new RequestType<MlirParams, MlirResult, void>('pallas/mlir');

/**
 * `pallas/status`: what the server found about the environment it analyses
 * for. Every field is optional: older or partial servers send less, and the
 * status bar shows what it gets.
 */
export interface StatusParams {
  /** The JAX version of the knowledge the analysis reads (also `analysis.jaxVersion`). */
  jaxVersion?: string | null;
  /** What the analysis reads: its knowledge table's JAX, how it was obtained. */
  analysis?: { jaxVersion?: string | null; how?: string | null; source?: string | null } | null;
  /** What runs use: `state` ready | no-jax | template | refused, the interpreter and its JAX,
   *  `via` the launch template's first word (ssh, srun). */
  runs?: { state?: string; python?: string | null; jaxVersion?: string | null; detail?: string; via?: string | null } | null;
  python?: string | null;
  knowledge?: string | null;
  gpus?: Array<{ name?: string; computeCapability?: string | number[] | null }> | null;
  gpu?: string | null;
  message?: string | null;
}

export const StatusNotification = new NotificationType<StatusParams>('pallas/status');

/** `pallas/runOutput`: what the run in progress printed to stdout, as it printed it. */
export interface RunOutputParams {
  entry?: string;
  mode?: string;
  text: string;
}

export const RunOutputNotification = new NotificationType<RunOutputParams>('pallas/runOutput');

/** Settings as the server receives them: as `initializationOptions`, in
 *  `workspace/didChangeConfiguration` as `{ settings: { pallasLsp: ServerSettings } }`,
 *  and as the answer to `workspace/configuration` for section `pallasLsp`. */
export interface ServerSettings {
  python: string | null;
  /** Where `python` came from: "setting" (the user named it) wins over the
   *  project's `[tool.pallas-lsp] python`; a selected or found interpreter does not. */
  pythonSource?: string;
  logLevel: string;
  select: string[];
  ignore: string[];
  runner: { launchTemplate: string | null; timeoutSeconds: number; clientShowsResults?: boolean };
  /** False in an untrusted workspace: the server must refuse to run kernels. */
  workspaceTrusted: boolean;
}
