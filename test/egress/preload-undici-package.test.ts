/**
 * A server that brings its own copy of undici 7 (the npm package, as many MCP servers' HTTP
 * clients do) beside Node's `fetch`: both read the global dispatcher, under version 1 of its key,
 * and from Node 26 Node's own undici 8 keeps its dispatcher under version 2 and a wrapper of it
 * under version 1. Whichever Node, and whether the copy is loaded before or after the first
 * `fetch`, a request of either reaches its target through the sandbox proxy, once. Runs on this
 * Node and on each Node named in WARDEN_TEST_NODES (colon-separated; .ci/run names 22, 24, 26).
 */
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleEgress } from './egress-harness';
import { otherNodes, runUnderPreload } from './preload-script';
import { type TestProxy, startTestProxy } from './test-proxy';

const undiciPackage = join(import.meta.dirname, '..', '..', 'node_modules', 'undici');

const script = `
const url = 'http://' + process.env.TARGET + ':' + process.env.PORT + '/';
const viaFetch = () => fetch(url).then((r) => r.text(), (e) => 'error: ' + (e.cause?.message ?? e.message));
const viaPackage = (undici) =>
  undici.request(url).then((r) => r.body.text(), (e) => 'error: ' + e.message);
(async () => {
  let undici;
  if (process.env.ORDER === 'package-first') undici = require(process.env.UNDICI);
  const fetched = await viaFetch();
  undici ??= require(process.env.UNDICI);
  const requested = await viaPackage(undici);
  console.log(JSON.stringify({ fetched, requested, again: await viaFetch() }));
})();
`;

let dir: string;
let preload: string;
let target: http.Server;
let proxy: TestProxy;

beforeAll(async () => {
  const bundled = await bundleEgress();
  dir = bundled.dir;
  preload = bundled.runtime.preloadScript;
  // Each request on a connection of its own, so that the proxy sees every one.
  target = http.createServer((_req, res) => res.setHeader('connection', 'close').end('answer'));
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  proxy = await startTestProxy();
  await writeFile(join(dir, 'undici-package-server.cjs'), script);
}, 60_000);
afterAll(() => {
  proxy.close();
  target.close();
});

async function run(node: string, order: 'fetch-first' | 'package-first'): Promise<unknown> {
  const url = `http://127.0.0.1:${proxy.port}`;
  return runUnderPreload(node, preload, join(dir, 'undici-package-server.cjs'), {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    NODE_USE_ENV_PROXY: '1',
    TARGET: 'api.test',
    PORT: String((target.address() as AddressInfo).port),
    UNDICI: undiciPackage,
    ORDER: order,
  });
}

describe("fetch and a server's own undici 7 under the preload", () => {
  for (const node of [process.execPath, ...otherNodes])
    for (const order of ['fetch-first', 'package-first'] as const)
      it(`both go through the proxy, ${order}, on ${node}`, async () => {
        proxy.dialed.length = 0;
        expect(await run(node, order)).toEqual({
          fetched: 'answer',
          requested: 'answer',
          again: 'answer',
        });
        expect(proxy.dialed).toEqual(['api.test', 'api.test', 'api.test']);
      }, 30_000);
  if (otherNodes.length === 0)
    it.skip('on another Node too: WARDEN_TEST_NODES names none (.ci/run names 22, 24, 26)', () => {});
});
