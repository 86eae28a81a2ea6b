/**
 * What goes out on the wire is what the relay decided on, byte for byte: a message the gate
 * altered (a redacted result, a filtered tools/list) never leaves with the text the server wrote,
 * and a request whose text parses two ways (a repeated key) leaves in the one reading the gate
 * checked. The relay writes each message from its parsed form, never the line it read.
 */
import { describe, expect, it } from 'vitest';
import type { ToolGate } from './relay';
import { wiredRelay } from '../../test/helpers/line-relay';

const SECRET = 'ghp_Qa1Ws2Ed3Rf4Tg5Yh6Uj7Ik8Ol9Pz0Xc1Vb2Nm';

/** A relay between two line transports whose other ends the test holds. */
const wired = (gate: ToolGate) => wiredRelay(gate, () => undefined);

const passThrough: ToolGate = {
  filterList: (tools) => Promise.resolve(tools),
  checkCall: () => ({ allow: true }),
};

describe('relay on the wire', () => {
  it('a result the gate replaced goes out replaced, never with the server’s text', async () => {
    const w = wired({
      ...passThrough,
      checkResult: (_tool, result) =>
        JSON.stringify(result).includes(SECRET)
          ? {
              kind: 'replace',
              result: JSON.parse(JSON.stringify(result).replaceAll(SECRET, '«credential»')),
            }
          : { kind: 'pass' },
    });
    await w.fromClient(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}',
    );
    await w.fromServer(
      `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"key ${SECRET}"}]}}`,
    );
    expect(w.toClient()).not.toContain(SECRET);
    expect(JSON.parse(w.toClient())).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'key «credential»' }] },
    });
  });

  it('a filtered tools/list goes out without the hidden tool', async () => {
    const w = wired({
      ...passThrough,
      filterList: (tools) =>
        Promise.resolve(tools.filter((t) => (t as { name: string }).name !== 'delete_all')),
    });
    await w.fromClient('{"jsonrpc":"2.0","id":"l","method":"tools/list"}');
    await w.fromServer(
      '{"jsonrpc":"2.0","id":"l","result":{"tools":[{"name":"read"},{"name":"delete_all"}]}}',
    );
    expect(w.toClient()).not.toContain('delete_all');
    expect(JSON.parse(w.toClient())).toEqual({
      jsonrpc: '2.0',
      id: 'l',
      result: { tools: [{ name: 'read' }] },
    });
  });

  it('a request with a repeated key reaches the server in the reading the gate checked', async () => {
    const checked: string[] = [];
    const w = wired({
      ...passThrough,
      checkCall: (tool) => {
        checked.push(tool);
        return tool === 'delete_all' ? { allow: false, message: 'disabled' } : { allow: true };
      },
    });
    // A server whose parser keeps the first of two keys would run delete_all if these bytes
    // reached it as they are.
    await w.fromClient(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_all","name":"read","arguments":{}}}',
    );
    expect(checked).toEqual(['read']);
    expect(w.toServer()).not.toContain('delete_all');
    expect(JSON.parse(w.toServer())).toMatchObject({ params: { name: 'read' } });
  });

  it('relays a chunk of calls and a chunk of answers in order', async () => {
    const w = wired(passThrough);
    const calls = [1, 2, 3]
      .map(
        (id) =>
          `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
      )
      .join('\n');
    await w.fromClient(calls);
    expect(w.toServer().trim().split('\n')).toHaveLength(3);
    await w.fromServer(
      [1, 2, 3].map((id) => `{"jsonrpc":"2.0","id":${id},"result":{"n":${id}}}`).join('\n'),
    );
    const answers = w.toClient().trim().split('\n');
    expect(answers.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([1, 2, 3]);
  });
});
