/**
 * One client session and its own server instance: launches it through the sandbox launcher,
 * relays the session, captures stderr as log lines, restarts a crashed server with backoff (the
 * client's handshake replayed), gives up with a clear failure when it crashes in a loop, stops it
 * when idle or when the client goes, and removes its private files.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { InstanceView } from '../../app/contract/instances';
import { type LaunchError, describeLaunchError } from '../../app/contract/launch-error';
import type { Root, Server } from '../../app/policy/policy-schema';
import { ok } from '../../app/result';
import { LineTransport } from '../gateway/line-transport';
import type { Relay, ToolGate } from '../gateway/relay';
import type { RootsMediator } from '../gateway/roots-mediator';
import { type RootsFactory, addSessionFolder } from '../gateway/roots-session';
import type { AdoptedLaunch, InstanceLauncher, LaunchedProcess, ProcessExit } from './launcher';
import { drainClient } from './client-drain';
import { IdleTimer, idleLimitEvent } from './idle-timer';
import { InstanceStatus } from './instance-status';
import { launchable, sessionCopy, takeAdopted } from './launch-preflight';
import { RefusedMessages } from './refused-messages';
import { ServerExits } from './server-exits';
import { launchEvent, wallTimeEvent, workspaceFileEvents } from './session-events';
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

export class InstanceSession {
  readonly id: string;
  private readonly status: InstanceStatus;
  private process: LaunchedProcess | undefined;
  private transport: LineTransport | undefined;
  private readonly exits: ServerExits;
  private readonly upstream = new SwitchableUpstream();
  private readonly relay: Relay;
  private readonly idle: IdleTimer;
  private ended = false;
  private launching = false;
  private upstreamPaused = false;
  /** Why the session was ended by a fault (an exception, a budget passed); shown as failed. */
  private sessionFailure: string | undefined;
  private readonly dir: string;
  private readonly scope: SessionScope;
  private readonly refused: RefusedMessages;
  /** Folders granted for this session only, bound at each of its launches. */
  private readonly sessionFolders: Root[] = [];
  /** The folders the running process was launched with. */
  private launchedFolders: string[] = [];
  private readonly roots: RootsMediator | undefined;
  /** The process launched for the first start, until that start takes or stops it. */
  private adopted: AdoptedLaunch | undefined;

  constructor(private readonly d: SessionDeps) {
    this.id = d.adopt?.instanceId ?? randomUUID();
    this.status = new InstanceStatus({
      id: this.id,
      serverName: d.serverName,
      clientLabel: d.clientLabel,
      clientName: () => this.upstream.clientInfo(),
      audit: d.audit,
      onChange: d.onChange,
    });
    this.adopted = d.adopt;
    this.dir = join(d.instancesDir, this.id);
    this.scope = {
      server: d.serverName,
      instance: this.id,
      fault: (reason) => void this.fault(reason),
    };
    this.idle = new IdleTimer(
      () => this.d.server()?.policy.idleTimeoutSeconds,
      () => inSession(this.scope, () => this.idleStop()),
    );
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
      onActivity: () => this.idle.touch(),
      log: (line) => this.status.tail.pushLine(line),
      ...(this.roots ? { intercept: this.roots } : {}),
    });
    this.refused = new RefusedMessages({
      server: d.serverName,
      instance: this.id,
      audit: d.audit,
      log: (line) => this.status.tail.pushLine(line),
      relay: this.relay,
      client: d.client,
    });
    this.exits = new ServerExits({
      relay: this.relay,
      status: this.status,
      fail: (reason) => this.fail(reason),
      restart: () => inSession(this.scope, () => this.ensureRunning()),
      maxRestarts: d.maxRestarts,
      crashWindowMs: d.crashWindowMs,
    });
    this.upstream.onneeded = () => inSession(this.scope, () => this.ensureRunning());
    this.upstream.onready = () => this.status.answer();
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
    this.status.follow(from, to);
  }

  view(): InstanceView {
    return this.status.view();
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
      this.status.stopping();
      this.process = undefined;
      // A message arriving meanwhile waits for the launch below instead of starting its own.
      this.launching = true;
      this.upstream.detach();
      await proc.stop();
      this.launching = false;
      this.relay.failInFlight('the server was restarted before answering');
    }
    this.exits.reset();
    this.status.restarted();
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

  private async ensureRunning(): Promise<void> {
    if (this.process || this.launching || this.ended || this.status.state.kind === 'failed') return;
    await this.launch();
  }

  private async launch(): Promise<void> {
    const copy = sessionCopy(this.d.server(), this.sessionFolders);
    const ahead = this.adopted;
    this.adopted = undefined;
    const adopted = await takeAdopted(ahead, copy);
    const checked = launchable(this.d.serverName, copy);
    if (!checked.ok) {
      this.fail(checked.error);
      return;
    }
    const server = checked.value;
    this.launching = true;
    this.status.starting();
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
    this.status.launched(launched.value.backend, server.revision);
    this.launchedFolders = server.policy.filesystem.roots.map((r) => r.path);
    proc.stderr.on('data', (chunk: Buffer) =>
      inSession(this.scope, () => this.status.tail.push(chunk)),
    );
    const transport = new LineTransport(proc.stdout, proc.stdin, this.d.maxMessageBytes);
    this.transport = transport;
    transport.onjunk = (line) =>
      inSession(this.scope, () =>
        this.status.tail.pushLine(`[not JSON-RPC on stdout] ${line.slice(0, 500)}`),
      );
    transport.onrefused = (info) => inSession(this.scope, () => this.refused.fromServer(info));
    const { backend } = launched.value;
    void proc.exited.then((exit) =>
      inSession(this.scope, () => {
        for (const e of workspaceFileEvents(this.d.serverName, this.id, backend, exit))
          this.d.audit(e);
        this.onExit(server, proc, transport, exit);
      }),
    );
    await transport.start();
    if (this.upstreamPaused) transport.pause();
    this.status.running(proc.pid);
    this.idle.touch();
    await this.upstream.attach(transport);
  }

  private onExit(
    server: Server,
    proc: LaunchedProcess,
    transport: LineTransport,
    exit: ProcessExit,
  ): void {
    const limit = exit.reason === 'wall-time' ? server.policy.limits.wallSeconds : undefined;
    if (exit.reason === 'wall-time') this.d.audit(wallTimeEvent(this.d.serverName, this.id, limit));
    if (!this.status.ready) this.status.diagnose(server);
    if (this.process !== proc) return;
    this.process = undefined;
    this.upstream.detach();
    void transport.close();
    if (this.ended) return;
    this.exits.exited(exit, this.status.state.kind !== 'stopping', limit);
  }

  private fail(reason: string, launchError?: LaunchError): void {
    this.status.failed(reason, launchError);
    this.upstream.drain();
    this.relay.failInFlight(reason);
    // Later requests get the same answer instead of waiting for a server that will not come.
    this.upstream.onneeded = () => this.relay.failInFlight(reason);
  }

  /**
   * Fails an instance whose server never answered its owner's handshake (a server that hangs):
   * stops the process and keeps the reason, instead of reporting a client that went away.
   */
  async failStart(reason: string): Promise<void> {
    if (this.ended || this.status.state.kind === 'failed') return;
    const server = this.d.server();
    if (!this.status.ready && server) this.status.diagnose(server);
    await this.end(reason, `${reason}${this.status.stderrNote()}`);
  }

  private async idleStop(): Promise<void> {
    const proc = this.process;
    if (!proc || this.ended) return;
    this.d.audit(idleLimitEvent(this.d.serverName, this.id));
    this.status.stopping();
    await proc.stop();
    this.exits.forgetCrash();
    this.status.idled();
    await removeInstanceFolder(this.dir);
  }

  private endPromise: Promise<void> | undefined;

  /** Ends once; every caller waits for the same ending. With `failure`, it ends as failed. */
  private end(reason: string, failure?: string): Promise<void> {
    return (this.endPromise ??= this.doEnd(reason, failure));
  }

  private async doEnd(reason: string, failure?: string): Promise<void> {
    this.ended = true;
    this.roots?.end();
    this.idle.cancel();
    const proc = this.process;
    if (proc) {
      this.status.stopping();
      this.process = undefined;
      await proc.stop();
    }
    this.relay.failInFlight(reason);
    await this.relay.flush();
    this.relay.close();
    this.refused.flush();
    // The last crash counts only when no process was running as the session ended.
    const lastCrash = proc ? undefined : this.exits.lastCrash;
    this.status.ended(reason, failure ?? this.sessionFailure, lastCrash);
    await removeInstanceFolder(this.dir);
    await this.d.client.close().catch(() => undefined);
    this.d.onEnded(this.id);
  }
}

export type { JSONRPCMessage };
