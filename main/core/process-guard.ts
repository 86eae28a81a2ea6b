/**
 * Handlers of last resort for the whole process: an error that escaped every session's own
 * handling is logged and audited (with the session it came from, when it came from one), that
 * session is ended, and the core goes on serving every other session and the control panel.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditEventInput } from '../../app/audit/audit-event';

/** The session a piece of work belongs to. */
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

const scope = new AsyncLocalStorage<SessionScope>();
const guards = new Set<Guard>();

/** Runs `fn` (and everything it schedules) as part of a session, for error attribution. */
export function inSession<T>(session: SessionScope, fn: () => T): T {
  return scope.run(session, fn);
}

function report(source: 'uncaughtException' | 'unhandledRejection', error: unknown): void {
  const session = scope.getStore();
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
