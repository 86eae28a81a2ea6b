/**
 * Egress for one instance, as the supervisor uses it: what to run inside the sandbox before the
 * server (the init, by the app's own Node runtime), the proxy environment for the server, and the
 * proxy and broker that serve the listening socket the init hands over on fd 3 (Node's IPC
 * channel, closed as soon as the socket is taken). In `none` mode there is no init and no
 * channel: the server's network namespace has no route at all.
 */
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { dirname } from 'node:path';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { compileRules } from '../../app/policy/network-patterns';
import { namesLoopback } from '../../app/policy/network-loopback';
import type { NetworkPolicy } from '../../app/policy/policy-schema';
import type { FieldError } from '../../app/policy/validate';
import { type Result, err, ok } from '../../app/result';
import { EgressBroker } from './egress-broker';
import type { EgressRuntime } from './egress-runtime';
import type { GrantRequests } from './grant-inbox';
import { proxyEnv } from './proxy-env';
import { type ProxyAuthorize, createProxyServer } from './proxy-server';
import type { Lookup, ResolveOverride } from './resolve-destination';

export { proxyEnv } from './proxy-env';
export { type EgressRuntime, currentEgressRuntime, mergeEgressEnv } from './egress-runtime';

export const DEFAULT_PROXY_PORT = 8877;
/** Connections one instance may hold open to its proxy (being decided or relaying). */
const MAX_CONNECTIONS = 256;

export interface StartEgressOptions {
  network: NetworkPolicy;
  server: string;
  instanceId: string;
  runtime: EgressRuntime;
  onDecision: (e: EgressDecisionEvent) => void;
  grants?: GrantRequests;
  resolve?: readonly ResolveOverride[];
  lookup?: Lookup;
  /** Something the instance's egress could not do, said once (the hand-over failed, a flood). */
  onProblem?: (message: string) => void;
  /** Certificates (PEM) also trusted when Warden opens TLS for an absolute-form https:// request. */
  extraCa?: readonly string[];
  /** Port of the proxy on the sandbox's own loopback (the namespace is private, so fixed is fine). */
  proxyPort?: number;
}

/** Per-instance egress, in the shape the sandbox launcher takes (`InstanceEgress`). */
export interface Egress {
  /** For the backend's compile: the init to run before the server, and fd 3 for the channel. */
  context: {
    /** Run inside the sandbox as `[...argv, '--', command, ...args]`; absent in `none` mode. */
    wrapper?: { argv: string[]; readOnlyBinds: string[] };
    /** 1 when the spawner must pass Node's IPC channel as fd 3 (`stdio[3] = 'ipc'`). */
    extraFds: 0 | 1;
    /** Files the sandbox must let the server read where no wrapper binds them (macOS). */
    readableFiles?: string[];
    /** Where the proxy runs in Warden (macOS): its port on the host's loopback. */
    egressPort?: number;
  };
  /** Variables for the sandboxed process, on top of the policy's environment (see mergeEgressEnv). */
  env: Record<string, string>;
  /** Takes the proxy socket from the spawned child's init (its IPC channel on fd 3) and serves it. */
  attach(child: ChildProcess): void;
  /** Closes the proxy and every connection, and drops the instance's pending grants. */
  close(): Promise<void>;
}

/** Whether `message` is the init's hand-over of its proxy socket. */
function isHandover(message: unknown, handle: unknown): handle is net.Server {
  const m = message as { warden?: unknown } | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.warden === 'egress-listener' &&
    handle instanceof net.Server
  );
}

/**
 * Takes the listening socket from the init and serves `proxy` on it. The channel is closed on the
 * first message, whatever it is: the init sends exactly one, before the server is started.
 */
function takeHandover(child: ChildProcess, proxy: net.Server, problem: (m: string) => void): void {
  if (!child.connected) return problem('the sandbox init has no channel to Warden');
  child.on('error', () => undefined);
  const timer = setTimeout(() => {
    if (child.connected) child.disconnect();
    problem('the sandbox init did not hand over its proxy socket in time: no network');
  }, 20_000);
  child.once('message', (message: unknown, handle: unknown) => {
    clearTimeout(timer);
    if (child.connected) child.disconnect();
    if (!isHandover(message, handle)) {
      (handle as { close?: () => void } | undefined)?.close?.();
      return problem('the sandbox init sent something other than its proxy socket: no network');
    }
    proxy.listen(handle);
  });
}

