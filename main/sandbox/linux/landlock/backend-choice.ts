/**
 * The Linux backend asked for in the environment, on its own so that a command that only needs
 * to know it (`warden servers list`) does not load the backends.
 */
export type LinuxBackendChoice = 'auto' | 'bwrap' | 'landlock';

/** Reads WARDEN_SANDBOX_BACKEND; anything else than bwrap or landlock means auto. */
export function backendChoice(env: NodeJS.ProcessEnv): LinuxBackendChoice {
  const v = env.WARDEN_SANDBOX_BACKEND;
  return v === 'bwrap' || v === 'landlock' ? v : 'auto';
}
