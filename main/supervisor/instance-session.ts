/**
 * One client session and its own server instance: launches it through the sandbox launcher,
 * relays the session, captures stderr as log lines, restarts a crashed server with backoff (the
 * client's handshake replayed), gives up with a clear failure when it crashes in a loop, stops it
 * when idle or when the client goes, and removes its private files.
 */
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { InstanceState, InstanceView } from '../../app/contract/instances';
import { type LaunchError, describeLaunchError } from '../../app/contract/launch-error';
import type { Root, Server } from '../../app/policy/policy-schema';
import { ok } from '../../app/result';
import { LineTransport } from '../gateway/line-transport';
import type { Relay, ToolGate } from '../gateway/relay';
import type { RootsMediator } from '../gateway/roots-mediator';
import { type RootsFactory, addSessionFolder, withSessionFolders } from '../gateway/roots-session';
import type {
  AdoptedLaunch,
  InstanceLauncher,
  Launched,
  LaunchedProcess,
  ProcessExit,
} from './launcher';
import { drainClient } from './client-drain';
import { CrashPolicy } from './crash-policy';
import { failureHint, tellingLines } from './launch-summary';
import { LineTail } from './line-tail';
import { RefusedMessages } from './refused-messages';
import { launchEvent, lifecycleEvent, wallTimeEvent } from './session-events';
import { createSessionRelay } from './session-relay';
import { makeInstanceFolder, removeInstanceFolder } from '../core/instance-folder';
import { type SessionScope, inSession } from '../core/process-guard';
import { SwitchableUpstream } from './switchable-upstream';

export interface SessionDeps {
  server: () => Readonly<Server> | undefined;
  serverName: string;
  client: Transport;
  clientLabel: string;
  launcher: InstanceLauncher;
  instancesDir: string;
  gate: (instanceId: string) => ToolGate;
  audit: (event: AuditEventInput) => void;
  redact: (serverName: string) => (value: unknown) => unknown;
  maxMessageBytes: number;
  onChange: (view: InstanceView) => void;
  onEnded: (id: string) => void;
  /** Roots mediation for this session, when the core mediates roots. */
  roots?: RootsFactory;
  /** A process launched already for the first start (its id becomes the session's). */
  adopt?: AdoptedLaunch;
  /** Crashes tolerated within `crashWindowMs` before the instance is failed for good. */
  maxRestarts?: number;
  crashWindowMs?: number;
}

/** A process's exit code, and its signal only when one ended it: `1`, `null, signal SIGKILL`. */
function exitText(code: number | null, signal: string | null): string {
  return signal ? `${String(code)}, signal ${signal}` : String(code);
}

export class InstanceSession {
  readonly id: string;
  private state: InstanceState = { kind: 'starting', since: new Date().toISOString(), attempt: 0 };
  private process: LaunchedProcess | undefined;
  private transport: LineTransport | undefined;
  private backend: string | undefined;
  private revision = 0;
  private restarts = 0;
  private readonly crashPolicy: CrashPolicy;
  private readonly tail = new LineTail(200, 8192);
  private readonly upstream = new SwitchableUpstream();
  private readonly relay: Relay;
  private idleTimer: NodeJS.Timeout | undefined;
  /** The idle timeout the timer was armed with, and when the session last saw traffic. */
  private idleMs = NaN;
  private lastActivity = 0;
  private ended = false;
  private launching = false;
  private upstreamPaused = false;
  /** Why the session was ended by a fault (an exception, a budget passed); shown as failed. */
  private sessionFailure: string | undefined;
  private readonly dir: string;
  private readonly scope: SessionScope;
  private readonly refused: RefusedMessages;
  /** Whether the current process answered `initialize`. */
  private ready = false;
  /** Why the last process ended before answering, when it did. */
  private failure: InstanceView['failure'];
  /** Folders granted for this session only, bound at each of its launches. */
  private readonly sessionFolders: Root[] = [];
  /** The folders the running process was launched with. */
  private launchedFolders: string[] = [];
  private readonly roots: RootsMediator | undefined;
  /** The process launched for the first start, until that start takes or stops it. */
  private adopted: AdoptedLaunch | undefined;

