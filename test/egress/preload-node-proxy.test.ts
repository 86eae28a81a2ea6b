/**
 * The fetch preload beside Node's own proxy support. The sandbox's environment sets
 * NODE_USE_ENV_PROXY, so on Node 22.23 and 24 the global agents tunnel through the egress proxy
 * themselves, while an agent a server builds without `proxyEnv` (and every agent on Node 20)
 * still needs the preload. Each request here must reach its target through the proxy exactly
 * once: plain and https through the global agents, https through a server's own agent, and
 * fetch. A request to loopback goes directly to the sandbox's own where NO_PROXY names loopback
 * (a policy that names no loopback host), and through the proxy like the rest where it does not,
 * whichever Node and agent make it. Runs on this Node and on each Node named in WARDEN_TEST_NODES
 * (colon-separated; .ci/run names Node 22, 24 and 26).
 */
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCertificate } from '../helpers/test-certificate';
import { bundleEgress } from './egress-harness';
import { otherNodes, runUnderPreload } from './preload-script';
import { type TestProxy, startTestProxy } from './test-proxy';

const script = `
const http = require('node:http');
const https = require('node:https');
const get = (mod, url, agent) => new Promise((done) =>
  mod.get(url, agent ? { agent } : {}, (res) => {
    let body = '';
    res.on('data', (d) => (body += d));
    res.on('end', () => done(body));
  }).on('error', (e) => done('error: ' + e.message)));
const text = (url) =>
  fetch(url).then((r) => r.text(), (e) => 'error: ' + (e.cause?.message ?? e.message));
(async () => {
  const plain = 'http://' + process.env.TARGET + ':' + process.env.PLAIN_PORT + '/';
  const secure = 'https://' + process.env.TARGET + ':' + process.env.SECURE_PORT + '/';
  console.log(JSON.stringify({
    http: await get(http, plain),
    https: await get(https, secure),
    ownAgent: await get(https, secure, new https.Agent()),
    fetchHttp: await text(plain),
    fetchHttps: await text(secure),
  }));
})();
`;

let dir: string;
let preload: string;
let cert: string;
let plain: http.Server;
let secure: https.Server;
let proxy: TestProxy;

beforeAll(async () => {
  const bundled = await bundleEgress();
  dir = bundled.dir;
  preload = bundled.runtime.preloadScript;
  const pair = await testCertificate(dir);
  cert = pair.cert;
  plain = http.createServer((_req, res) => res.end('plain'));
  secure = https.createServer(
    { key: await readFile(pair.key), cert: await readFile(pair.cert) },
    (_req, res) => res.end('secure'),
  );
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => secure.listen(0, '127.0.0.1', r));
  proxy = await startTestProxy();
  await writeFile(join(dir, 'node-proxy-server.cjs'), script);
}, 60_000);
afterAll(() => {
  proxy.close();
  plain.close();
  secure.close();
});

/** What NO_PROXY says where `localhost` is the sandbox's own (app/policy/network-loopback.ts). */
const OWN_LOOPBACK = 'localhost,127.0.0.1,::1';

/**
 * Runs the requests to `target` under `node` with the preload, as the sandbox's environment sets
 * it up with `noProxy`.
 */
async function requestsUnder(node: string, target = 'api.test', noProxy = ''): Promise<unknown> {
  const url = `http://127.0.0.1:${proxy.port}`;
  return runUnderPreload(node, preload, join(dir, 'node-proxy-server.cjs'), {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    NODE_USE_ENV_PROXY: '1',
    TARGET: target,
    NODE_EXTRA_CA_CERTS: cert,
    PLAIN_PORT: String((plain.address() as AddressInfo).port),
    SECURE_PORT: String((secure.address() as AddressInfo).port),
  });
}

describe('the fetch preload with NODE_USE_ENV_PROXY set', () => {
  for (const node of [process.execPath, ...otherNodes]) {
    it(`every request reaches its target through the proxy once, on ${node}`, async () => {
      proxy.dialed.length = 0;
      expect(await requestsUnder(node)).toEqual({
        http: 'plain',
        https: 'secure',
        ownAgent: 'secure',
        fetchHttp: 'plain',
        fetchHttps: 'secure',
      });
      expect(proxy.dialed).toEqual(Array(5).fill('api.test'));
    }, 30_000);

    it(`loopback is the sandbox's own where NO_PROXY names it, and the proxy's to decide where it does not, on ${node}`, async () => {
      const answers = {
        http: 'plain',
        https: 'secure',
        ownAgent: 'secure',
        fetchHttp: 'plain',
        fetchHttps: 'secure',
      };
      proxy.dialed.length = 0;
      expect(await requestsUnder(node, '127.0.0.1', OWN_LOOPBACK)).toEqual(answers);
      expect(proxy.dialed).toEqual([]);
      expect(await requestsUnder(node, '127.0.0.1', '')).toEqual(answers);
      expect(proxy.dialed).toEqual(Array(5).fill('127.0.0.1'));
      // Another 127.x address is not named in NO_PROXY: through the proxy on every Node and in
      // every agent, as curl sends it.
      proxy.dialed.length = 0;
      expect(await requestsUnder(node, '127.0.0.2', OWN_LOOPBACK)).toEqual(answers);
      expect(proxy.dialed).toEqual(Array(5).fill('127.0.0.2'));
      // Other hosts go through the proxy either way.
      proxy.dialed.length = 0;
      expect(await requestsUnder(node, 'api.test', OWN_LOOPBACK)).toEqual(answers);
      expect(proxy.dialed).toEqual(Array(5).fill('api.test'));
    }, 60_000);
  }
  if (otherNodes.length === 0) {
    it.skip('on another Node too: WARDEN_TEST_NODES names none (.ci/run names Node 22, 24 and 26)', () => {});
  }
});
