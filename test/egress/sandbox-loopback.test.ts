/**
 * Which loopback `localhost` is inside a real bwrap sandbox (app/policy/network-loopback.ts).
 * With a policy that names no loopback host, a server reaches a helper it started on its own
 * loopback, with Node's http, fetch and curl alike, and none of them reaches the host's service
 * on the same address: the sandbox's loopback has nothing on that port. With a policy that names
 * the host's loopback, Node's http and fetch go through the broker to the host's service, as
 * curl does.
 */
import { expect, it } from 'vitest';
import { describeSandboxed, hostServersAll, runWithEgress } from './egress-harness';

/** Starts a helper on the sandbox's loopback, then asks it and the host port `HOST_PORT`. */
const script = `
const http = require('node:http');
const get = (url) => new Promise((done) =>
  http.get(url, (res) => {
    let body = '';
    res.on('data', (d) => (body += d));
    res.on('end', () => done(body));
  }).on('error', (e) => done('error: ' + e.code)));
const text = (url) =>
  fetch(url).then((r) => r.text(), (e) => 'error: ' + (e.cause?.code ?? e.message));
// The sandbox's loopback is its own and empty: the port next to the host's is free there, and
// a port the system chose could be the host's by chance.
const hostPort = Number(process.env.HOST_PORT);
const helper = http.createServer((_q, r) => r.end('helper'));
helper.listen(hostPort === 65535 ? hostPort - 1 : hostPort + 1, '127.0.0.1', async () => {
  const own = 'http://127.0.0.1:' + helper.address().port + '/';
  const host = 'http://127.0.0.1:' + hostPort + '/';
  console.log(JSON.stringify({
    ownHttp: await get(own),
    ownFetch: await text(own),
    hostHttp: await get(host),
    hostFetch: await text(host),
  }));
  helper.close();
});
`;

describeSandboxed('loopback inside a real sandbox', () => {
  const hs = hostServersAll();

  it("is the sandbox's own where the policy names no loopback host: the host's is out of reach", async () => {
    const host = `http://127.0.0.1:${hs.httpPort}/`;
    const r = await runWithEgress({
      network: { mode: 'allowlist', allow: ['api.test'] },
      env: { HOST_PORT: String(hs.httpPort) },
      command: [
        'sh',
        '-c',
        `node -e "$0"; curl -sS -m 10 ${host} || echo "curl: $?"; ` +
          `curl -sS -m 10 http://localhost:${hs.httpPort}/ || echo "curl: $?"`,
        script,
      ],
    });
    const [node, ...curl] = r.stdout.trim().split('\n');
    expect(JSON.parse(node!)).toEqual({
      ownHttp: 'helper',
      ownFetch: 'helper',
      hostHttp: 'error: ECONNREFUSED',
      hostFetch: 'error: ECONNREFUSED',
    });
    // curl exits 7: it could not connect (nothing listens there in the sandbox's namespace).
    expect(curl).toEqual(['curl: 7', 'curl: 7']);
    expect(r.events).toEqual([]);
  });

  it("goes through the broker to the host's where the policy names it", async () => {
    const r = await runWithEgress({
      network: { mode: 'allowlist', allow: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] },
      env: { HOST_PORT: String(hs.httpPort) },
      command: ['node', '-e', script],
    });
    const answers = JSON.parse(r.stdout) as Record<string, string>;
    // The helper's port on the host's loopback is not the helper: whatever answers there, the
    // request went to the broker, which connected it on the host.
    expect(answers).toMatchObject({ hostHttp: 'hello from /', hostFetch: 'hello from /' });
    expect(answers.ownHttp).not.toBe('helper');
    expect(answers.ownFetch).not.toBe('helper');
    const toHost = r.events.filter((e) => e.port === hs.httpPort);
    expect(toHost.map((e) => [e.host, e.decision])).toEqual([
      ['127.0.0.1', 'allowed'],
      ['127.0.0.1', 'allowed'],
    ]);
  });
});
