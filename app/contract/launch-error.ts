/**
 * Why an instance did not start: one `kind` per cause, each with the message of this occurrence
 * and a remedy a person can act on. A launch that meets one of these fails closed: it never falls
 * back to a bare spawn. The CLI prints it, the supervisor keeps it on the failed instance, and the
 * UI shows it with its remedy (and, for a folder problem, the fix). No schema here: the launch
 * path loads this module without zod.
 */
/** Causes where this host cannot enforce what the policy declares. */
export const sandboxUnavailableKinds = [
  'bwrap-missing',
  'userns-blocked',
  'seccomp-unavailable',
  'landlock-unavailable',
  'unsupported-platform',
  'unsupported-arch',
  'limit-unsupported',
] as const;

/** Causes that carry only a message and a remedy. */
export const plainKinds = [
  ...sandboxUnavailableKinds,
  /** A declared folder (or the command's) cannot be shown as the policy says. */
  'root-invalid',
  /** The managed layer or the global guards forbid it, or cannot be read (fail closed). */
  'policy-forbidden',
  /** The sandbox init (built output) that brokers the network is missing. */
  'build-output-missing',
  /** The instance's private directory cannot be prepared or lies in a protected place. */
  'instance-dir-unusable',
  /** The sandbox was built but its process could not be started. */
  'spawn-failed',
  /** Warden reached a state it should not: refused rather than run unprotected. */
  'internal',
] as const;
export type PlainKind = (typeof plainKinds)[number];

/** Why an instance did not start (validated where it crosses a boundary: launch-error-schema.ts). */
export type LaunchError =
  | { kind: PlainKind; message: string; remedy: string }
  /** The network patterns or addresses of the policy are invalid; `fields` names each. */
  | {
      kind: 'invalid-network-policy';
      message: string;
      remedy: string;
      fields: Array<{ field: string; message: string }>;
    }
  /** A secret the environment refers to is not set or cannot be read. */
  | { kind: 'secret-unreadable'; message: string; remedy: string; variable: string };
export type LaunchErrorKind = LaunchError['kind'];

/** The remedy of each cause, used where the place that refuses knows no better one. */
export const launchErrorRemedies: Record<LaunchErrorKind, string> = {
  'bwrap-missing': 'install bubblewrap (sudo apt-get install bubblewrap), or set WARDEN_BWRAP',
  'userns-blocked': 'allow unprivileged user namespaces for bubblewrap (see `warden doctor`)',
  'seccomp-unavailable': 'run Warden on a kernel with seccomp filters (see `warden doctor`)',
  'landlock-unavailable': 'upgrade the kernel, or make bubblewrap usable (see `warden doctor`)',
  'unsupported-platform':
    "run Warden on Linux or macOS, or turn this server's isolation off knowingly",
  'unsupported-arch': "run Warden on x64 or arm64, or turn this server's isolation off knowingly",
  'limit-unsupported': 'remove the limit, or mark it best-effort (--best-effort LIMIT)',
  'root-invalid': "fix the folder in the server's filesystem roots",
  'policy-forbidden': 'change the policy to follow the managed policy, or ask its owner',
  'invalid-network-policy': 'fix the listed patterns in the server settings',
  'secret-unreadable': 'set the secret again in the server settings',
  'build-output-missing': 'run "npm run build" in a source checkout, or reinstall the app',
  'instance-dir-unusable': 'check that the instance directory is writable, then retry',
  'spawn-failed': 'check that the command exists and can run, then retry',
  internal: 'report this as a bug; the launch was refused',
};

/** Builds a launch error of a plain kind; the remedy defaults to the kind's own. */
export function launchError(
  kind: PlainKind,
  message: string,
  remedy: string = launchErrorRemedies[kind],
): LaunchError {
  return { kind, message, remedy };
}

/**
 * The variable `variable` refers to a secret that is not set, or (with `detail`, the store's
 * reason) that cannot be read. The one place a secret problem becomes a launch error.
 */
export function secretUnreadable(variable: string, detail?: string): LaunchError {
  return {
    kind: 'secret-unreadable',
    variable,
    message: detail
      ? `the secret for ${variable} could not be read: ${detail}`
      : `the secret for ${variable} is not set`,
    remedy: launchErrorRemedies['secret-unreadable'],
  };
}

/** True when the cause is this host's sandbox, not the policy or the server. */
export function isSandboxUnavailable(error: Pick<LaunchError, 'kind'>): boolean {
  return (sandboxUnavailableKinds as readonly string[]).includes(error.kind);
}

/** One line for a refused launch: what happened and what to do. */
export function describeLaunchError(error: LaunchError): string {
  const lead = isSandboxUnavailable(error)
    ? 'cannot sandbox here'
    : 'the server could not be started';
  return `${lead}: ${error.message}; ${error.remedy}`;
}
