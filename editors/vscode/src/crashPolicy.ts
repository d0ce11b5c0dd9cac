// When the server process dies, restart it at most once in a while; a server
// that keeps dying stays stopped and the user gets one message with a Restart
// action (no restart loop, no stack of popups). VS Code-free, so the tests
// load it in plain node.

export type CrashDecision = 'restart' | 'stop';

export class CrashPolicy {
  private crashes: number[] = [];

  /**
   * @param maxRestarts automatic restarts allowed within `windowMs`
   * @param now a clock (tests pass their own)
   */
  constructor(
    private readonly maxRestarts = 1,
    private readonly windowMs = 3 * 60 * 1000,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Records a crash and says whether to restart automatically. */
  onCrash(): CrashDecision {
    const t = this.now();
    this.crashes = this.crashes.filter((c) => t - c < this.windowMs);
    this.crashes.push(t);
    return this.crashes.length <= this.maxRestarts ? 'restart' : 'stop';
  }

  /** How many crashes fall within the window (for the message). */
  recentCrashes(): number {
    const t = this.now();
    return this.crashes.filter((c) => t - c < this.windowMs).length;
  }

  /** A start the user asked for (Restart, a settings change) forgets the history. */
  reset(): void {
    this.crashes = [];
  }
}
