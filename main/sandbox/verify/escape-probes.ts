/**
 * The escapes `warden doctor --verify` attempts inside a sandbox backend: read a secret outside
 * the roots, reach a service on the host's loopback, connect to a host Unix socket (inside a
 * declared root, so only the filter stands in the way), create a user namespace, and fill memory
 * past a declared limit through the private /tmp. Each prepares its bait on the host, gives the
 * policy and command to launch, and judges the output: a probe prints ESCAPED only when the
 * escape worked, with proof (the secret it read, the bytes it got back).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { VerifyProbe } from '../../../app/contract/doctor';
import type { Policy } from '../../../app/policy/policy-schema';

export interface ProbeRunOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface PreparedProbe {
  /** Changes the probe makes to a default sandboxed policy. */
  policy(p: Policy): void;
  /** argv inside the sandbox: `node` means Warden's own runtime, bound read-only. */
  command: string[];
  /** Why the probe cannot be tried on this host, if it cannot. */
  unavailable?: string;
  close(): Promise<void>;
}

export interface EscapeProbe {
  id: string;
  label: string;
  /** Platforms the escape exists on (default: all). */
  platforms?: readonly NodeJS.Platform[];
  prepare(work: string): Promise<PreparedProbe>;
}

const listen = (server: Server, ...at: [number, string] | [string]) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(...(at as [string]), () => resolve());
  });
const closeServer = (server: Server) =>
  new Promise<void>((resolve) => server.close(() => resolve()));

/** A Node script that connects to `target` and prints ESCAPED with what the host sent. */
function connectScript(target: string, token: string): string {
  return `
const c = require('node:net').connect(${target});
const done = (s) => { console.log(s); process.exit(0); };
c.on('data', (d) => done(d.toString() === ${JSON.stringify(token)} ? 'ESCAPED got the host token' : 'REFUSED wrong reply'));
c.on('error', (e) => done('REFUSED ' + (e.code || e.message)));
setTimeout(() => done('REFUSED no answer in 3 s'), 3000);
`;
}

function tokenServer(token: string): Server {
  return createServer((s) => s.end(token));
}

export const escapeProbes: readonly EscapeProbe[] = [
  {
    id: 'read-secret',
    label: 'read a secret outside the declared folders',
    async prepare(work) {
      const token = randomBytes(12).toString('hex');
      const [inside, outside] = [join(work, 'inside'), join(work, 'outside')];
      await mkdir(inside, { recursive: true });
      await mkdir(outside, { recursive: true });
      const secret = join(outside, 'secret.txt');
      await writeFile(secret, token, { mode: 0o644 });
      const script = `
let text = '';
try { text = require('node:fs').readFileSync(${JSON.stringify(secret)}, 'utf8'); }
catch (e) { console.log('REFUSED ' + e.code); process.exit(0); }
console.log(text === ${JSON.stringify(token)} ? 'ESCAPED read the secret' : 'REFUSED other content');
`;
      return {
        policy: (p) => p.filesystem.roots.push({ path: inside, access: 'read' }),
        command: ['node', '-e', script],
        close: () => Promise.resolve(),
      };
    },
  },
  {
    id: 'host-loopback',
    label: "reach a service on the host's loopback",
    async prepare() {
      const token = randomBytes(12).toString('hex');
      const server = tokenServer(token);
      await listen(server, 0, '127.0.0.1');
      const { port } = server.address() as { port: number };
      return {
        policy: () => undefined,
        command: ['node', '-e', connectScript(`${port}, '127.0.0.1'`, token)],
        close: () => closeServer(server),
      };
    },
  },
  {
    id: 'unix-socket',
    label: 'connect to a host Unix socket inside a declared folder',
    async prepare(work) {
      const token = randomBytes(12).toString('hex');
      const dir = join(work, 'socket');
      await mkdir(dir, { recursive: true });
      const path = join(dir, 's.sock');
      const server = tokenServer(token);
      await listen(server, path);
      return {
        policy: (p) => p.filesystem.roots.push({ path: dir, access: 'write' }),
        command: ['node', '-e', connectScript(JSON.stringify(path), token)],
        close: () => closeServer(server),
      };
    },
  },
  {
    id: 'git-hook',
    label: 'plant a git hook in a repository in a writable folder',
    async prepare(work) {
      const repo = join(work, 'repo');
      await mkdir(join(repo, '.git', 'hooks'), { recursive: true });
      const hook = join(repo, '.git', 'hooks', 'pre-commit');
      return {
        policy: (p) => p.filesystem.roots.push({ path: repo, access: 'write' }),
        command: [
          '/bin/sh',
          '-c',
          `echo 'echo owned' > '${hook}' 2>/dev/null && echo ESCAPED planted a git hook || echo REFUSED`,
        ],
        close: () => Promise.resolve(),
      };
    },
  },
  {
    id: 'user-namespace',
    label: 'create a user namespace',
    platforms: ['linux'],
    prepare() {
      const unshare = ['/usr/bin/unshare', '/bin/unshare'].find((p) => existsSync(p));
      return Promise.resolve({
        policy: () => undefined,
        command: [
          '/bin/sh',
          '-c',
          `${unshare ?? 'unshare'} -U /bin/true 2>/dev/null && echo ESCAPED made a user namespace || echo REFUSED`,
        ],
        ...(unshare ? {} : { unavailable: 'unshare (util-linux) is not installed' }),
        close: () => Promise.resolve(),
      });
    },
  },
  {
    id: 'exceed-memory',
    label: 'hold more memory than a declared limit (32 MB) in /tmp',
    prepare() {
      return Promise.resolve({
        policy: (p) => {
          p.limits.memoryMb = 32;
        },
        command: [
          '/bin/sh',
          '-c',
          'head -c 64M /dev/zero > /tmp/fill 2>/dev/null; n=$(du -m /tmp/fill | cut -f1); ' +
            '[ "$n" -gt 32 ] && echo "ESCAPED held $n MB" || echo "REFUSED held $n MB"',
        ],
        close: () => Promise.resolve(),
      });
    },
  },
];

/**
 * Judges one probe's run: ESCAPED with proof, REFUSED as the probe saw it, or killed (the OOM
 * killer ends a writer past a cgroup's limit). A run that says nothing proves nothing: not-run.
 */
export function judgeProbe(probe: EscapeProbe, run: ProbeRunOutput): VerifyProbe {
  const line = run.stdout.trim().split('\n').pop() ?? '';
  const base = { id: probe.id, label: probe.label };
  if (line.startsWith('ESCAPED')) return { ...base, status: 'escaped', detail: line.slice(8) };
  if (line.startsWith('REFUSED')) {
    return { ...base, status: 'refused', detail: line.slice(8) || 'refused' };
  }
  if (run.code === 137) return { ...base, status: 'refused', detail: 'killed at the limit' };
  const why = run.stderr.trim().split('\n').pop() ?? '';
  return {
    ...base,
    status: 'not-run',
    detail: `the probe ended with status ${run.code ?? 'signal'} and no verdict${why ? `: ${why}` : ''}`,
  };
}
