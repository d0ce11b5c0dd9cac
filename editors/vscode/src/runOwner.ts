// One owner for kernel runs: at most one run per kernel (file + entry) at a
// time, whichever way it was asked for (palette, code lens, code action), and
// a way to cancel it. VS Code-free so the tests load it in plain node.

export interface RunHandle {
  readonly key: string;
  /** Cancels the run (the request's cancellation: the server kills the process group). */
  cancel(): void;
  readonly cancelled: boolean;
}

export function runKey(uri: string, entry: string): string {
  return `${uri}#${entry}`;
}

export class RunOwner {
  private readonly runs = new Map<string, { cancelled: boolean; onCancel: Array<() => void> }>();

  /** Claims the kernel; undefined when a run of it is already in progress. */
  begin(key: string): (RunHandle & { onCancel(f: () => void): void; end(): void }) | undefined {
    if (this.runs.has(key)) {
      return undefined;
    }
    const state = { cancelled: false, onCancel: [] as Array<() => void> };
    this.runs.set(key, state);
    const runs = this.runs;
    return {
      key,
      get cancelled() {
        return state.cancelled;
      },
      cancel() {
        if (!state.cancelled) {
          state.cancelled = true;
          state.onCancel.forEach((f) => f());
        }
      },
      onCancel(f: () => void) {
        state.onCancel.push(f);
      },
      end() {
        if (runs.get(key) === state) {
          runs.delete(key);
        }
      },
    };
  }

  isRunning(key: string): boolean {
    return this.runs.has(key);
  }

  /** Cancels one run, or every run (Pallas: Cancel run). Returns how many were cancelled. */
  cancel(key?: string): number {
    let n = 0;
    for (const [k, state] of this.runs) {
      if (key === undefined || k === key) {
        if (!state.cancelled) {
          state.cancelled = true;
          state.onCancel.forEach((f) => f());
          n++;
        }
      }
    }
    return n;
  }

  active(): string[] {
    return [...this.runs.keys()];
  }
}
