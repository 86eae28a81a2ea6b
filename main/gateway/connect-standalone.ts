/**
 * `warden connect` with no core running: this process runs a core of its own for the one session.
 * The session takes the server launched ahead of the core when the core reads the same server
 * and guards; its audit log opens once the session runs (the launch's events wait in order until
 * then, and no session runs without it). The egress decisions of the process launched ahead
 * follow its launch in the log, whether the session takes the process or stops it; the
 * destinations it waits to have decided are put to the user by this core once it takes it.
 */
import type { CliIo } from '../cli/cli-io';
import { noServerMessage } from '../cli/state-folder';
import { type Core, createCore } from '../core/core';
import { AuditNotOpenError } from '../core/deferred-audit';
import { remedyOf } from '../core/remedied-error';
import type { EarlyLaunch } from '../core/early-launch';
import { matchesEarlyLaunch } from '../core/early-launch-match';
import { networkDecisionAudit } from '../egress/egress-audit';
import type { AdoptedLaunch } from '../supervisor/launcher';
import { launchEvent, lifecycleEvent, workspaceFileEvents } from '../supervisor/session-events';
import type { ConnectStreams } from './connect-command';
import { LineTransport } from './line-transport';

export interface StandaloneSession {
  name: string;
  client: string;
  home: string;
  io: CliIo;
  streams: ConnectStreams;
  maxMessageBytes: number | undefined;
  /** Where stop signals arrive (default: this process). */
  signals?: SignalSource;
}

/** The part of `process` that delivers signals. */
export type SignalSource = Pick<NodeJS.Process, 'once' | 'off'>;

interface StopSignals {
  /** The exit status the signal asks for (128 + its number), once one arrived. */
  received(): number | undefined;
  remove(): void;
}

const STOP_SIGNALS = { SIGTERM: 15, SIGINT: 2, SIGHUP: 1 } as const;

/**
 * Calls `stop` on the first SIGTERM, SIGINT or SIGHUP. The handlers are removed then, so a second
 * signal ends the process at once, as it would without them.
 */
function onStopSignal(source: SignalSource, stop: () => void): StopSignals {
  let status: number | undefined;
  const names = Object.keys(STOP_SIGNALS) as (keyof typeof STOP_SIGNALS)[];
  const handlers = names.map((name) => {
    const handler = () => {
      status = 128 + STOP_SIGNALS[name];
      remove();
      stop();
    };
    source.once(name, handler);
    return [name, handler] as const;
  });
  const remove = () => {
    for (const [name, handler] of handlers) source.off(name, handler);
  };
  return { received: () => status, remove };
}

/** Runs the session on a core of its own; resolves with the exit status when it ends. */
export async function runStandalone(
  s: StandaloneSession,
  early: EarlyLaunch | undefined,
): Promise<number> {
  let adopted = false;
  let stopSignals: StopSignals | undefined;
  const core = await createCore({
    wardenHome: s.home,
    probeHost: false,
    deferAudit: true,
    ...(early ? { backend: early.backend } : {}),
    ...(s.maxMessageBytes ? { maxMessageBytes: s.maxMessageBytes } : {}),
  }).catch(async (error: unknown) => {
    await early?.discard();
    throw error;
  });
  // Nothing is relayed before the audit log is open: a call relayed first would go unrecorded if
  // the log then failed to open. Loading SQLite and opening the log run while the server, launched
  // ahead, starts.
  const auditOpened = core.openAudit().then(
    () => undefined,
    (error: unknown) => error,
  );
  try {
    const stored = core.config.readServer(s.name);
    if (!stored) {
      s.io.stderr(`warden: ${noServerMessage(s.name, s.home)}\n`);
      return 1;
    }
    const auditFailed = await auditOpened;
    if (auditFailed !== undefined) {
      // Fail closed: no session runs without its audit log.
      const remedy = remedyOf(auditFailed);
      const reason = (auditFailed as Error).message;
      s.io.stderr(
        `warden: the audit log cannot be opened: ${reason}${remedy ? ` (${remedy})` : ''}; the session is stopped\n`,
      );
      return 1;
    }
    // The process launched ahead is used only for what this core would launch itself.
    let adopt: AdoptedLaunch | undefined;
    if (early && matchesEarlyLaunch(early, stored, core.config.readGuards())) {
      const { instanceId, launched } = early;
      adopt = { instanceId, revision: early.server.revision, launched };
      adopted = true;
    } else if (early) {
      await discardRecorded(core, early);
    }
    const transport = new LineTransport(s.streams.stdin, s.streams.stdout, s.maxMessageBytes);
    const ended = new Promise<void>((resolve) => core.supervisor.onEnded(() => resolve()));
    // A client that stops its server with a signal ends the session as if it had closed stdin
    // (the input is let go, so nothing keeps this process alive after the session): the instance
    // is stopped and the audit log written to the end before this process goes.
    stopSignals = onStopSignal(s.signals ?? process, () => s.streams.stdin.destroy());
    await core.supervisor.open(s.name, transport, s.client, adopt);
    if (adopt) {
      recordDecisions(core, early!);
      early!.forwardGrants(core.grants);
    }
    await ended;
    return stopSignals.received() ?? 0;
  } finally {
    stopSignals?.remove();
    // Decisions made while the session stops are recorded too (held ones first, if any still are).
    if (adopted) recordDecisions(core, early!);
    if (!adopted) await early?.discard();
    await core.close().catch((error: unknown) => {
      // The audit log that could not be opened is reported above; anything else is not expected.
      if (!(error instanceof AuditNotOpenError)) throw error;
    });
  }
}

/**
 * Stops a process launched ahead for a server that changed before the core read it, and records
 * that it ran: every launch is in the audit log, this one too.
 */
async function discardRecorded(core: Core, early: EarlyLaunch): Promise<void> {
  const { server, instanceId } = early;
  core.audit.append(launchEvent(server, instanceId, early.launched));
  recordDecisions(core, early);
  await early.discard();
  const exit = await early.launched.process.exited;
  const { backend } = early.launched;
  for (const e of workspaceFileEvents(server.name, instanceId, backend, exit)) core.audit.append(e);
  const reason = 'launched ahead of the core for a server that changed meanwhile; stopped';
  const at = new Date().toISOString();
  const state = { kind: 'exited' as const, at, code: exit.code, signal: exit.signal, reason };
  core.audit.append(lifecycleEvent(server.name, instanceId, state, 'running'));
}

/** The egress decisions of the process launched ahead, into the core's audit log from now on. */
function recordDecisions(core: Core, early: EarlyLaunch): void {
  early.recordDecisions((e) => core.audit.append(networkDecisionAudit(e)));
}
