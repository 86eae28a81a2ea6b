/**
 * What the call guards check beyond the server's own rules: credentials of known formats in the
 * arguments a client sends (asked about), credentials in the server's notifications and requests
 * to the client (redacted), the managed and global network lists for `host-allowed`, and the
 * paths the sandbox hides for the path rules.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../../app/result';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Guards } from '../../app/policy/guards';
import type { CredentialMode, Policy } from '../../app/policy/policy-schema';
import { standaloneGuards } from '../../test/helpers/call-guards';
import { createToolGate } from './tool-gate';
import { DriftRegistry } from './tool-drift';

const GH = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;
const OWN_GH = `ghp_${'Z9y8X7w6V5'.repeat(3)}uvwxyz`;
const OWN = { name: 'GITHUB_TOKEN', value: OWN_GH };
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-gaps-'));
  await mkdir(join(dir, 'proj', 'sub'), { recursive: true });
  await mkdir(join(dir, '.ssh'));
  await writeFile(join(dir, 'proj', '.env'), 'X=1');
  await writeFile(join(dir, 'proj', 'sub', 'a.txt'), 'a');
  // A harmless-looking name that leads into a hidden folder.
  await symlink(join(dir, '.ssh'), join(dir, 'keys'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function setup(
  edit: (p: Policy) => void = () => {},
  extra: Parameters<typeof standaloneGuards>[3] = {},
) {
  const policy = defaultPolicy();
  edit(policy);
  return standaloneGuards(policy, [OWN], [OWN], extra);
}

describe('credentials in the arguments a client sends', () => {
  it('asks, with the kinds as the reason and the value redacted on the card and in the log', async () => {
    const { guards, events, approvals } = setup();
    const pending = guards.checkArgs('post', { body: `use ${GH} please` }, 1);
    expect(pending).toBeInstanceOf(Promise);
    const [card] = approvals.list();
    expect(card?.reason).toEqual({
      kind: 'credentials',
      secret: false,
      found: [{ kind: 'github-token', count: 1 }],
    });
    expect(card?.args).toEqual({ body: 'use «credential:github-token» please' });
    expect(card?.pattern).toBeUndefined();
    expect(events.find((e) => e.kind === 'credential.found')).toMatchObject({
      where: 'arguments',
      action: 'asked',
      found: [{ kind: 'github-token', count: 1 }],
    });
    expect(JSON.stringify(events)).not.toContain(GH);
    await approvals.decide(card!.id, 'deny');
    expect(await pending).toMatchObject({ allow: false });
  });

  it("lets a server's own token through, refuses under block and ignores under off", () => {
    const mode = (m: CredentialMode) => setup((p) => (p.tools.credentials = m)).guards;
    expect(setup().guards.checkArgs('post', { body: OWN_GH }, 1)).toEqual({ allow: true });
    expect(mode('block').checkArgs('post', { body: GH }, 2)).toMatchObject({ allow: false });
    expect(mode('off').checkArgs('post', { body: GH }, 3)).toEqual({ allow: true });
  });

  it('an approval for this session lets the same call through again, not another', async () => {
    const { guards, approvals, events } = setup();
    const first = guards.checkArgs('post', { body: GH }, 1);
    const [card] = approvals.list();
    expect(await approvals.decide(card!.id, 'approve-session')).toEqual(ok(true));
    expect(await first).toEqual({ allow: true });
    expect(await guards.checkArgs('post', { body: GH }, 2)).toEqual({ allow: true });
    expect(events.at(-1)).toMatchObject({ kind: 'approval.decided', by: 'session' });
    void guards.checkArgs('post', { body: `${GH} and more` }, 3);
    expect(approvals.list()).toHaveLength(1);
    // "Always" is never offered for credentials: it would write the value into the policy.
    expect((await approvals.decide(approvals.list()[0]!.id, 'approve-always')).ok).toBe(false);
  });
});

describe("the server's notifications", () => {
  const log: JSONRPCMessage = {
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'info', data: `token is ${GH}` },
  };

  function gate(mode?: CredentialMode) {
    const s = setup((p) => mode && (p.tools.credentials = mode));
    const g = createToolGate({
      server: 's',
      instance: 's#1',
      policy: () => defaultPolicy().tools,
      pin: () => Promise.resolve(),
      drift: new DriftRegistry(),
      approvals: s.approvals,
      audit: (e) => s.events.push(e),
      redact: (v) => v,
      guards: s.guards,
    });
    return { g, events: s.events };
  }

  it('are redacted like results, audited with the kind and method only', () => {
    const { g, events } = gate();
    expect(g.checkNotice?.(log)).toEqual({
      ...log,
      params: { level: 'info', data: 'token is «credential:github-token»' },
    });
    expect(events).toMatchObject([
      { kind: 'credential.found', where: 'notification', method: 'notifications/message' },
    ]);
    expect(JSON.stringify(events)).not.toContain(GH);
    const progress: JSONRPCMessage = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1, message: 'fine' },
    };
    expect(g.checkNotice?.(progress)).toBe(progress);
  });

  it('are withheld under block and pass under off', () => {
    expect(gate('block').g.checkNotice?.(log)).toBeUndefined();
    expect(gate('off').g.checkNotice?.(log)).toBe(log);
  });
  const sample = {
    jsonrpc: '2.0' as const,
    id: 'asks-1',
    method: 'sampling/createMessage',
    params: { messages: [{ role: 'user', content: { type: 'text', text: `token ${GH}` } }] },
  };

  it('and its requests to the client are redacted, refused under block, passed under off', () => {
    const { g, events } = gate();
    expect(g.checkServerRequest?.(sample)).toEqual({
      kind: 'pass',
      message: {
        ...sample,
        params: {
          messages: [
            { role: 'user', content: { type: 'text', text: 'token «credential:github-token»' } },
          ],
        },
      },
    });
    expect(events).toMatchObject([
      { kind: 'credential.found', where: 'request', method: 'sampling/createMessage' },
    ]);
    expect(gate('block').g.checkServerRequest?.(sample)).toEqual({
      kind: 'refuse',
      message:
        'the sampling/createMessage request held credentials (github-token) and was not passed to the client',
    });
    expect(gate('off').g.checkServerRequest?.(sample)).toEqual({ kind: 'pass', message: sample });
    const plain = { ...sample, params: { messages: [] } };
    expect(gate('block').g.checkServerRequest?.(plain)).toEqual({ kind: 'pass', message: plain });
  });
});

describe('host-allowed and the guard layers', () => {
  const rule = (p: Policy) => {
    p.network.mode = 'allowlist';
    p.network.allow = ['*.example.com'];
    p.tools.argRules = [{ tool: '*', arg: 'url', rule: 'host-allowed' }];
  };
  const layers = (global?: Guards, managed?: Guards) => () => ok({ global, managed });

  it("refuses a host the global or managed deny list names, though the server's rules allow it", async () => {
    const url = { url: 'https://api.example.com/x' };
    expect(await setup(rule).guards.checkArgs('fetch', url, 1)).toEqual({ allow: true });
    const global = setup(rule, { layers: layers({ network: { deny: ['api.example.com'] } }) });
    expect(await global.guards.checkArgs('fetch', url, 2)).toMatchObject({ allow: false });
    const managed = setup(rule, {
      layers: layers(undefined, { network: { deny: ['*.example.com'] } }),
    });
    expect(await managed.guards.checkArgs('fetch', url, 3)).toMatchObject({ allow: false });
  });

  it('refuses a host outside the managed allowlist under ask, and refuses while the layers cannot be read', async () => {
    const ask = (p: Policy) => {
      rule(p);
      p.network.mode = 'ask';
      p.network.allow = [];
    };
    const within = setup(ask, {
      layers: layers(undefined, { network: { allow: ['docs.example.com'] } }),
    });
    expect(
      await setup(ask).guards.checkArgs('fetch', { url: 'https://api.example.com/' }, 1),
    ).toEqual({
      allow: true,
    });
    expect(await within.guards.checkArgs('fetch', { url: 'https://docs.example.com/' }, 1)).toEqual(
      { allow: true },
    );
    expect(
      await within.guards.checkArgs('fetch', { url: 'https://api.example.com/' }, 2),
    ).toMatchObject({ allow: false });
    const broken = setup(rule, {
      layers: () => Promise.resolve({ ok: false, error: 'unreadable' }),
    });
    expect(
      await broken.guards.checkArgs('fetch', { url: 'https://docs.example.com/' }, 3),
    ).toMatchObject({ allow: false, message: expect.stringContaining('unreadable') as string });
  });
});

describe('path rules and the paths the sandbox hides', () => {
  const roots = (p: Policy) => {
    p.filesystem.roots.push({ path: dir, access: 'write' });
    p.tools.argRules = [{ tool: '*', arg: 'path', rule: 'within-roots' }];
  };

  it('treats a hidden name (.env) and a hidden folder (~/.ssh, even through a symlink) as outside', async () => {
    const { guards } = setup(roots, { home: dir });
    const call = (path: string, id: number) => guards.checkArgs('read', { path }, id);
    expect(await call(join(dir, 'proj', 'sub', 'a.txt'), 1)).toEqual({ allow: true });
    expect(await call(join(dir, 'proj', '.env'), 2)).toMatchObject({
      allow: false,
      message: expect.stringContaining('hides') as string,
    });
    expect(await call(join(dir, 'proj', '.env.local'), 3)).toMatchObject({ allow: false });
    expect(await call(join(dir, '.ssh', 'id_ed25519'), 4)).toMatchObject({ allow: false });
    expect(await call(join(dir, 'keys', 'id_ed25519'), 5)).toMatchObject({ allow: false });
  });

  it('honours an un-hidden path as the sandbox does', async () => {
    const { guards } = setup(
      (p) => {
        roots(p);
        p.guards = { hide: [], unhide: ['.env'] };
      },
      { home: dir },
    );
    expect(await guards.checkArgs('read', { path: join(dir, 'proj', '.env') }, 1)).toEqual({
      allow: true,
    });
  });
});