  constructor(private readonly d: SessionDeps) {
    this.id = d.adopt?.instanceId ?? randomUUID();
    this.adopted = d.adopt;
    this.dir = join(d.instancesDir, this.id);
    this.scope = {
      server: d.serverName,
      instance: this.id,
      fault: (reason) => void this.fault(reason),
    };
    this.crashPolicy = new CrashPolicy(d.maxRestarts, d.crashWindowMs);
    this.roots = d.roots?.({
      instance: this.id,
      clientName: () => this.upstream.clientInfo(),
      clientCapabilities: () => this.upstream.clientCapabilities(),
      sendToClient: (m) => d.client.send(m),
      sendToServer: (m) => this.upstream.send(m),
      folders: () => this.launchedFolders,
      grant: (root, always) => this.addFolder(root, always),
    });
    this.relay = createSessionRelay({
      scope: this.scope,
      client: d.client,
      clientLabel: d.clientLabel,
      upstream: this.upstream,
      gate: d.gate(this.id),
      audit: d.audit,
      redact: d.redact(d.serverName),
      serverTransport: () => this.transport,
      pauseServer: (paused) => {
        this.upstreamPaused = paused;
        if (paused) this.transport?.pause();
        else this.transport?.resume();
      },
      onActivity: () => this.touch(),
      log: (line) => this.tail.pushLine(line),
      ...(this.roots ? { intercept: this.roots } : {}),
    });
    this.refused = new RefusedMessages({
      server: d.serverName,
      instance: this.id,
      audit: d.audit,
      log: (line) => this.tail.pushLine(line),
      relay: this.relay,
      client: d.client,
    });
    this.upstream.onneeded = () => inSession(this.scope, () => this.ensureRunning());
    this.upstream.onready = () => {
      this.ready = true;
      this.failure = undefined;
      this.d.onChange(this.view());
    };
  }

  /** The name of the server this session runs. */
  get server(): string {
    return this.d.serverName;
  }

  /**
   * The revision in effect moves from `from` to `to`, whose change this instance follows
   * without a restart (its tools, say); an instance on an older revision stays on it.
   */
  follow(from: number, to: number): void {
    if (this.revision !== from) return;
    this.revision = to;
    this.d.onChange(this.view());
  }

  view(): InstanceView {
    const clientName = this.upstream.clientInfo();
    return {
      id: this.id,
      server: this.d.serverName,
      client: this.d.clientLabel,
      revision: this.revision,
      ...(this.backend ? { backend: this.backend } : {}),
      state: this.state,
      restarts: this.restarts,
      stderrTail: this.tail.lines(),
      ready: this.ready,
      ...(clientName ? { clientName } : {}),
      ...(this.failure ? { failure: this.failure } : {}),
    };
  }

  /** Starts the instance and the relay; resolves once the first launch settled. */
  async start(): Promise<void> {
    this.relay.attach();
    if (this.d.client instanceof LineTransport) {
      const client = this.d.client;
      client.onrefused = (info) => inSession(this.scope, () => this.refused.fromClient(info));
      // A client that closed its input but reads on gets the answers to what it sent first.
      client.oninputend = () =>
        void drainClient(
          () => this.relay.settled(),
          () => this.ended,
        ).then(() => this.end('the client disconnected'));
    }
    this.d.client.onclose = () => void this.end('the client disconnected');
    await this.d.client.start();
    await this.launch();
  }

