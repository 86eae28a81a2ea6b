/**
 * The launch of a one-session core (`warden connect` with no core running), started before that
 * core is built: the server's own start-up then overlaps with loading the relay, the SDK, the
 * schemas and the audit log, instead of waiting for them.
 *
 * It is the same launch the core makes (the guard layers over the sandbox launcher, the same
 * backend), from config.json bytes recorded as validated by this build. Anything this path does
 * not cover returns undefined and the core launches as it always does: bytes not recorded as
 * validated (they are validated in full there), a server that is missing, remote, not confirmed,
 * holds secrets (their values must be known to the core for redaction) or needs a watcher (it
 * reports to the core). A refused launch is dropped here too: the core's own attempt refuses it
 * again, records it and reports it. The core adopts the running process only if it reads the same
 * server and guards (`matchesEarlyLaunch`); otherwise the process is stopped.
 *
 * A networked server gets its egress broker here, the core's own: the policy's rules decide every
 * connection from the start, and what they refuse is refused, as the core refuses it. A
 * destination that `ask` mode puts to the user waits, not yet asked, until the core that takes
 * the process takes the wait over (a prompt needs the core); it is refused if the process is
 * stopped first. The decisions are held, in order, until that core records them.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import type { Guards } from '../../app/policy/guards';
import type { Config, Server } from '../../app/policy/policy-schema';
import { ok } from '../../app/result';
import { guardedLauncher } from '../config/guarded-launcher';
import { DeferredGrants } from '../egress/deferred-grants';
import type { GrantRequests } from '../egress/grant-inbox';
import { readRecordedConfig } from '../config/validated-config-cache';
import type { SandboxBackend } from '../sandbox/backend';
import { selectBackend } from '../sandbox/select-backend';
import type { Launched } from '../supervisor/launcher';
import { createSandboxLauncher } from '../supervisor/sandbox-launcher';
import { launchEgress } from './launch-egress';
import { makeInstanceFolder, removeInstanceFolder } from './instance-folder';
import { instancesDirOf } from './instances-dir';

/** A process launched for the first session of a one-session core, waiting to be adopted. */
export interface EarlyLaunch {
  /** The server as read for the launch (what the core must read too to adopt it). */
  server: Server;
  guards: Guards | undefined;
  /** The id of the instance; the adopting session takes it (its private folder is named so). */
  instanceId: string;
  instanceDir: string;
  launched: Launched;
  /** The backend it was launched with (its probed facts), for the core to go on with. */
  backend: SandboxBackend;
  /**
   * Sends the egress decisions held so far to `sink`, in order, then each later one as it is made
   * (the core's audit log, once the launch is recorded there).
   */
  recordDecisions(sink: (e: EgressDecisionEvent) => void): void;
  /** Hands the destinations waiting for the user, then every later one, to the core's inbox. */
  forwardGrants(inbox: GrantRequests): void;
  /** Destinations waiting, unasked, for the core that takes the process. */
  waitingGrants(): number;
  /** Stops the process and removes its folder (when it is not adopted). */
  discard(): Promise<void>;
}

/**
 * Whether `server` launches with nothing but its policy and the host: no core service is needed
 * before it runs (what its egress puts to the user waits for the core).
 */
export function launchesAlone(server: Server, platform: NodeJS.Platform): boolean {
  const { policy } = server;
  if (!server.launch || !server.acknowledged) return false;
  // Seatbelt's refusals are followed by a watcher that reports to the core.
  if (platform === 'darwin' && policy.isolation !== 'off') return false;
  return Object.values(policy.env.set).every((value) => value.kind !== 'secret');
}

export interface EarlyLaunchOptions {
  wardenHome: string;
  name: string;
  hostEnv?: Readonly<Record<string, string | undefined>>;
  backend?: SandboxBackend;
  /** Schema identity of the validated-config record (default: this build's). */
  schemaId?: string;
}

/** Launches `name` ahead of the core, or returns undefined when the core must do it. */
export async function launchEarly(o: EarlyLaunchOptions): Promise<EarlyLaunch | undefined> {
  const config = readRecordedConfig(o.wardenHome, o.schemaId) as Config | undefined;
  const server = config?.servers.find((s) => s.name === o.name);
  if (!config || !server || !launchesAlone(server, process.platform)) return undefined;
  const hostEnv = o.hostEnv ?? process.env;
  const backend = o.backend ?? selectBackend(process.platform, { wardenHome: o.wardenHome });
  const decisions = new HeldDecisions();
  const grants = new DeferredGrants();
  const launcher = guardedLauncher(
    createSandboxLauncher({
      backend,
      hostEnv,
      resolveSecrets: () => Promise.resolve(ok({})),
      egress: (request) => launchEgress({ backend, grants, onDecision: decisions.push }, request),
    }),
    { global: () => config.guards },
  );
  const instanceId = randomUUID();
  const instanceDir = join(instancesDirOf(o.wardenHome), instanceId);
  const removeDir = () => removeInstanceFolder(instanceDir);
  try {
    await makeInstanceFolder(instanceDir);
    const launched = await launcher.launch({
      server: structuredClone(server),
      instanceId,
      instanceDir,
    });
    if (!launched.ok) {
      await removeDir();
      return undefined;
    }
    return {
      server,
      guards: config.guards,
      instanceId,
      instanceDir,
      launched: launched.value,
      backend,
      recordDecisions: (sink) => decisions.recordTo(sink),
      forwardGrants: (inbox) => grants.forwardTo(inbox),
      waitingGrants: () => grants.waitingCount(),
      discard: async () => {
        await launched.value.process.stop();
        await removeDir();
      },
    };
  } catch {
    await removeDir().catch(() => undefined);
    return undefined;
  }
}

/** Egress decisions held in order until there is somewhere to record them. */
class HeldDecisions {
  private held: EgressDecisionEvent[] = [];
  private sink: ((e: EgressDecisionEvent) => void) | undefined;

  push = (e: EgressDecisionEvent): void => {
    if (this.sink) this.sink(e);
    else this.held.push(e);
  };

  recordTo(sink: (e: EgressDecisionEvent) => void): void {
    if (this.sink) return;
    this.sink = sink;
    const held = this.held;
    this.held = [];
    for (const e of held) sink(e);
  }
}
