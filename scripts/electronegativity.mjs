// Audits the Electron shell and the renderer with Electronegativity and fails on any finding that
// electronegativity-accepted.json does not list with a reason. Test files are left out (their
// fakes are not app code). The check that downloads Electron's release list is skipped: the
// Electron version is pinned in package-lock.json and upgraded deliberately.
import { createRequire } from 'node:module';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';

const require = createRequire(import.meta.url);
const inputs = ['main/electron', 'renderer'];
const skipped = ['availablesecurityfixesglobalcheck'];

const loaded = require('@doyensec/electronegativity');
const electronegativity = typeof loaded === 'function' ? loaded : loaded.default;
// Electron is optional: where its binary could not be installed npm drops the package, and the
// version comes from the lockfile instead.
const electronVersion = await readFile('node_modules/electron/package.json', 'utf8').then(
  (text) => JSON.parse(text).version,
  async () =>
    JSON.parse(await readFile('package-lock.json', 'utf8')).packages['node_modules/electron']
      .version,
);
const accepted = JSON.parse(await readFile('electronegativity-accepted.json', 'utf8'));

const root = await mkdtemp(join(tmpdir(), 'warden-electronegativity-'));
try {
  for (const input of inputs) {
    await cp(input, join(root, input), {
      recursive: true,
      filter: (src) => !/\.test\.tsx?$|\.test-helper\.ts$|[\\/]node_modules([\\/]|$)/.test(src),
    });
  }
  const result = await electronegativity({
    input: root,
    isRelative: false,
    electronVersionOverride: electronVersion,
    excludeFromScan: skipped,
  });
  const findings = result.issues.map((issue) => ({
    check: issue.id,
    file: issue.file === 'N/A' ? 'N/A' : relative(root, issue.file).split(sep).join('/'),
    line: issue.location?.line,
    description: issue.description,
  }));
  const isAccepted = (f) => accepted.some((a) => a.check === f.check && a.file === f.file);
  const fresh = findings.filter((f) => !isAccepted(f));
  const stale = accepted.filter(
    (a) => !findings.some((f) => f.check === a.check && f.file === a.file),
  );
  for (const error of result.errors.filter((e) => !e.tolerable)) {
    console.error(
      `electronegativity: could not parse ${relative(root, error.file)}: ${error.message}`,
    );
  }
  for (const a of stale) {
    console.log(`electronegativity: accepted finding no longer reported: ${a.check} ${a.file}`);
  }
  console.log(
    `electronegativity ${electronVersion}: ${result.globalChecks + result.atomicChecks} checks, ` +
      `${findings.length} findings, ${findings.length - fresh.length} accepted`,
  );
  if (fresh.length > 0 || result.errors.some((e) => !e.tolerable)) {
    for (const f of fresh)
      console.error(`  ${f.check}  ${f.file}:${f.line ?? ''}  ${f.description}`);
    console.error('Fix these, or list each in electronegativity-accepted.json with its reason.');
    process.exitCode = 1;
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