  /**
   * Restarts the server process within this session (to apply a newer revision, say): the
   * client's handshake is replayed to the new process, calls in flight get an error.
   */
  async restart(): Promise<void> {
    const proc = this.process;
    if (this.ended) return;
    if (proc) {
      this.setState({ kind: 'stopping', since: new Date().toISOString() });
      this.process = undefined;
      // A message arriving meanwhile waits for the launch below instead of starting its own.
      this.launching = true;
      this.upstream.detach();
      await proc.stop();
      this.launching = false;
      this.relay.failInFlight('the server was restarted before answering');
    }
    this.crashPolicy.reset();
    this.lastCrash = undefined;
    this.restarts++;
    await this.launch();
  }

  /** The folders granted to this session alone (its server sees them; argument rules too). */
  sessionGrantedFolders(): readonly Root[] {
    return this.sessionFolders;
  }

  /** Binds a granted folder: the session's own unless saved already; the server restarts. */
  private async addFolder(root: Root, always: boolean): Promise<void> {
    if (this.ended) return;
    if (!always) addSessionFolder(this.sessionFolders, root);
    await this.restart();
  }

  /** Stops the instance and ends the session. */
  async stop(reason = 'stopped by the user'): Promise<void> {
    await this.end(reason);
  }

  /**
   * Ends this session alone because handling it went wrong (an exception, a limit passed): the
   * client gets the reason as an error for every call in flight, the audit log records it, and
   * the instance shows as failed. Other sessions and the core go on.
   */
  async fault(reason: string): Promise<void> {
    if (this.ended) return;
    this.sessionFailure = reason;
    await this.end(reason);
  }

  private setState(state: InstanceState): void {
    const previous = this.state.kind;
    this.state = state;
    this.d.audit(lifecycleEvent(this.d.serverName, this.id, state, previous));
    this.d.onChange(this.view());
  }

  private async ensureRunning(): Promise<void> {
    if (this.process || this.launching || this.ended || this.state.kind === 'failed') return;
    await this.launch();
  }

  private async launch(): Promise<void> {
    // A copy: the launch keeps the revision it started with while the stored one moves on.
    const stored = this.d.server();
    const server = stored
      ? withSessionFolders(structuredClone(stored), this.sessionFolders)
      : undefined;
    const adopted = await this.takeAdopted(server);
    if (!server) {
      this.fail(`the server "${this.d.serverName}" no longer exists`);
      return;
    }
    if (!server.acknowledged) {
      // The MCP specification asks that a user sees a server's full command before it first runs.
      this.fail(
        `the command of "${server.name}" has not been confirmed yet; review it in Warden (or with \`warden servers show ${server.name}\`) and confirm it (\`warden servers confirm ${server.name}\`)`,
      );
      return;
    }
    this.launching = true;
    this.ready = false;
    this.setState({ kind: 'starting', since: new Date().toISOString(), attempt: this.restarts });
    // An adopted launch's folder and record were made by the launch ahead of this core.
    if (!adopted) await makeInstanceFolder(this.dir);
    const launched = adopted
      ? ok(adopted)
      : await this.d.launcher.launch({ server, instanceId: this.id, instanceDir: this.dir });
    this.launching = false;
    if (this.ended) {
      if (launched.ok) await launched.value.process.stop();
      return;
    }
    if (!launched.ok) {
      this.fail(describeLaunchError(launched.error), launched.error);
      return;
    }
    const proc = launched.value.process;
    this.process = proc;
    this.d.audit(launchEvent(server, this.id, launched.value));
    this.backend = launched.value.backend;
    this.revision = server.revision;
    this.launchedFolders = server.policy.filesystem.roots.map((r) => r.path);
    proc.stderr.on('data', (chunk: Buffer) => inSession(this.scope, () => this.tail.push(chunk)));
    const transport = new LineTransport(proc.stdout, proc.stdin, this.d.maxMessageBytes);
    this.transport = transport;
    transport.onjunk = (line) =>
      inSession(this.scope, () =>
        this.tail.pushLine(`[not JSON-RPC on stdout] ${line.slice(0, 500)}`),
      );
    transport.onrefused = (info) => inSession(this.scope, () => this.refused.fromServer(info));
    void proc.exited.then((exit) =>
      inSession(this.scope, () => {
        const limit = exit.reason === 'wall-time' ? server.policy.limits.wallSeconds : undefined;
        if (exit.reason === 'wall-time')
          this.d.audit(wallTimeEvent(this.d.serverName, this.id, limit));
        if (!this.ready) this.diagnose(server);
        this.onExit(proc, transport, exit, limit);
      }),
    );
    await transport.start();
    if (this.upstreamPaused) transport.pause();
    this.setState({
      kind: 'running',
      since: new Date().toISOString(),
      ...(proc.pid !== undefined ? { pid: proc.pid } : {}),
    });
    this.touch();
    await this.upstream.attach(transport);
  }

