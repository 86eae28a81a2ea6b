/**
 * Seatbelt violations of one instance, read from the unified log. Every deny rule of the
 * instance's profile carries its tag (`(with message "<tag>")`), so `log stream` filtered on the
 * tag yields exactly that instance's refusals, which the caller records as audit events.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';

export interface SeatbeltViolation {
  /** Process name as the kernel reports it. */
  process: string;
  pid: number;
  /** The refused operation, e.g. `file-read-data`, `network-outbound`. */
  operation: string;
  /** The path or address, when the log names one. */
  target?: string;
  /** When the log says it happened (ISO 8601), if it says. */
  at?: string;
}

/** The log tag of the instance whose private directory is `instanceDir` (stable, hex only). */
export function seatbeltLogTag(instanceDir: string): string {
  return `mcpwarden-${createHash('sha256').update(instanceDir).digest('hex').slice(0, 16)}`;
}

/** argv of the `log stream` process that follows one instance's violations. */
export function logStreamArgv(tag: string): [string, ...string[]] {
  if (!/^[A-Za-z0-9_-]+$/.test(tag)) throw new Error(`invalid log tag ${JSON.stringify(tag)}`);
  return [
    '/usr/bin/log',
    'stream',
    '--style',
    'ndjson',
    '--predicate',
    `eventMessage CONTAINS "${tag}"`,
  ];
}

const DENY = /^Sandbox: (.+)\((\d+)\) deny(?:\(\d+\))? ([A-Za-z*-]+)(?: (.*))?$/;

/** Parses one ndjson line of `log stream`; undefined for lines that are not this tag's denials. */
export function parseViolationLine(line: string, tag: string): SeatbeltViolation | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { eventMessage, timestamp } = entry as { eventMessage?: unknown; timestamp?: unknown };
  if (typeof eventMessage !== 'string' || !eventMessage.includes(tag)) return undefined;
  const message = eventMessage.split(tag).join('').trim();
  const match = DENY.exec(message);
  if (!match) return undefined;
  const [, process = '', pid = '0', operation = '', target] = match;
  const violation: SeatbeltViolation = { process, pid: Number(pid), operation };
  const trimmed = target?.trim();
  if (trimmed) violation.target = trimmed;
  if (typeof timestamp === 'string') {
    const at = new Date(timestamp.replace(' ', 'T').replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
    if (!Number.isNaN(at.getTime())) violation.at = at.toISOString();
  }
  return violation;
}

export interface ViolationWatch {
  stop(): void;
}

/** Follows the unified log for `tag` until stopped; `onViolation` gets each refusal. */
export function watchViolations(
  tag: string,
  onViolation: (violation: SeatbeltViolation) => void,
  onError: (error: Error) => void,
  spawnLog: (argv: [string, ...string[]]) => ChildProcess = ([cmd, ...args]) =>
    spawn(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'] }),
): ViolationWatch {
  const child = spawnLog(logStreamArgv(tag));
  child.on('error', onError);
  if (child.stdout) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const violation = parseViolationLine(line, tag);
      if (violation) onViolation(violation);
    });
  }
  return { stop: () => void child.kill('SIGTERM') };
}
