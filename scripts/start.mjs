// `npm start`: opens the Electron app where its binary exists and can show a window; otherwise
// serves the same control panel in the browser (`warden serve`) and says why in one line.
// Arguments after `npm start --` go to whichever of the two starts. WARDEN_ELECTRON names another
// Electron executable than the one npm installed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/** The Electron executable, or why the desktop app cannot open here. */
function findElectron(env) {
  let path = env.WARDEN_ELECTRON;
  if (!path) {
    try {
      path = createRequire(join(root, 'package.json'))('electron');
    } catch {
      return { why: 'the Electron binary is not installed (its download failed or was skipped)' };
    }
  }
  if (typeof path !== 'string' || !existsSync(path))
    return { why: `the Electron binary ${String(path)} does not exist` };
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY)
    return { why: 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)' };
  const probe = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (probe.status !== 0) {
    const said = `${probe.stderr ?? ''}`.trim().split('\n')[0] || probe.error?.message;
    return { why: `the Electron binary does not run here (${said || `status ${probe.status}`})` };
  }
  if (process.platform === 'linux' && process.getuid?.() === 0)
    return { why: "Electron's renderer sandbox does not run as root" };
  return { path };
}

function run(command, argv) {
  const child = spawn(command, argv, { cwd: root, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 128 : 1);
  });
  return child;
}

const electron = findElectron(process.env);
if ('path' in electron) {
  run(electron.path, ['.', ...args]).on('exit', (code) => {
    if (code)
      console.error(
        `warden: the Electron app exited with status ${code}; "npm run serve" serves the control panel in a browser`,
      );
  });
} else {
  console.error(`warden: ${electron.why}: serving the control panel in the browser instead`);
  run(process.execPath, [join(root, 'bin', 'warden.js'), 'serve', ...args]);
}
