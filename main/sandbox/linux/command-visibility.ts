/**
 * Checks, before launch, that the command will exist inside the sandbox: a program found on the
 * host (say under ~/.nvm) but outside every system folder and declared root would otherwise fail
 * inside with a bare "execvp: No such file". The error names the folder to declare instead.
 */
import { access, constants, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { type LaunchError, launchError } from '../../../app/contract/launch-error';
import { type Result, err, ok } from '../../../app/result';

const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

const within = (path: string, dir: string) => path === dir || path.startsWith(dir + sep);

async function executable(path: string): Promise<string | undefined> {
  try {
    await access(path, constants.X_OK);
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/**
 * Where `command` resolves on the host: an absolute or relative path as is, a bare name through
 * the sandbox's PATH first, then the host's (to name the folder in the error).
 */
async function locate(command: string, cwd: string, sandboxPath: string[], hostPath: string[]) {
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    return { path, real: await executable(path), onSandboxPath: true };
  }
  for (const [dirs, onSandboxPath] of [
    [sandboxPath, true],
    [hostPath, false],
  ] as const) {
    for (const dir of dirs) {
      const path = join(dir, command);
      const real = await executable(path);
      if (real) return { path, real, onSandboxPath };
    }
  }
  return undefined;
}

/** Refuses a command that exists on the host but would not be visible in the sandbox. */
export async function checkCommandVisible(
  command: string,
  o: { cwd: string; sandboxPath: string; hostPath: string | undefined; visible: readonly string[] },
): Promise<Result<void, LaunchError>> {
  const absolute = (p: string | undefined) => (p ?? '').split(':').filter((d) => isAbsolute(d));
  const found = await locate(command, o.cwd, absolute(o.sandboxPath), absolute(o.hostPath));
  // Not on the host either: let the sandbox report it (the command may be created by a wrapper).
  if (!found?.real) return ok(undefined);
  const visible = [...SYSTEM, ...o.visible];
  const seen = (p: string) => visible.some((dir) => within(p, dir));
  const folder = dirname(found.real);
  if (!found.onSandboxPath) {
    return err(
      launchError(
        'root-invalid',
        `the command "${command}" is found only on this host's PATH (${found.path}), which the sandbox does not search`,
        `give its full path (${found.path}) and declare its folder read-only (--ro ${folder}, or the installation folder above it)`,
      ),
    );
  }
  if (seen(found.real) && seen(resolve(o.cwd, found.path))) return ok(undefined);
  return err(
    launchError(
      'root-invalid',
      `the command "${command}" is ${found.real} on this host, which is not visible inside the sandbox`,
      `declare its folder read-only (--ro ${folder}, or the installation folder above it), or give a command from a system folder`,
    ),
  );
}
