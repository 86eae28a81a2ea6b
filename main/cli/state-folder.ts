import type { ConfigProblem } from '../../app/contract/servers';
import { showUntrusted } from '../../app/text/untrusted-text';

/** Errors that say where: which state folder a command looked in, and how to point at another. */

/** ` in FOLDER (…how it was chosen and how to choose another…)`. */
export function inStateFolder(wardenHome: string, env: NodeJS.ProcessEnv = process.env): string {
  const how =
    env.WARDEN_HOME && env.WARDEN_HOME.trim() !== ''
      ? 'set by WARDEN_HOME'
      : 'the default; WARDEN_HOME is not set';
  return ` in ${wardenHome} (${how}; to use the servers of another state folder, set WARDEN_HOME to it, in an AI client's config under "env")`;
}

/** The line for a server that does not exist in `wardenHome`. */
export function noServerMessage(name: string, wardenHome: string, env?: NodeJS.ProcessEnv): string {
  // The name may come from an AI client's config file, whose log or terminal shows the line.
  const shown = showUntrusted(name);
  return `no server named "${shown}"${inStateFolder(wardenHome, env)}; add it with: warden servers add ${shown} -- COMMAND ARGS`;
}

/** The line for commands that need a running core when none runs for `wardenHome`. */
export function noCoreMessage(wardenHome: string): string {
  return `no Warden is running for ${wardenHome}: start the app (npm start) or "warden serve" first; instances live in it`;
}

/** The warning for a config file that was moved aside at start. */
export function configProblemWarning(problem: ConfigProblem): string {
  return `warden: warning: ${showUntrusted(problem.message)}; the file was moved to ${showUntrusted(problem.movedTo ?? '(nowhere)')} and Warden started with an empty config\n`;
}
