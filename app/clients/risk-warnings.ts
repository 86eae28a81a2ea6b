/**
 * Warnings shown in the import preview for commands that deserve a second look: `sudo`, a shell
 * running a `-c` string, a download piped into a shell, paths in the user's home, Docker.
 */
import { commandName } from './preset-types';

export interface RiskWarning {
  kind:
    | 'sudo'
    | 'shell-string'
    | 'pipe-to-shell'
    | 'home-path'
    | 'docker'
    | 'unresolved'
    | 'script-relative'
    | 'script-hidden';
  message: string;
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'fish', 'ksh', 'cmd', 'powershell', 'pwsh']);
const SHELL_STRING_FLAGS = new Set(['-c', '-lc', '-ic', '/c', '/k', '-command', '-encodedcommand']);

/** The warnings for one command line; `home` is the user's home folder. */
export function riskWarnings(
  command: string,
  args: readonly string[],
  home: string,
): RiskWarning[] {
  const out: RiskWarning[] = [];
  const name = commandName(command);
  const all = [command, ...args];
  if (['sudo', 'doas', 'pkexec', 'su', 'runas'].includes(name) || args.includes('sudo')) {
    out.push({
      kind: 'sudo',
      message: `runs with elevated rights (${name}); a sandbox cannot contain a process that becomes root`,
    });
  }
  if (SHELLS.has(name) && args.some((a) => SHELL_STRING_FLAGS.has(a.toLowerCase()))) {
    out.push({
      kind: 'shell-string',
      message: `${name} runs a command string: read the whole string, it can do anything the shell can`,
    });
  }
  const text = all.join(' ');
  if (
    /\b(curl|wget|iwr|irm|invoke-webrequest)\b[^|]*\|\s*(sudo\s+)?(sh|bash|zsh|python3?|node|iex)\b/i.test(
      text,
    )
  ) {
    out.push({
      kind: 'pipe-to-shell',
      message:
        'downloads a script and runs it straight away (curl | sh): what runs can change any time',
    });
  }
  const homePrefix = home.endsWith('/') || home.endsWith('\\') ? home : `${home}/`;
  const inHome = all.filter((a) => a === home || a.startsWith(homePrefix) || a.startsWith('~/'));
  if (inHome.length > 0) {
    out.push({
      kind: 'home-path',
      message: `uses paths in your home folder (${inHome.join(', ')}): the preview lists which ones the sandbox shows`,
    });
  }
  if (name === 'docker' || name === 'podman') {
    out.push({
      kind: 'docker',
      message: `${name} talks to its daemon over a socket the sandbox refuses; run the server's own binary or turn isolation off knowingly`,
    });
  }
  return out;
}
