/**
 * `ask` mode end to end: a client inside a real sandbox reaches an unknown destination, a pending
 * grant appears (in the contract's shape), and each of the five decisions has its effect. The
 * "always" decisions go through the real config store, bump the revision and survive a restart.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type PendingGrant, pendingGrantSchema } from '../../app/contract/grants';
import { defaultPolicy } from '../../app/policy/defaults';
import { ConfigStore } from '../../main/config/config-store';
import { GrantInbox } from '../../main/egress/grant-inbox';
import { persistRuleTo } from '../../main/egress/persist-rule';
import {
  type RunOptions,
  describeSandboxed,
  hostServersAll,
  runWithEgress,
} from './egress-harness';

const pin = [{ name: 'api.test', addresses: ['127.0.0.1'] }];
const ask = { mode: 'ask' as const, allowAddresses: ['127.0.0.1'] };

function nextPending(inbox: GrantInbox, waiting = 1): Promise<PendingGrant> {
  return new Promise((resolve) => {
    const off = inbox.onPending((g) => {
      off();
      const poll = (): void => {
        const now = inbox.pending().find((p) => p.id === g.id);
        if (now && now.waiting >= waiting) resolve(now);
        else setTimeout(poll, 10);
      };
      poll();
    });
  });
}

function curl(urls: string[]): string[] {
  return ['sh', '-c', `for u in ${urls.join(' ')}; do curl -s -w ' %{http_code}\\n' "$u"; done`];
}

/** Runs `command` in a sandbox in ask mode, its questions going to `inbox`. */
function askRun(inbox: GrantInbox, command: string[], more: Partial<RunOptions> = {}) {
  return runWithEgress({ network: ask, resolve: pin, grants: inbox, ...more, command });
}

describeSandboxed('ask mode', () => {
  const hs = hostServersAll();

  it('connections to the same host:port share one pending grant; allow once, then deny', async () => {
    const inbox = new GrantInbox();
    const url = `http://api.test:${hs.httpPort}`;
    const run = askRun(inbox, [
      'sh',
      '-c',
      `curl -s ${url}/a & curl -s ${url}/b & wait; echo; curl -s -w ' %{http_code}' ${url}/c`,
    ]);
    const first = await nextPending(inbox, 2);
    expect(pendingGrantSchema.parse(first)).toMatchObject({
      server: 'test-server',
      instance: 'inst-1',
      host: 'api.test',
      port: hs.httpPort,
      waiting: 2,
    });
    expect(Date.parse(first.expiresAt) - Date.parse(first.createdAt)).toBe(60_000);
    const second = nextPending(inbox);
    expect((await inbox.decide(first.id, 'allow-once')).ok).toBe(true);
    expect((await inbox.decide((await second).id, 'deny')).ok).toBe(true);
    const r = await run;
    expect(r.stdout).toMatch(/hello from \/[ab]hello from \/[ab]\n/);
    expect(r.stdout).toMatch(/api\.test:\d+ was denied by the user\n 403$/);
    expect(r.events.map((e) => [e.decision, e.rule?.split(' ').slice(0, 2).join(' ')])).toEqual([
      ['allowed', 'grant allow-once'],
      ['allowed', 'grant allow-once'],
      ['refused', 'grant deny'],
    ]);
  });

  it('allow for this session covers later connections of this instance only', async () => {
    const inbox = new GrantInbox();
    const url = `http://api.test:${hs.httpPort}`;
    const run = askRun(inbox, curl([`${url}/1`, `${url}/2`]));
    const g = await nextPending(inbox);
    let asked = 0;
    const off = inbox.onPending(() => asked++);
    await inbox.decide(g.id, 'allow-session');
    const r = await run;
    off();
    expect(r.stdout).toBe('hello from /1 200\nhello from /2 200\n');
    expect(asked).toBe(0);
    const rules = r.events.map((e) => e.rule?.split(';')[0]);
    expect(rules[0]).toMatch(/^grant allow-session g-/);
    expect(rules[1]).toBe(`session grant api.test:${hs.httpPort}`);
    const again = askRun(inbox, curl([`${url}/3`]), { instanceId: 'inst-2' });
    const g2 = await nextPending(inbox);
    expect(g2.instance).toBe('inst-2');
    await inbox.decide(g2.id, 'deny');
    expect((await again).stdout).toMatch(/denied by the user\n 403/);
  });

  it('"always" and "always deny" are saved with a new revision and survive a restart', async () => {
    const home = await mkdtemp(join(tmpdir(), 'warden-home-'));
    let store = await ConfigStore.open({ wardenHome: home });
    const policy = defaultPolicy();
    policy.network = { ...policy.network, ...ask };
    const added = await store.addServer({
      name: 'test-server',
      launch: { command: 'x', args: [] },
      policy,
    });
    expect(added.ok && added.value.revision).toBe(1);
    const inbox = new GrantInbox({ persistRule: persistRuleTo(store) });
    const good = `http://api.test:${hs.httpPort}`;
    const bad = `https://api.test:${hs.httpsPort}`;
    const run = askRun(inbox, curl([`${good}/x`, `${bad}/y`, `${good}/z`, `${bad}/w`]));
    await inbox.decide((await nextPending(inbox)).id, 'allow-always');
    const g2 = await nextPending(inbox);
    expect(g2.port).toBe(hs.httpsPort);
    await inbox.decide(g2.id, 'deny-always');
    const r = await run;
    expect(r.stdout.split('\n').slice(0, 4)).toEqual([
      'hello from /x 200',
      ' 000',
      'hello from /z 200',
      ' 000',
    ]);
    expect(r.events.map((e) => e.decision)).toEqual(['allowed', 'refused', 'allowed', 'refused']);
    expect(inbox.pending()).toEqual([]);

    await store.flush();
    store = await ConfigStore.open({ wardenHome: home });
    const saved = store.getServer('test-server')!;
    expect(saved.revision).toBe(3);
    expect(saved.policy.network.allow).toEqual([`api.test:${hs.httpPort}`]);
    expect(saved.policy.network.deny).toEqual([`api.test:${hs.httpsPort}`]);

    const fresh = new GrantInbox();
    let asked = 0;
    fresh.onPending(() => asked++);
    const after = await runWithEgress({
      network: saved.policy.network,
      resolve: pin,
      grants: fresh,
      instanceId: 'inst-9',
      command: curl([`${good}/again`, `${bad}/again`]),
    });
    expect(asked).toBe(0);
    expect(after.stdout.split('\n').slice(0, 2)).toEqual(['hello from /again 200', ' 000']);
    expect(after.events.map((e) => e.rule)).toEqual([
      `allow api.test:${hs.httpPort}; allowAddresses 127.0.0.1`,
      `deny api.test:${hs.httpsPort}`,
    ]);
  });

  it('an undecided grant is refused at the timeout, saying why', async () => {
    const inbox = new GrantInbox();
    const decided: string[] = [];
    inbox.onDecided((e) => decided.push(e.outcome));
    const started = Date.now();
    const r = await runWithEgress({
      network: { ...ask, askTimeoutSeconds: 1 },
      resolve: pin,
      grants: inbox,
      command: ['curl', '-s', '-v', `http://api.test:${hs.httpPort}/late`],
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(r.stderr).toMatch(
      /X-Warden-Reason: warden: no one allowed api\.test:\d+ within 1 s \(ask mode\)/,
    );
    expect(r.events).toMatchObject([{ decision: 'refused', reason: 'ask-timeout' }]);
    expect(decided).toEqual(['timeout']);
  });
});
