/** A launcher that spawns servers as plain child processes, for relay tests that are not about the sandbox. */
import { spawn } from 'node:child_process';
import { ok } from '../../app/result';
import type {
  InstanceLauncher,
  LaunchedProcess,
  ProcessExit,
} from '../../main/supervisor/launcher';

export function plainLauncher(
  extraEnv: Record<string, string> = {},
): InstanceLauncher & { launches: number } {
  const launcher = {
    launches: 0,
    launch: ({ server }: Parameters<InstanceLauncher['launch']>[0]) => {
      launcher.launches++;
      const launch = server.launch!;
      const child = spawn(launch.command, launch.args, {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, ...extraEnv },
      });
      const exited = new Promise<ProcessExit>((resolve) =>
        child.once('exit', (code, signal) => resolve({ code, signal, reason: 'exited' })),
      );
      const proc: LaunchedProcess = {
        pid: child.pid,
        stdin: child.stdin,
        stdout: child.stdout,
        stderr: child.stderr,
        exited,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        },
      };
      return Promise.resolve(ok({ process: proc, backend: 'plain-test', limitsNotEnforced: [] }));
    },
  };
  return launcher;
}
