import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  type SeatbeltViolation,
  logStreamArgv,
  parseViolationLine,
  seatbeltLogTag,
  watchViolations,
} from './violation-log';

const tag = seatbeltLogTag('/private/var/folders/xy/instance-1');
const line = (eventMessage: string, extra: object = {}) =>
  JSON.stringify({
    timestamp: '2026-11-29 10:15:02.123456+0100',
    eventMessage,
    processImagePath: '/kernel',
    ...extra,
  });

describe('Seatbelt violation log', () => {
  it('derives a stable hex tag per instance directory', () => {
    expect(tag).toMatch(/^mcpwarden-[0-9a-f]{16}$/);
    expect(seatbeltLogTag('/private/var/folders/xy/instance-1')).toBe(tag);
    expect(seatbeltLogTag('/private/var/folders/xy/instance-2')).not.toBe(tag);
  });

  it('streams the unified log filtered on the tag only', () => {
    const stream = ['/usr/bin/log', 'stream', '--style', 'ndjson', '--predicate'];
    expect(logStreamArgv(tag)).toEqual([...stream, `eventMessage CONTAINS "${tag}"`]);
    expect(() => logStreamArgv('x" OR TRUEPREDICATE OR "')).toThrow();
  });

  it('parses file and network denials carrying the tag', () => {
    expect(
      parseViolationLine(
        line(`Sandbox: node(4242) deny(1) file-read-data /Users/ada/.ssh/id_ed25519 ${tag}`),
        tag,
      ),
    ).toEqual<SeatbeltViolation>({
      process: 'node',
      pid: 4242,
      operation: 'file-read-data',
      target: '/Users/ada/.ssh/id_ed25519',
      at: '2026-11-29T09:15:02.123Z',
    });
    expect(
      parseViolationLine(
        line(`${tag} Sandbox: python3.12(77) deny(1) network-outbound 93.184.216.34:443`),
        tag,
      ),
    ).toMatchObject({ process: 'python3.12', pid: 77, operation: 'network-outbound' });
    expect(
      parseViolationLine(
        line(`Sandbox: Code Helper (R)(9) deny mach-lookup com.apple.x ${tag}`),
        tag,
      ),
    ).toMatchObject({ process: 'Code Helper (R)', pid: 9, operation: 'mach-lookup' });
  });

  it('ignores other instances, other messages and garbage', () => {
    const other = seatbeltLogTag('/elsewhere');
    expect(
      parseViolationLine(line(`Sandbox: node(1) deny(1) file-read-data /x ${other}`), tag),
    ).toBe(undefined);
    expect(parseViolationLine(line(`something else ${tag}`), tag)).toBe(undefined);
    expect(parseViolationLine('not json', tag)).toBe(undefined);
    expect(parseViolationLine('null', tag)).toBe(undefined);
  });

  it('follows a log process and stops it', () => {
    const stdout = new PassThrough();
    const child = Object.assign(new EventEmitter(), {
      stdout,
      killed: '',
      kill(signal: string) {
        this.killed = signal;
        return true;
      },
    });
    const seen: SeatbeltViolation[] = [];
    let argv: string[] = [];
    const watch = watchViolations(
      tag,
      (v) => seen.push(v),
      () => undefined,
      (a) => {
        argv = a;
        return child as unknown as ChildProcess;
      },
    );
    expect(argv[0]).toBe('/usr/bin/log');
    stdout.write(`${line(`Sandbox: node(5) deny(1) file-write-create /etc/x ${tag}`)}\n`);
    stdout.write('{"eventMessage":"noise"}\n');
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        expect(seen).toHaveLength(1);
        expect(seen[0]?.operation).toBe('file-write-create');
        watch.stop();
        expect(child.killed).toBe('SIGTERM');
        resolve();
      }),
    );
  });
});