  /**
   * The process launched before this session, if it was launched for what `server` is now (same
   * revision, confirmed); otherwise it is stopped, and the launch goes on as usual.
   */
  private async takeAdopted(server: Server | undefined): Promise<Launched | undefined> {
    const adopted = this.adopted;
    this.adopted = undefined;
    if (!adopted) return undefined;
    if (server?.acknowledged && server.revision === adopted.revision) return adopted.launched;
    await adopted.launched.process.stop();
    return undefined;
  }

  private onExit(
    proc: LaunchedProcess,
    transport: LineTransport,
    exit: ProcessExit,
    wallSeconds: number | undefined,
  ): void {
    const { code, signal } = exit;
    if (this.process !== proc) return;
    this.process = undefined;
    this.upstream.detach();
    void transport.close();
    if (this.ended) return;
    const crashed = this.state.kind !== 'stopping';
    if (exit.reason === 'wall-time') {
      // A limit doing its job is not a crash: no restart now, a fresh run on the next request.
      const limit = `its wall-time limit (${String(wallSeconds)} s)`;
      this.relay.failInFlight(`the server was stopped at ${limit} before answering`);
      const reason = `stopped at ${limit}; starts again on the next request`;
      this.lastCrash = undefined;
      this.setState({ kind: 'exited', at: new Date().toISOString(), code, signal, reason });
      return;
    }
    this.relay.failInFlight(
      `the server exited (code ${exitText(code, signal)}) before answering${this.lastStderr()}`,
    );
    if (!crashed) return;
    const verdict = this.crashPolicy.crashed();
    if (verdict.kind === 'give-up') {
      this.fail(
        `the server crashed ${verdict.crashes} times within ${verdict.windowSeconds} s (last exit code ${exitText(code, signal)})${this.lastStderr()}`,
      );
      return;
    }
    this.lastCrash = `the server crashed (exit code ${exitText(code, signal)})${this.lastStderr()}`;
    this.setState({
      kind: 'exited',
      at: new Date().toISOString(),
      code,
      signal,
      reason: 'crashed; restarting',
    });
    this.restarts++;
    setTimeout(() => inSession(this.scope, () => this.ensureRunning()), verdict.afterMs).unref();
  }

  private fail(reason: string, launchError?: LaunchError): void {
    this.setState({
      kind: 'failed',
      at: new Date().toISOString(),
      reason,
      ...(launchError ? { launchError } : {}),
    });
    this.upstream.drain();
    this.relay.failInFlight(reason);
    // Later requests get the same answer instead of waiting for a server that will not come.
    this.upstream.onneeded = () => this.relay.failInFlight(reason);
  }

  /** The telling lines of the server's stderr, to put in an error the client shows. */
  private lastStderr(): string {
    const lines = tellingLines(this.tail.lines());
    if (lines.length === 0) return '';
    return lines.length === 1
      ? `; its stderr: ${lines[0]!}`
      : `; its stderr: ${lines.map((l) => `"${l}"`).join(', ')}`;
  }

