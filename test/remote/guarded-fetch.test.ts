/**
 * The remote upstream as an attacker would try it: a name that resolves to a loopback address
 * (DNS rebinding), a redirect to another origin, headers sent elsewhere, and replies too large to
 * hold. Every connection goes through a real egress broker.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { compileRules } from '../../app/policy/network-patterns';
import { EgressBroker } from '../../main/egress/egress-broker';
import { MessageTooLarge, limitedBody } from '../../main/remote/body-limit';
import { ConnectionRefused, guardedFetch, refusalOf } from '../../main/remote/guarded-fetch';
import { describeUpstreamError } from '../../main/remote/upstream-errors';
import { createRemoteTransport, withOriginHeaders } from '../../main/remote/upstream-transport';
import { initializeRequest } from '../helpers/mcp-messages';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** An HTTP server on 127.0.0.1 that records what it was sent. */
async function listen(
  answer: (path: string, res: import('node:http').ServerResponse) => void,
): Promise<{ port: number; seen: { path: string; headers: Record<string, unknown> }[] }> {
  const seen: { path: string; headers: Record<string, unknown> }[] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    req.resume();
    answer(req.url ?? '', res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, seen };
}

function broker(allow: string[], allowAddresses: string[], events: EgressDecisionEvent[] = []) {
  const rules = compileRules({ allow, deny: [], allowAddresses });
  if (!rules.ok) throw new Error('bad rules');
  return new EgressBroker({
    server: 'remote',
    instanceId: 'i1',
    mode: 'allowlist',
    rules: rules.value,
    askTimeoutMs: 1000,
    // The attacker's name resolves to the loopback address (a rebinding answer).
    lookup: () => Promise.resolve(['127.0.0.1']),
    onDecision: (e) => events.push(e),
  });
}

describe('guarded fetch', () => {
  it('refuses an allowed name that resolves to loopback, and connects once the address is listed', async () => {
    const target = await listen((_p, res) => res.end('ok'));
    const url = `http://rebind.example:${target.port}/mcp`;
    const events: EgressDecisionEvent[] = [];
    const refused = guardedFetch({
      dial: broker([`rebind.example:${target.port}`], [], events).dial,
      maxMessageBytes: 1024,
    });
    const error = await refused.fetch(url).catch((e: unknown) => e);
    expect(refusalOf(error)).toBeInstanceOf(ConnectionRefused);
    expect(describeUpstreamError(error).text).toMatch(
      /rebind\.example resolves to 127\.0\.0\.1, which is a loopback address/,
    );
    expect(target.seen).toHaveLength(0);
    expect(events.map((e) => e.decision)).toEqual(['refused']);
    await refused.close();

    const allowed = guardedFetch({
      dial: broker([`rebind.example:${target.port}`], ['127.0.0.1']).dial,
      maxMessageBytes: 1024,
    });
    expect(await (await allowed.fetch(url)).text()).toBe('ok');
    await allowed.close();
  });

  it('refuses a host outside the allowlist before any connection', async () => {
    const target = await listen((_p, res) => res.end('ok'));
    const f = guardedFetch({
      dial: broker(['other.example'], ['127.0.0.1']).dial,
      maxMessageBytes: 64,
    });
    const error = await f.fetch(`http://127.0.0.1:${target.port}/`).catch((e: unknown) => e);
    expect(describeUpstreamError(error).text).toMatch(/not in this server's network\.allow/);
    expect(target.seen).toHaveLength(0);
    await f.close();
  });

  it('does not follow a redirect to another origin, so the header never reaches it', async () => {
    const other = await listen((_p, res) => res.end('{}'));
    const first = await listen((_p, res) =>
      res.writeHead(307, { location: `http://127.0.0.1:${other.port}/steal` }).end(),
    );
    const allow = [`127.0.0.1:${first.port}`, `127.0.0.1:${other.port}`];
    const f = guardedFetch({ dial: broker(allow, ['127.0.0.1']).dial, maxMessageBytes: 4096 });
    const transport = createRemoteTransport(
      { url: `http://127.0.0.1:${first.port}/mcp`, transport: 'streamable-http' },
      { headers: { Authorization: 'Bearer hush-hush-value' }, fetch: f.fetch },
    );
    await transport.start();
    const sent = transport.send(initializeRequest('t') as never);
    await expect(sent).rejects.toThrow(/not followed/);
    expect(first.seen[0]?.headers.authorization).toBe('Bearer hush-hush-value');
    expect(other.seen).toHaveLength(0);
    await transport.close();
    await f.close();
  });

  it('sends the headers to the server origin only', async () => {
    const got: { url: string; auth: string | null }[] = [];
    const base = (url: string | URL, init?: RequestInit) => {
      got.push({ url: String(url), auth: new Headers(init?.headers).get('authorization') });
      return Promise.resolve(new Response('{}'));
    };
    const fetch = withOriginHeaders(base, 'https://mcp.example', { Authorization: 'Bearer t0ken' });
    await fetch('https://mcp.example/mcp');
    await fetch('https://auth.example/token');
    await fetch('https://mcp.example:8443/mcp');
    expect(got.map((g) => g.auth)).toEqual(['Bearer t0ken', null, null]);
  });
});

describe('reply limits', () => {
  const response = (body: string, type: string) =>
    new Response(body, { headers: { 'content-type': type } });

  it('a JSON reply over the limit ends with MessageTooLarge before it is read whole', async () => {
    const limited = limitedBody(response('x'.repeat(5000), 'application/json'), 1000);
    const error = await limited.text().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageTooLarge);
    expect(describeUpstreamError(error)).toMatchObject({ fatal: true, tooLarge: 1000 });
    expect(await limitedBody(response('{"a":1}', 'application/json'), 1000).text()).toBe('{"a":1}');
  });

  it('an SSE stream is limited per event, not in total', async () => {
    const event = `data: ${'y'.repeat(500)}\n\n`;
    const many = limitedBody(response(event.repeat(20), 'text/event-stream'), 1000);
    expect((await many.text()).length).toBe(event.length * 20);
    const one = limitedBody(response(`data: ${'z'.repeat(2000)}\n\n`, 'text/event-stream'), 1000);
    await expect(one.text()).rejects.toBeInstanceOf(MessageTooLarge);
  });
});
