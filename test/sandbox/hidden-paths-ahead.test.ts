/**
 * Escape suite, the hidden-path search checked ahead: `warden connect` started through the shell
 * front `bin/warden`, standalone, as AI clients start it. Once launches have left the list of a
 * server's folders, and a search that the front's `stat` confirmed, a later launch still masks
 * every `.env` that appeared since: a new file in a recorded deep folder, a new folder, a folder
 * renamed to `.env`, and one in a folder the server itself changes at every launch (which the
 * search lists again rather than walk). The server tries to read each one from inside the
 * sandbox, under either backend.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { createCore } from '../../main/core/core';
import { aheadDir } from '../../main/sandbox/hidden-paths-ahead';
import { hiddenPathsCacheDir } from '../../main/sandbox/hidden-paths-cache';
import { initializeRequest } from '../helpers/mcp-messages';
import { addSecretsThreeWays, isolatedHostEnv, sandboxRequired, sandboxStatus } from './harness';

const status = await sandboxStatus();
const front = join(import.meta.dirname, '../../bin/warden');

describe('linux sandbox availability (hidden-path search checked ahead)', () => {
  it.skipIf(status.usable || !sandboxRequired)('is required by WARDEN_REQUIRE_SANDBOX=1', () => {
    expect.fail(`the sandbox cannot run here: ${status.reason}`);
  });
});

const FOLDERS = ['a/deep/one', 'b/deep/two', 'c/deep/three'];
/** Folders must be older than the records' margin (2 s) to be recorded at all. */
const MARGIN_MS = 2_100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let home: string;
let project: string;
let out: string;
let wardenHome: string;

/** How a launch went: what the server wrote, or Warden's answer to `initialize` without it. */
interface Launch {
  result?: string;
  answer: string;
}

/**
 * One standalone `warden connect probe` through the shell front: the server reads the README
 * and `paths` into `out/result`, then waits; the session ends once the result is there. With
 * `ask`, it is sent `initialize` (which the server never answers), and ends too once Warden has
 * answered it itself (a launch it refused). Both files are written in place, so that the folder
 * `out`, a root searched too, does not change.
 */
async function launch(paths: string[] = [], ask = false): Promise<Launch> {
  const result = join(out, 'result');
  await writeFile(result, '');
  await writeFile(join(out, 'paths'), paths.map((p) => `${p}\n`).join(''));
  const bwrap = process.env.WARDEN_BWRAP;
  const child = spawn(front, ['connect', 'probe'], {
    env: {
      ...isolatedHostEnv(home, wardenHome),
      WARDEN_NODE: process.execPath,
      ...(bwrap ? { WARDEN_BWRAP: bwrap } : {}),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let answer = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (answer += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (ask) child.stdin.write(`${JSON.stringify(initializeRequest('escape-suite'))}\n`);
  try {
    for (let i = 0; i < 300; i++) {
      const text = await readFile(result, 'utf8');
      if (text.endsWith('END\n')) return { result: text.slice(0, -'END\n'.length), answer };
      if (answer.includes('"error"')) return { answer };
      await sleep(50);
    }
    throw new Error(`neither the server nor Warden answered\n${answer}\n${stderr}`);
  } finally {
    child.stdin.end();
    await exited;
  }
}

/**
 * A project whose folders are old enough to be recorded, a server `probe` that sees it, and
 * three launches: the first records the folders and leaves their list; the second, checked
 * ahead and finding every folder unchanged but the one the server changes, keeps its search as
 * settled with that folder to list again; the third takes it.
 */
async function settledProject(): Promise<void> {
  home = await mkdtemp(join(userInfo().homedir, '.warden-hidden-ahead-'));
  project = join(home, 'project');
  out = join(home, 'out');
  for (const f of FOLDERS) await mkdir(join(project, f), { recursive: true });
  await mkdir(join(out, 'churn'), { recursive: true });
  await writeFile(join(out, 'result'), '');
  await writeFile(join(out, 'paths'), '');
  await writeFile(join(project, 'README.md'), 'README-CONTENT\n');
  wardenHome = await mkdtemp(join(tmpdir(), 'warden-hidden-ahead-state-'));
  const policy = defaultPolicy();
  policy.filesystem.roots = [
    { path: project, access: 'read' },
    { path: out, access: 'write' },
  ];
  // At every launch the server also leaves a new file in `churn`, as npm leaves a log in its cache
  // (under Landlock, not once a hidden path lies there: a folder on the way to one takes no entry).
  const script = `cd ${out} && { mktemp churn/log.XXXXXX > /dev/null 2>&1; true; } && { cat ${project}/README.md; while IFS= read -r p; do cat "$p"; done < paths; echo END; } > result 2>&1; exec sleep 30`;
  const core = await createCore({ wardenHome });
  await core.config.addServer({
    name: 'probe',
    launch: { command: '/bin/sh', args: ['-c', script] },
    policy,
    acknowledged: true,
  });
  await core.close();
  await sleep(MARGIN_MS);
  for (let i = 0; i < 3; i++) expect((await launch()).result).toBe('README-CONTENT\n');
  const kept = await readdir(aheadDir(hiddenPathsCacheDir(wardenHome)));
  expect(kept.sort()).toEqual(['probe.folders', 'probe.settled']);
}

async function cleanUp(): Promise<void> {
  await rm(home, { recursive: true, force: true });
  await rm(wardenHome, { recursive: true, force: true });
}

describe.skipIf(!status.usable)('escape: hidden paths after launches checked ahead', () => {
  beforeAll(settledProject, 60_000);
  afterAll(cleanUp);

  it('masks a .env new in a recorded deep folder, in a new folder, and in a renamed folder', async () => {
    const paths = await addSecretsThreeWays(project);
    const r = await launch(paths);
    expect(r.result).toContain('README-CONTENT');
    expect(r.result).not.toContain('SECRET');
    // And again, once this launch has recorded the change: still masked.
    expect((await launch(paths)).result).not.toContain('SECRET');
  }, 30_000);

  it('masks a .env new in the folder the server changes at every launch', async () => {
    // The search was kept with that folder to list again, and taken since.
    const kept = join(aheadDir(hiddenPathsCacheDir(wardenHome)), 'probe.settled');
    expect(await readFile(kept, 'utf8')).toContain(JSON.stringify(join(out, 'churn')));
    const secret = join(out, 'churn', '.env');
    await writeFile(secret, 'SECRET=churn\n');
    const r = await launch([secret]);
    expect(r.result).toContain('README-CONTENT');
    expect(r.result).not.toContain('SECRET');
    expect((await launch([secret])).result).not.toContain('SECRET');
  }, 30_000);
});