  /**
   * Keeps the telling stderr lines of a process that ended before answering, then the likely fix
   * once the folders it names were looked at on the host.
   */
  private diagnose(server: Server): void {
    const all = this.tail.lines();
    const failure = { lines: tellingLines(all) };
    this.failure = failure;
    const exists = (folder: string) =>
      stat(folder).then(
        (st) => st.isDirectory(),
        () => false,
      );
    const launch = server.launch;
    if (!launch) return;
    void failureHint(all, server.policy, launch, exists).then((hint) => {
      if (!hint || this.failure !== failure) return;
      this.failure = { ...failure, hint };
      this.d.onChange(this.view());
    });
  }

  /**
   * Fails an instance whose server never answered its owner's handshake (a server that hangs):
   * stops the process and keeps the reason, instead of reporting a client that went away.
   */
  async failStart(reason: string): Promise<void> {
    if (this.ended || this.state.kind === 'failed') return;
    const server = this.d.server();
    if (!this.ready && server) this.diagnose(server);
    await this.end(reason, `${reason}${this.lastStderr()}`);
  }

  /**
   * Notes traffic (every message of the session). The idle timer is armed once and, when it fires,
   * looks at the last activity: a timer per message would cost more than relaying it.
   */
  private touch(): void {
    this.lastActivity = performance.now();
    const ms = (this.d.server()?.policy.idleTimeoutSeconds ?? NaN) * 1000;
    if (this.idleTimer && ms === this.idleMs) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.idleMs = ms;
    if (!Number.isNaN(ms)) this.armIdle(ms);
  }

  private armIdle(ms: number): void {
    this.idleTimer = setTimeout(this.onIdleTimer, ms);
    this.idleTimer.unref();
  }

  private readonly onIdleTimer = () => {
    this.idleTimer = undefined;
    const left = this.lastActivity + this.idleMs - performance.now();
    if (left > 0) this.armIdle(left);
    else inSession(this.scope, () => this.idleStop());
  };

  private async idleStop(): Promise<void> {
    const proc = this.process;
    if (!proc || this.ended) return;
    this.d.audit({
      kind: 'limit.hit',
      outcome: 'info',
      server: this.d.serverName,
      instance: this.id,
      limit: 'idleTimeoutSeconds',
    });
    this.setState({ kind: 'stopping', since: new Date().toISOString() });
    await proc.stop();
    this.lastCrash = undefined;
    this.setState({
      kind: 'exited',
      at: new Date().toISOString(),
      code: null,
      signal: null,
      reason: 'idle; starts again on the next request',
    });
    await removeInstanceFolder(this.dir);
  }

  private endPromise: Promise<void> | undefined;
  /** How the last process crashed, kept so that an ending session still shows the failure. */
  private lastCrash: string | undefined;

  /** Ends once; every caller waits for the same ending. With `failure`, it ends as failed. */
  private end(reason: string, failure?: string): Promise<void> {
    return (this.endPromise ??= this.doEnd(reason, failure));
  }

  private async doEnd(reason: string, failure?: string): Promise<void> {
    this.ended = true;
    this.roots?.end();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const proc = this.process;
    if (proc) {
      this.setState({ kind: 'stopping', since: new Date().toISOString() });
      this.process = undefined;
      await proc.stop();
    }
    this.relay.failInFlight(reason);
    await this.relay.flush();
    this.relay.close();
    this.refused.flush();
    const failed = failure ?? this.sessionFailure;
    if (failed !== undefined) {
      this.setState({ kind: 'failed', at: new Date().toISOString(), reason: failed });
    } else if (this.state.kind !== 'failed' && !proc && this.lastCrash) {
      // The client gave up on a server that was crashing: that is a failure, not a clean exit.
      this.setState({
        kind: 'failed',
        at: new Date().toISOString(),
        reason: `${this.lastCrash}; then ${reason}`,
      });
    } else if (this.state.kind !== 'failed') {
      this.setState({
        kind: 'exited',
        at: new Date().toISOString(),
        code: null,
        signal: null,
        reason,
      });
    }
    await removeInstanceFolder(this.dir);
    await this.d.client.close().catch(() => undefined);
    this.d.onEnded(this.id);
  }
}

export type { JSONRPCMessage };