export interface EgressSetupError {
  kind: 'invalid-network-policy';
  message: string;
  remedy: string;
  fields: FieldError[];
}

export interface InstanceProxy {
  /** Not listening yet: `listen(server)` with the init's socket, or on a host port. */
  proxy: net.Server;
  problem: (message: string) => void;
  /**
   * Stops the proxy, ends every connection of the instance and drops its pending grants; resolves
   * once their audit events are out (see EgressBroker.close).
   */
  close: () => Promise<void>;
}

/**
 * The broker and proxy of one instance, or `undefined` in `none` mode; fails closed when a
 * network pattern is invalid. `authorize` makes the proxy ask for the instance's credentials.
 */
export function instanceProxy(
  opts: StartEgressOptions,
  authorize?: ProxyAuthorize,
): Result<InstanceProxy | undefined, EgressSetupError> {
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
  if (network.mode === 'none') return ok(undefined);
  const broker = new EgressBroker({
    server: opts.server,
    instanceId: opts.instanceId,
    mode: network.mode,
    rules: rules.value,
    askTimeoutMs: network.askTimeoutSeconds * 1000,
    ...(opts.grants ? { grants: opts.grants } : {}),
    ...(opts.resolve ? { resolve: opts.resolve } : {}),
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
    onDecision: opts.onDecision,
  });
  const problem = (m: string) => opts.onProblem?.(m);
  const proxy = createProxyServer(broker.dial, {
    ...(authorize ? { authorize } : {}),
    ...(opts.extraCa ? { extraCa: opts.extraCa } : {}),
  });
  // Each accepted connection holds a descriptor in Warden: a flood is cut off here, before any
  // decision, so that one instance cannot exhaust Warden's descriptors.
  proxy.maxConnections = MAX_CONNECTIONS;
  // Every connection ends with the instance, whatever state it is in.
  const connections = new Set<net.Socket>();
  proxy.on('connection', (c: net.Socket) => {
    connections.add(c);
    c.once('close', () => connections.delete(c));
  });
  let dropped = 0;
  proxy.on('drop', () => {
    if (dropped++ === 0)
      problem(`more than ${MAX_CONNECTIONS} connections at once: the extra ones are closed`);
  });
  const close = (): Promise<void> => {
    proxy.close();
    for (const c of connections) c.destroy();
    return broker.close();
  };
  return ok({ proxy, problem, close });
}

/** `none` mode: no init, no channel, no variables; the namespace has no route at all. */
export function noEgress(): Egress {
  return {
    context: { extraFds: 0 },
    env: {},
    attach: () => undefined,
    close: () => Promise.resolve(),
  };
}

/** Prepares egress for one instance; fails closed when a network pattern is invalid. */
export function startEgress(opts: StartEgressOptions): Result<Egress, EgressSetupError> {
  const made = instanceProxy(opts);
  if (!made.ok) return made;
  if (!made.value) return ok(noEgress());
  const { proxy, problem, close } = made.value;
  const port = opts.proxyPort ?? DEFAULT_PROXY_PORT;
  const { runtime } = opts;
  const program = runtime.initProgram;
  const binds = [dirname(program ?? runtime.initScript), dirname(runtime.preloadScript)];
  // The script init runs on this process's Node (Electron's, in the app): the sandbox must see it.
  if (!program && !/^\/(usr|bin|lib|lib64)\//.test(runtime.nodePath)) {
    binds.push(dirname(runtime.nodePath));
  }
  // The namespace has a loopback of its own: `localhost` is it, unless the policy names the host's.
  const loopback = namesLoopback(opts.network) ? 'proxy' : 'sandbox';
  const env = proxyEnv(port, { loopback });
  env.WARDEN_SERVER_NODE_OPTIONS = proxyEnv(port, {
    preloadScript: runtime.preloadScript,
  }).NODE_OPTIONS!;
  if (runtime.isElectron && !program) env.ELECTRON_RUN_AS_NODE = '1';
  const argv = program
    ? [program, '--port', String(port)]
    : [runtime.nodePath, runtime.initScript, '--port', String(port)];
  return ok({
    context: { wrapper: { argv, readOnlyBinds: [...new Set(binds)] }, extraFds: 1 },
    env,
    attach: (child) => takeHandover(child, proxy, problem),
    close,
  });
}
