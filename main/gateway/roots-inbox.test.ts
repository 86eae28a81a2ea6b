import { describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { Root } from '../../app/policy/policy-schema';
import { FolderInbox, MAX_PENDING_FOLDERS } from './roots-inbox';

function inbox(persist?: (server: string, root: Root) => Promise<void>, timeoutMs?: number) {
  const audit: AuditEventInput[] = [];
  const saved: Root[] = [];
  const box = new FolderInbox({
    audit: (e) => audit.push(e),
    persistRoot: persist ?? ((_s, root) => Promise.resolve(void saved.push(root))),
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  return { box, audit, saved };
}
const req = (path: string, instance = 'i-1') => ({
  server: 'files',
  instance,
  client: 'stdio',
  path,
});

describe('FolderInbox', () => {
  it('shares one grant per session and folder, and audits the request and the decision', async () => {
    const { box, audit } = inbox();
    const a = box.request(req('/work'));
    const b = box.request(req('/work'));
    expect(box.pending()).toHaveLength(1);
    expect((await box.decide(box.pending()[0]!.id, 'allow-read-session')).ok).toBe(true);
    expect(await a).toBe('allow-read-session');
    expect(await b).toBe('allow-read-session');
    expect(audit.map((e) => e.kind)).toEqual(['folder.requested', 'folder.decided']);
    expect(box.pending()).toEqual([]);
  });

  it('"always" is saved first; a refused save leaves the grant waiting', async () => {
    const refused = inbox(() => Promise.reject(new Error('the managed policy forbids it')));
    void refused.box.request(req('/work'));
    const id = refused.box.pending()[0]!.id;
    const answer = await refused.box.decide(id, 'allow-write-always');
    expect(answer.ok).toBe(false);
    expect(!answer.ok && answer.error.message).toContain('the managed policy forbids it');
    expect(refused.box.pending()).toHaveLength(1);
    const ok = inbox();
    void ok.box.request(req('/work'));
    await ok.box.decide(ok.box.pending()[0]!.id, 'allow-write-always');
    expect(ok.saved).toEqual([{ path: '/work', access: 'write' }]);
  });

  it('bounds what one session may have waiting, times out, and cancels with the session', async () => {
    const { box } = inbox(undefined, 20);
    const waits = Array.from({ length: MAX_PENDING_FOLDERS + 1 }, (_, i) =>
      box.request(req(`/f${i}`)),
    );
    expect(await waits[MAX_PENDING_FOLDERS]).toBe('refused');
    expect(await waits[0]).toBe('timeout');
    const other = inbox();
    const w = other.box.request(req('/x', 'i-2'));
    other.box.cancelInstance('i-2');
    expect(await w).toBe('cancelled');
    expect((await other.box.decide('nope', 'deny')).ok).toBe(false);
  });
});
