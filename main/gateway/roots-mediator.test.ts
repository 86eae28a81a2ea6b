import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { FolderOutcome } from '../../app/contract/folder-grants';
import { MAX_WAITING_ROOTS_REQUESTS, RootsMediator } from './roots-mediator';

const existing = new Set(['/work', '/work/app', '/home/u/secret']);

/** A mediator over fakes: the client answers `clientRoots`, the user answers `decide`. */
function setup(
  opts: { roots?: boolean; clientRoots?: string[]; decide?: FolderOutcome; name?: string } = {},
) {
  const toClient: JSONRPCMessage[] = [];
  const toServer: JSONRPCMessage[] = [];
  const asked: string[] = [];
  const askedBy: string[] = [];
  const granted: { path: string; access: string; always: boolean }[] = [];
  const audit: AuditEventInput[] = [];
  const mediator: RootsMediator = new RootsMediator({
    server: 'files',
    instance: 'i-1',
    clientLabel: 'stdio',
    clientName: () => opts.name,
    clientCapabilities: () => (opts.roots === false ? {} : { roots: { listChanged: true } }),
    sendToClient: (m) => {
      toClient.push(m);
      // The client answers each of Warden's questions, later, on its own turn.
      if ('method' in m && m.method === 'roots/list' && 'id' in m)
        setTimeout(() =>
          mediator.fromClient({
            jsonrpc: '2.0',
            id: m.id,
            result: { roots: (opts.clientRoots ?? []).map((uri) => ({ uri })) },
          }),
        );
      return Promise.resolve();
    },
    sendToServer: (m) => {
      toServer.push(m);
      return Promise.resolve();
    },
    folders: () => ['/work/app'],
    real: (p) => Promise.resolve(existing.has(p) ? p : undefined),
    forbidden: (p) => Promise.resolve(p === '/home/u/secret' ? 'a hidden path' : undefined),
    inbox: {
      request: (req) => {
        asked.push(req.path);
        askedBy.push(req.client);
        return Promise.resolve(opts.decide ?? 'deny');
      },
      cancelInstance: () => undefined,
    },
    grant: (root, always) => {
      granted.push({ ...root, always });
      return Promise.resolve();
    },
    audit: (e) => audit.push(e),
  });
  return { mediator, toClient, toServer, asked, askedBy, granted, audit };
}

const rootsList = (id: number | string): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'roots/list',
});

describe('RootsMediator', () => {
  it('answers the server with the part of the client roots inside its folders', async () => {
    const t = setup({ clientRoots: ['file:///work/app', 'file:///work'] });
    expect(t.mediator.fromServer(rootsList(1))).toBe(true);
    await vi.waitFor(() => expect(t.toServer).toHaveLength(1));
    expect(t.toServer[0]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { roots: [{ uri: 'file:///work/app' }] },
    });
    await vi.waitFor(() => expect(t.asked).toEqual(['/work']));
    expect(t.audit.find((e) => e.kind === 'roots.answered')).toMatchObject({
      offered: ['file:///work/app'],
      leftOut: [
        { uri: 'file:///work', reason: 'outside the policy (offered /work/app inside it)' },
      ],
    });
  });

  it('the card names the client as it introduced itself, then how it is connected', async () => {
    const named = setup({ clientRoots: ['file:///work'], name: 'Claude Desktop 0.9' });
    named.mediator.fromServer(rootsList(1));
    await vi.waitFor(() => expect(named.askedBy).toEqual(['Claude Desktop 0.9 (stdio)']));
    const unnamed = setup({ clientRoots: ['file:///work'] });
    unnamed.mediator.fromServer(rootsList(1));
    await vi.waitFor(() => expect(unnamed.askedBy).toEqual(['stdio']));
  });

  it('a hostile server asking again and again: the client is asked once, the user once per folder', async () => {
    const t = setup({ clientRoots: ['file:///work'] });
    for (let i = 0; i < 200; i++) t.mediator.fromServer(rootsList(i));
    await vi.waitFor(() => expect(t.toServer).toHaveLength(200));
    expect(t.toClient).toHaveLength(1);
    const refused = t.toServer.filter((m) => 'error' in m);
    expect(refused).toHaveLength(200 - MAX_WAITING_ROOTS_REQUESTS);
    await vi.waitFor(() => expect(t.asked).toEqual(['/work']));
    for (let i = 0; i < 5; i++) t.mediator.fromServer(rootsList(`again-${i}`));
    await vi.waitFor(() => expect(t.toServer).toHaveLength(205));
    expect(t.asked).toEqual(['/work']);
    expect(t.granted).toEqual([]);
  });

  it('the client changing its roots makes Warden ask it again', async () => {
    const t = setup({ clientRoots: ['file:///work/app'] });
    t.mediator.fromServer(rootsList(1));
    await vi.waitFor(() => expect(t.toServer).toHaveLength(1));
    expect(
      t.mediator.fromClient({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }),
    ).toBe(false);
    t.mediator.fromServer(rootsList(2));
    await vi.waitFor(() => expect(t.toServer).toHaveLength(2));
    expect(t.toClient).toHaveLength(2);
  });

  it('an allowed folder is granted, then the server is told the list changed', async () => {
    const t = setup({ clientRoots: ['file:///work'], decide: 'allow-write-session' });
    t.mediator.fromServer(rootsList(1));
    await vi.waitFor(() => expect(t.toServer).toHaveLength(2));
    expect(t.granted).toEqual([{ path: '/work', access: 'write', always: false }]);
    expect(t.toServer[1]).toEqual({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
  });

  it('a folder a layer forbids is never put to the user', async () => {
    const t = setup({ clientRoots: ['file:///home/u/secret'], decide: 'allow-read-always' });
    t.mediator.fromServer(rootsList(1));
    await vi.waitFor(() =>
      expect(t.audit.find((e) => e.kind === 'folder.decided')).toMatchObject({
        decision: 'refused',
        by: 'policy',
        reason: 'a hidden path',
      }),
    );
    expect(t.asked).toEqual([]);
    expect(t.granted).toEqual([]);
  });

  it('a client without the roots capability: the request passes through', () => {
    const t = setup({ roots: false });
    expect(t.mediator.fromServer(rootsList(1))).toBe(false);
    expect(t.toClient).toEqual([]);
  });

  it('answers the client gives to questions Warden did not ask pass through; a server cannot forge Warden ids', async () => {
    const t = setup({ clientRoots: ['file:///work/app'] });
    expect(t.mediator.fromClient({ jsonrpc: '2.0', id: 7, result: { roots: [] } })).toBe(false);
    t.mediator.fromServer(rootsList(1));
    await vi.waitFor(() => expect(t.toClient).toHaveLength(1));
    const ours = (t.toClient[0] as { id: string }).id;
    expect(ours).toMatch(/^warden-roots-[0-9a-f-]{36}-1$/);
    // A server request reusing Warden's id shape is dropped, not passed to the client.
    expect(
      t.mediator.fromServer({
        jsonrpc: '2.0',
        id: ours.replace(/-1$/, '-2'),
        method: 'sampling/createMessage',
      }),
    ).toBe(true);
  });
});
