/**
 * The exact commands that let bubblewrap create its namespaces where AppArmor restricts them
 * (kernel.apparmor_restrict_unprivileged_userns=1): the profile the deb and rpm install
 * (resources/packaging/linux/apparmor/mcp-warden-bwrap), copied from the installed app when it is
 * there, written out otherwise, or only loaded when it is installed but not in effect.
 */
import { access } from 'node:fs/promises';

export const APPARMOR_PROFILE = '/etc/apparmor.d/mcp-warden-bwrap';
/** Where the deb and rpm put their copy of the profile. */
export const PACKAGED_PROFILE = '/opt/MCP Warden/resources/apparmor/mcp-warden-bwrap';

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** The profile's rules, one shell word each, for a `printf` that writes it. */
function profileLines(bwrapPath: string): string[] {
  return [
    'abi <abi/4.0>,',
    'include <tunables/global>',
    `profile mcp-warden-bwrap ${bwrapPath} flags=(unconfined) {`,
    '  userns,',
    '}',
  ];
}

/** The commands to run, as one line, for the state this host is in. */
export async function apparmorProfileRemedy(
  bwrapPath: string,
  paths: { installed?: string; packaged?: string } = {},
): Promise<string> {
  const installed = paths.installed ?? APPARMOR_PROFILE;
  const packaged = paths.packaged ?? PACKAGED_PROFILE;
  const load = `sudo apparmor_parser -r ${installed}`;
  if (await exists(installed)) {
    return `the profile ${installed} is installed but not in effect: load it with \`${load}\``;
  }
  if (await exists(packaged)) {
    return `install the profile MCP Warden ships: \`sudo install -m 0644 '${packaged}' ${installed} && ${load}\``;
  }
  const printf = `printf '%s\\n' ${profileLines(bwrapPath)
    .map((l) => `'${l}'`)
    .join(' ')} | sudo tee ${installed} >/dev/null`;
  return `install an AppArmor profile that lets ${bwrapPath} create user namespaces: \`${printf} && ${load}\``;
}
