/**
 * Handlers of last resort for the whole process: an error that escaped every session's own
 * handling is logged and audited, and the core goes on serving every other session and the
 * control panel. A session's own callbacks run through {@link inSession}, so an error escaping
 * one of them is recorded with that session and ends it. (Attribution is explicit: on Node 20
 * AsyncLocalStorage would slow every promise in the gateway down.)
 */
import type { AuditEventInput } from '../../app/audit/audit-event';

/** The session a callback belongs to. */
export interface SessionScope {
  server: string;
  instance: string;
  /** Ends the session with a reason. */
  fault: (reason: string) => void;
}

interface Guard {
  record: (event: AuditEventInput) => void;
  log: (line: string) => void;
}

type Source = 'uncaughtException' | 'unhandledRejection' | 'session';

const guards = new Set<Guard>();

function report(source: Source, error: unknown, session?: SessionScope): void {
  const message = error instanceof Error ? error.message : String(error);
  const stack =
    error instanceof Error ? error.stack?.split('\n').slice(0, 8).join('\n') : undefined;
  const where = session ? ` in session ${session.instance} of "${session.server}"` : '';
  for (const guard of guards) {
    guard.log(`warden: unexpected error${where} (${source}): ${stack ?? message}`);
    try {
      guard.record({
        kind: 'core.error',
        outcome: 'error',
        source,
        message,
        ...(stack ? { stack } : {}),
        ...(session ? { server: session.server, instance: session.instance } : {}),
      });
    } catch {
      /* the audit store itself failed; the log line above is what is left */
    }
  }
  session?.fault(`an unexpected error in this session: ${message}`);
}

/**
 * Runs one of a session's callbacks: an exception (or the rejection of the promise it returns)
 * is logged, audited with the session, and ends that session instead of reaching the process.
 */
export function inSession(session: SessionScope, fn: () => unknown): void {
  try {
    const out = fn();
    if (out instanceof Promise) out.catch((error: unknown) => report('session', error, session));
  } catch (error) {
    report('session', error, session);
  }
}

const onException = (error: unknown) => report('uncaughtException', error);
const onRejection = (reason: unknown) => report('unhandledRejection', reason);

/**
 * Installs the process handlers for one core (the first core installs them, the last one to go
 * removes them); returns the function that uninstalls this core's.
 */
export function guardProcess(guard: Guard): () => void {
  if (guards.size === 0) {
    process.on('uncaughtException', onException);
    process.on('unhandledRejection', onRejection);
  }
  guards.add(guard);
  return () => {
    if (!guards.delete(guard) || guards.size > 0) return;
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}
