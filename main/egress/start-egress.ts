/**
 * Egress for one instance, as the supervisor uses it: what to run inside the sandbox before the
 * server (the init, by the app's own Node runtime), the proxy environment for the server, and a
 * broker to attach to the channel (`child.stdio[3]`). In `none` mode there is no init and no
 * channel: the server's network namespace has no route at all.
 */
import { dirname, join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { compileRules } from '../../app/policy/network-patterns';
import type { NetworkPolicy } from '../../app/policy/policy-schema';
import type { FieldError } from '../../app/policy/validate';
import { type Result, err, ok } from '../../app/result';
import { EgressBroker } from './egress-broker';
import type { GrantInbox } from './grant-inbox';
import { proxyEnv } from './proxy-env';
import type { Lookup, ResolveOverride } from './resolve-destination';

export { proxyEnv } from './proxy-env';

/** Where the sandbox init and the fetch preload are, and which Node runs them. */
export interface EgressRuntime {
  /** `process.execPath`: node, or the Electron executable (run with ELECTRON_RUN_AS_NODE=1). */
  nodePath: string;
  initScript: string;
  preloadScript: string;
  isElectron: boolean;
}

/** The runtime of this process, with the bundles in `outDir/sandbox-init/`. */
export function currentEgressRuntime(outDir: string): EgressRuntime {
  return {
    nodePath: process.execPath,
    initScript: join(outDir, 'sandbox-init', 'init.cjs'),
    preloadScript: join(outDir, 'sandbox-init', 'fetch-preload.cjs'),
    isElectron: typeof process.versions.electron === 'string',
  };
}

export const DEFAULT_PROXY_PORT = 8877;

export interface StartEgressOptions {
  network: NetworkPolicy;
  server: string;
  instanceId: string;
  runtime: EgressRuntime;
  onDecision: (e: EgressDecisionEvent) => void;
  grants?: GrantInbox;
  resolve?: readonly ResolveOverride[];
  lookup?: Lookup;
  onViolation?: (message: string) => void;
  /** Port of the proxy on the sandbox's own loopback (the namespace is private, so fixed is fine). */
  proxyPort?: number;
}

/** Per-instance egress, in the shape the sandbox launcher takes (`InstanceEgress`). */
export interface Egress {
  /** For the backend's compile: the init to run before the server, and fd 3 for the channel. */
  context: {
    /** Run inside the sandbox as `[...argv, '--', command, ...args]`; absent in `none` mode. */
    wrapper?: { argv: string[]; readOnlyBinds: string[] };
    /** 1 when the spawner must pass the channel as fd 3 (`stdio[3] = 'pipe'`). */
    extraFds: 0 | 1;
    /** Files the sandbox must let the server read where no wrapper binds them (macOS). */
    readableFiles?: string[];
    /** Where the proxy runs in Warden (macOS): its port on the host's loopback. */
    egressPort?: number;
  };
  /** Variables for the sandboxed process, on top of the policy's environment (see mergeEgressEnv). */
  env: Record<string, string>;
  /** Serves the host end of fd 3 (`child.stdio[3]`). */
  attach(channel: Duplex): void;
  /** Closes the channel and every connection, and drops the instance's pending grants. */
  close(): Promise<void>;
}

/**
 * Adds the egress variables to a server environment; `NODE_OPTIONS` is appended to, not
 * replaced, so a server's own options survive beside the fetch preload.
 */
export function mergeEgressEnv(
  target: Record<string, string>,
  egressEnv: Readonly<Record<string, string>>,
): void {
  const own = target.NODE_OPTIONS;
  Object.assign(target, egressEnv);
  if (own && egressEnv.NODE_OPTIONS) target.NODE_OPTIONS = `${own} ${egressEnv.NODE_OPTIONS}`;
}

export interface EgressSetupError {
  kind: 'invalid-network-policy';
  message: string;
  remedy: string;
  fields: FieldError[];
}

/** The proxy variables for a server whose proxy listens on 127.0.0.1:`port`. */

/** Prepares egress for one instance; fails closed when a network pattern is invalid. */
export function startEgress(opts: StartEgressOptions): Result<Egress, EgressSetupError> {
  const { network } = opts;
  const rules = compileRules(network);
  if (!rules.ok) {
    return err({
      kind: 'invalid-network-policy',
      message: `the network policy of ${opts.server} has invalid entries: ${rules.error.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      remedy: 'fix the listed patterns in the server settings',
      fields: rules.error,
    });
  }
  if (network.mode === 'none') {
    return ok({
      context: { extraFds: 0 },
      env: {},
      attach: (c: Duplex) => void c.destroy(),
      close: () => Promise.resolve(),
    });
  }
  const port = opts.proxyPort ?? DEFAULT_PROXY_PORT;
  const broker = new EgressBroker({
    server: opts.server,
    instanceId: opts.instanceId,
    mode: network.mode,
    rules: rules.value,
    askTimeoutMs: network.askTimeoutSeconds * 1000,
    ...(opts.grants ? { grants: opts.grants } : {}),
    ...(opts.resolve ? { resolve: opts.resolve } : {}),
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
    ...(opts.onViolation ? { onViolation: opts.onViolation } : {}),
    onDecision: opts.onDecision,
  });
  const { runtime } = opts;
  const binds = [dirname(runtime.initScript), dirname(runtime.preloadScript)];
  if (!/^\/(usr|bin|lib|lib64)\//.test(runtime.nodePath)) binds.push(dirname(runtime.nodePath));
  const env = proxyEnv(port, runtime.preloadScript);
  if (runtime.isElectron) env.ELECTRON_RUN_AS_NODE = '1';
  const argv = [runtime.nodePath, runtime.initScript, '--port', String(port)];
  return ok({
    context: { wrapper: { argv, readOnlyBinds: [...new Set(binds)] }, extraFds: 1 },
    env,
    attach: (channel) => broker.attach(channel),
    close: () => {
      broker.close();
      return Promise.resolve();
    },
  });
}
