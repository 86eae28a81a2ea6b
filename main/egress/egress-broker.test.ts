import { EventEmitter } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { compileRules } from '../../app/policy/network-patterns';
import { EgressBroker } from './egress-broker';

/** A client connection of the proxy, as far as the broker sees it. */
class FakeClient extends EventEmitter {
  destroyed = false;
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    setImmediate(() => this.emit('close'));
  }
}

let upstream: net.Server;
let port: number;

beforeAll(async () => {
  // Holds each connection open until the other side ends it.
  upstream = net.createServer((socket) => socket.on('error', () => undefined));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  port = (upstream.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

/** A broker allowing `allow` (addresses on loopback), recording its decisions in `events`. */
function broker(
  events: EgressDecisionEvent[],
  allow = '127.0.0.1',
  lookup?: (name: string) => Promise<string[]>,
): EgressBroker {
  const rules = compileRules({ allow: [allow], deny: [], allowAddresses: ['127.0.0.1'] });
  if (!rules.ok) throw new Error('rules');
  return new EgressBroker({
    server: 'srv',
    instanceId: 'srv#1',
    mode: 'allowlist',
    rules: rules.value,
    askTimeoutMs: 1000,
    onDecision: (e) => events.push(e),
    ...(lookup ? { lookup } : {}),
  });
}

describe('EgressBroker.close', () => {
  it('resolves once the audit events of the connections it ended are out', async () => {
    const events: EgressDecisionEvent[] = [];
    const b = broker(events);
    const dialed = await Promise.all([
      b.dial('127.0.0.1', port, new FakeClient()),
      b.dial('127.0.0.1', port, new FakeClient()),
    ]);
    expect(dialed.map((d) => d.ok)).toEqual([true, true]);
    // Open connections are audited when they end, with their bytes: not yet.
    expect(events).toEqual([]);
    await b.close();
    expect(events.map((e) => [e.decision, e.port])).toEqual([
      ['allowed', port],
      ['allowed', port],
    ]);
  });

  it('resolves at once with nothing open, and refuses what comes after', async () => {
    const events: EgressDecisionEvent[] = [];
    const b = broker(events);
    await b.close();
    const late = await b.dial('127.0.0.1', port, new FakeClient());
    expect(late.ok).toBe(false);
    expect(events.map((e) => e.decision)).toEqual(['refused']);
  });

  it('waits for a dial still in progress no longer than its grace', async () => {
    const events: EgressDecisionEvent[] = [];
    let answer: (addresses: string[]) => void = () => undefined;
    // A name lookup that has not answered yet.
    const b = broker(
      events,
      'slow.test',
      () =>
        new Promise<string[]>((resolve) => {
          answer = resolve;
        }),
    );
    const dial = b.dial('slow.test', port, new FakeClient());
    const started = Date.now();
    await b.close(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(events).toEqual([]);
    answer(['127.0.0.1']);
    expect((await dial).ok).toBe(false);
    expect(events.map((e) => e.decision)).toEqual(['refused']);
  });
});
