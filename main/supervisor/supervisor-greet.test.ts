/**
 * Warden's greeting of an instance started from the UI, when the session ended before it was
 * sent (stopped, or its launch refused, while the SDK's types were loading): nothing to greet,
 * and no rejection left for the process to report.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { expect, it } from 'vitest';
import { greet } from './supervisor';

it('resolves when the session side is already closed', async () => {
  const [clientSide, sessionSide] = InMemoryTransport.createLinkedPair();
  await sessionSide.close();
  await expect(greet(clientSide)).resolves.toBeUndefined();
});

it('greets a live session: initialize, then initialized and tools/list once answered', async () => {
  const [clientSide, sessionSide] = InMemoryTransport.createLinkedPair();
  const seen: JSONRPCMessage[] = [];
  sessionSide.onmessage = (m) => {
    seen.push(m);
    if ('method' in m && m.method === 'initialize' && 'id' in m)
      void sessionSide.send({ jsonrpc: '2.0', id: m.id, result: {} });
  };
  await sessionSide.start();
  await greet(clientSide);
  await expect
    .poll(() => seen.map((m) => ('method' in m ? m.method : '')))
    .toEqual(['initialize', 'notifications/initialized', 'tools/list']);
});
