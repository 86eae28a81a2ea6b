/** What the supervisor needs to start one instance: a launched process or a typed refusal. */
import type { Readable, Writable } from 'node:stream';
import type { Server } from '../../app/policy/policy-schema';
import type { Result } from '../../app/result';
import type { LaunchError } from '../../app/contract/launch-error';
import type { PlanExit } from '../sandbox/spawn-plan';

/** How the process ended, as the spawner saw it (`reason` tells a limit from a crash). */
export interface ProcessExit {
  code: number | null;
  signal: string | null;
  reason: PlanExit['reason'];
  /** Workspace files it created in a writable folder, moved aside (reason 'workspace-file'). */
  workspaceFiles?: PlanExit['workspaceFiles'];
  /** Why it was stopped for them. */
  stoppedFor?: string;
}

export interface LaunchedProcess {
  pid: number | undefined;
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  exited: Promise<ProcessExit>;
  /** Stops the whole process tree; resolves when it is gone. */
  stop(): Promise<void>;
}

export interface Launched {
  process: LaunchedProcess;
  backend: string;
  /** Declared limits the host could not enforce (accepted as best-effort). */
  limitsNotEnforced: string[];
  /** The workspace files the sandbox keeps read-only in the writable folders. */
  workspaceKept?: string[];
  /** The folders of writable roots that take no new entry (landlock-grants.ts). */
  closedFolders?: string[];
}

export interface LaunchRequest {
  server: Server;
  instanceId: string;
  /** A private directory for the instance; removed by the supervisor when it ends. */
  instanceDir: string;
}

export interface InstanceLauncher {
  launch(request: LaunchRequest): Promise<Result<Launched, LaunchError>>;
}

/**
 * A process launched for a session's first start before the session existed (a one-session core
 * launches while it loads): the session takes it instead of launching, if the server it reads
 * still has this revision; otherwise the process is stopped and the session launches its own.
 */
export interface AdoptedLaunch {
  instanceId: string;
  revision: number;
  launched: Launched;
}
