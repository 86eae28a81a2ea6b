/**
 * Egress as `warden exec` uses it, in the real sandbox: refusals printed on stderr, and `ask`
 * mode answered on a terminal or, without one, refused at the timeout with the reason printed.
 */
import { execFile } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { NetworkPolicy } from '../../app/policy/policy-schema';
import { prepareExecEgress } from '../../main/egress/exec-egress';
import type { PromptIo } from '../../main/egress/terminal-prompt';
import {
  allowApi,
  bundleEgress,
  pin as allPins,
  describeSandboxed,
  runWithEgress,
  hostServersAll,
  startHostServers,
} from './egress-harness';

const run = promisify(execFile);
const pin = [{ name: 'api.test', addresses: ['127.0.0.1'] }];

async function exec(network: Partial<NetworkPolicy>, command: string[], terminal?: PromptIo) {
  const policy = defaultPolicy();
  policy.network = { ...policy.network, allowAddresses: ['127.0.0.1'], ...network };
  let messages = '';
  const prepared = await prepareExecEgress({
    policy,
    runtime: (await bundleEgress()).runtime,
    resolve: pin,
    stderr: (t) => (messages += t),
    terminal: () => Promise.resolve(terminal),
  });
  if (!prepared.ok) throw new Error(prepared.error.message);
  const r = await runWithEgress({
    network: policy.network,
    egress: prepared.value.egress,
    command,
  });
  await prepared.value.stop();
  return { ...r, messages };
}

describeSandboxed('egress for warden exec', () => {
  const hs = hostServersAll();

  it('prints each refusal with its reason', async () => {
    const r = await exec({ mode: 'allowlist', allow: [] }, [
      'curl',
      '-s',
      `http://api.test:${hs.httpPort}/`,
    ]);
    expect(r.messages).toBe(
      `warden: refused api.test:${hs.httpPort}: api.test:${hs.httpPort} is not in this server's network.allow; add it with --allow api.test:${hs.httpPort}\n`,
    );
  });

  it('a command that opens refused CONNECTs in a loop gets a few lines that count every attempt', async () => {
    const script = `
      const net = require('net');
      const one = (host) => new Promise((done) => {
        const s = net.connect(8877, '127.0.0.1', () => s.write('CONNECT ' + host + ' HTTP/1.1\\r\\n\\r\\n'));
        s.resume(); s.on('error', done); s.on('close', done);
      });
      (async () => { for (let i = 0; i < 400; i++) await one(i % 4 ? 'evil.test:443' : 'h' + i + '.flood.test:443'); })();`;
    const r = await exec({ mode: 'allowlist', allow: [] }, ['node', '-e', script]);
    const lines = r.messages.trim().split('\n');
    // Today: one line per attempt. Now: the first of each destination, one line of repeats, and
    // past 20 lines in 10 s a summary.
    expect(lines.length).toBeLessThanOrEqual(25);
    expect(lines[0]).toBe(
      "warden: refused h0.flood.test:443: h0.flood.test:443 is not in this server's network.allow; add it with --allow h0.flood.test:443",
    );
    let counted = 0;
    for (const l of lines) {
      const more = /^warden: refused \S+ (\d+) more times? in [\d.]+ s$/.exec(l);
      const summary =
        /^warden: (\d+) more refusals not shown \(more than 20 lines in 10 s\): /.exec(l);
      if (more) counted += Number(more[1]);
      else if (summary) counted += Number(summary[1]);
      else if (l.startsWith('warden: refused ')) counted += 1;
      else expect.fail(`unexpected line: ${l}`);
    }
    expect(counted).toBe(400);
  });

  it('ask mode without a terminal refuses at the timeout and says why', async () => {
    const r = await exec({ mode: 'ask', askTimeoutSeconds: 1 }, [
      'curl',
      '-s',
      '-w',
      '%{http_code}',
      `http://api.test:${hs.httpPort}/`,
    ]);
    expect(r.stdout).toMatch(/403$/);
    expect(r.messages).toMatch(/exec wants api\.test:\d+; no terminal to ask on, refusing in 1 s/);
    expect(r.messages).toMatch(
      /refused api\.test:\d+ for exec: no decision in time \(ask mode has no terminal or UI here\); allow it with --allow api\.test:\d+/,
    );
  });

  it('ask mode on a terminal: "always" allows and names the flag that makes it permanent', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    output.on('data', (d: Buffer) => {
      if (d.toString().includes('? ')) input.write('a\n');
    });
    const r = await exec({ mode: 'ask' }, ['curl', '-s', `http://api.test:${hs.httpPort}/t`], {
      input,
      output,
      close: () => input.destroy(),
    });
    expect(r.stdout).toBe('hello from /t');
    expect(r.messages).toBe(
      `warden: exec has no saved policy; pass --allow api.test:${hs.httpPort} to make this permanent\n`,
    );
  });
});

it('where the sandbox has no network namespace (macOS), exec brokers through a host port with the same refusals', async () => {
  const { dir, runtime } = await bundleEgress();
  const servers = await startHostServers(dir);
  const policy = defaultPolicy();
  policy.network = { ...policy.network, ...allowApi };
  let messages = '';
  const prepared = await prepareExecEgress({
    policy,
    runtime,
    resolve: allPins,
    stderr: (t) => (messages += t),
    hostPort: true,
  });
  if (!prepared.ok) throw new Error(prepared.error.message);
  const { egress } = prepared.value;
  try {
    // What the Seatbelt backend needs: no init, no fd 3, the port and the preload to read.
    expect(egress.context).toMatchObject({ extraFds: 0, readableFiles: [runtime.preloadScript] });
    expect(egress.context.wrapper).toBeUndefined();
    const curl = (url: string) =>
      run('curl', ['-sS', '-x', egress.env.HTTP_PROXY!, url]).then(
        (r) => r.stdout,
        (e: { stdout?: string }) => e.stdout ?? '',
      );
    expect(await curl(`http://api.test:${servers.httpPort}/x`)).toBe('hello from /x');
    expect(await curl(`http://other.test:${servers.httpPort}/x`)).not.toContain('hello');
    expect(messages).toContain(`warden: refused other.test:${servers.httpPort}:`);
  } finally {
    await prepared.value.stop();
    await servers.close();
  }
});
