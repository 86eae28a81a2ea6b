/**
 * What one instance shows (its `InstanceView`): its state, revision, backend, restarts, whether
 * it answered, its stderr tail and why its last start failed. Every change goes through here, so
 * that each move of the state is audited and each change reaches the UI the same way.
 */
import { stat } from 'node:fs/promises';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { InstanceState, InstanceView } from '../../app/contract/instances';
import type { LaunchError } from '../../app/contract/launch-error';
import type { Server } from '../../app/policy/policy-schema';
import { failureHint, tellingLines } from './launch-summary';
import { LineTail } from './line-tail';
import { lifecycleEvent } from './session-events';

export interface StatusDeps {
  id: string;
  serverName: string;
  clientLabel: string;
  /** The client's own name from its handshake, once it sent one. */
  clientName: () => string | undefined;
  audit: (event: AuditEventInput) => void;
  onChange: (view: InstanceView) => void;
}

export class InstanceStatus {
  private current: InstanceState = {
    kind: 'starting',
    since: new Date().toISOString(),
    attempt: 0,
  };
  private backend: string | undefined;
  private revision = 0;
  private restarts = 0;
  /** Whether the current process answered `initialize`. */
  private answered = false;
  /** Why the last process ended before answering, when it did. */
  private failure: InstanceView['failure'];
  /** The server's stderr, and Warden's own notes about the session, as the UI shows them. */
  readonly tail = new LineTail(200, 8192);

  constructor(private readonly d: StatusDeps) {}

  get state(): InstanceState {
    return this.current;
  }

  /** Whether the current process answered `initialize`. */
  get ready(): boolean {
    return this.answered;
  }

  view(): InstanceView {
    const clientName = this.d.clientName();
    return {
      id: this.d.id,
      server: this.d.serverName,
      client: this.d.clientLabel,
      revision: this.revision,
      ...(this.backend ? { backend: this.backend } : {}),
      state: this.current,
      restarts: this.restarts,
      stderrTail: this.tail.lines(),
      ready: this.answered,
      ...(clientName ? { clientName } : {}),
      ...(this.failure ? { failure: this.failure } : {}),
    };
  }

  set(state: InstanceState): void {
    const previous = this.current.kind;
    this.current = state;
    this.d.audit(lifecycleEvent(this.d.serverName, this.d.id, state, previous));
    this.d.onChange(this.view());
  }

  /** The revision in effect moves from `from` to `to`; an instance on another one stays on it. */
  follow(from: number, to: number): void {
    if (this.revision !== from) return;
    this.revision = to;
    this.d.onChange(this.view());
  }

  /** A process is being launched (attempt number: the restarts so far); it has not answered. */
  starting(): void {
    this.answered = false;
    this.set({ kind: 'starting', since: new Date().toISOString(), attempt: this.restarts });
  }

  /** The process was launched in `backend` for `revision` (shown with the next change). */
  launched(backend: string, revision: number): void {
    this.backend = backend;
    this.revision = revision;
  }

  /** The launched process runs and reads its input. */
  running(pid: number | undefined): void {
    this.set({
      kind: 'running',
      since: new Date().toISOString(),
      ...(pid !== undefined ? { pid } : {}),
    });
  }

  /** Warden is stopping the process (a restart, idleness, the session's end). */
  stopping(): void {
    this.set({ kind: 'stopping', since: new Date().toISOString() });
  }

  /** The server was stopped for being idle; it starts again on the next request. */
  idled(): void {
    this.set({
      kind: 'exited',
      at: new Date().toISOString(),
      code: null,
      signal: null,
      reason: 'idle; starts again on the next request',
    });
  }

  /** The instance failed for good (with the launch's own error when the launch failed). */
  failed(reason: string, launchError?: LaunchError): void {
    this.set({
      kind: 'failed',
      at: new Date().toISOString(),
      reason,
      ...(launchError ? { launchError } : {}),
    });
  }

  /** The process answered `initialize`: why an earlier one failed no longer applies. */
  answer(): void {
    this.answered = true;
    this.failure = undefined;
    this.d.onChange(this.view());
  }

  /** Counts a restart of the server within the session (shown with the next change). */
  restarted(): void {
    this.restarts++;
  }

  /**
   * Shows how the session ended: failed with `failure` when there is one; else, unless it failed
   * already, failed with `lastCrash` when the client gave up on a crashing server, or exited.
   */
  ended(reason: string, failure: string | undefined, lastCrash: string | undefined): void {
    if (failure !== undefined) {
      this.set({ kind: 'failed', at: new Date().toISOString(), reason: failure });
    } else if (this.current.kind !== 'failed' && lastCrash) {
      // The client gave up on a server that was crashing: that is a failure, not a clean exit.
      this.set({
        kind: 'failed',
        at: new Date().toISOString(),
        reason: `${lastCrash}; then ${reason}`,
      });
    } else if (this.current.kind !== 'failed') {
      this.set({ kind: 'exited', at: new Date().toISOString(), code: null, signal: null, reason });
    }
  }

  /** The telling lines of the server's stderr, to put in an error the client shows. */
  stderrNote(): string {
    const lines = tellingLines(this.tail.lines());
    if (lines.length === 0) return '';
    return lines.length === 1
      ? `; its stderr: ${lines[0]!}`
      : `; its stderr: ${lines.map((l) => `"${l}"`).join(', ')}`;
  }

  /**
   * Keeps the telling stderr lines of a process that ended before answering, then the likely fix
   * once the folders it names were looked at on the host.
   */
  diagnose(server: Server): void {
    const all = this.tail.lines();
    const failure = { lines: tellingLines(all) };
    this.failure = failure;
    const exists = (folder: string) =>
      stat(folder).then(
        (st) => st.isDirectory(),
        () => false,
      );
    const launch = server.launch;
    if (!launch) return;
    void failureHint(all, server.policy, launch, exists).then((hint) => {
      if (!hint || this.failure !== failure) return;
      this.failure = { ...failure, hint };
      this.d.onChange(this.view());
    });
  }
}
