/**
 * What a session does when its server's process exits while the session goes on: a wall-time
 * limit that did its job waits for the next request, a crash restarts after a backoff, a crash
 * loop fails the instance for good. It remembers how the last process crashed, so that a session
 * its client ends meanwhile shows that failure instead of a clean exit.
 */
import type { Relay } from '../gateway/relay';
import { CrashPolicy } from './crash-policy';
import type { InstanceStatus } from './instance-status';
import type { ProcessExit } from './launcher';
import { workspaceStopText } from '../sandbox/workspace-aside';

export interface ExitDeps {
  relay: Relay;
  status: InstanceStatus;
  /** Fails the instance for good. */
  fail: (reason: string) => void;
  /** Starts the server again, once the backoff after a crash passed. */
  restart: () => void;
  /** Crashes tolerated within `crashWindowMs` before the instance is failed for good. */
  maxRestarts?: number;
  crashWindowMs?: number;
}

/** A process's exit code, and its signal only when one ended it: `1`, `null, signal SIGKILL`. */
function exitText(code: number | null, signal: string | null): string {
  return signal ? `${String(code)}, signal ${signal}` : String(code);
}

export class ServerExits {
  private readonly crashPolicy: CrashPolicy;
  /** How the last process crashed, kept so that an ending session still shows the failure. */
  private crash: string | undefined;

  constructor(private readonly d: ExitDeps) {
    this.crashPolicy = new CrashPolicy(d.maxRestarts, d.crashWindowMs);
  }

  /** How the last process crashed, unless a later one ended otherwise. */
  get lastCrash(): string | undefined {
    return this.crash;
  }

  /** Forgets earlier crashes (the user restarted the instance). */
  reset(): void {
    this.crashPolicy.reset();
    this.crash = undefined;
  }

  /** The last process ended without crashing (stopped when idle). */
  forgetCrash(): void {
    this.crash = undefined;
  }

  /**
   * The process exited while the session goes on; `crashed` unless Warden was stopping it, and
   * `wallSeconds` the wall-time limit it ran with.
   */
  exited(exit: ProcessExit, crashed: boolean, wallSeconds: number | undefined): void {
    const { code, signal } = exit;
    if (exit.reason === 'workspace-file') {
      // Not a crash to restart: the next launch would meet the same server doing the same.
      const why = workspaceStopText(exit);
      this.d.relay.failInFlight(`the server was ${why}`);
      this.crash = undefined;
      this.d.fail(`the server was ${why}`);
      return;
    }
    if (exit.reason === 'wall-time') {
      // A limit doing its job is not a crash: no restart now, a fresh run on the next request.
      const limit = `its wall-time limit (${String(wallSeconds)} s)`;
      this.d.relay.failInFlight(`the server was stopped at ${limit} before answering`);
      const reason = `stopped at ${limit}; starts again on the next request`;
      this.crash = undefined;
      this.d.status.set({ kind: 'exited', at: new Date().toISOString(), code, signal, reason });
      return;
    }
    this.d.relay.failInFlight(
      `the server exited (code ${exitText(code, signal)}) before answering${this.d.status.stderrNote()}`,
    );
    if (!crashed) return;
    const verdict = this.crashPolicy.crashed();
    if (verdict.kind === 'give-up') {
      this.d.fail(
        `the server crashed ${verdict.crashes} times within ${verdict.windowSeconds} s (last exit code ${exitText(code, signal)})${this.d.status.stderrNote()}`,
      );
      return;
    }
    this.crash = `the server crashed (exit code ${exitText(code, signal)})${this.d.status.stderrNote()}`;
    this.d.status.set({
      kind: 'exited',
      at: new Date().toISOString(),
      code,
      signal,
      reason: 'crashed; restarting',
    });
    this.d.status.restarted();
    setTimeout(() => this.d.restart(), verdict.afterMs).unref();
  }
}
