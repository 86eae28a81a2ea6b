/**
 * The supervisor: one sandboxed instance per client session (no two sessions share a server
 * process or its files), their states for the UI, and stopping them all cleanly.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { InstanceView } from '../../app/contract/instances';
import type { Server } from '../../app/policy/policy-schema';
import type { ToolGate } from '../gateway/relay';
import type { RootsFactory } from '../gateway/roots-session';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../gateway/line-transport';
import { InstanceSession } from './instance-session';
import type { AdoptedLaunch, InstanceLauncher } from './launcher';

const GREET_ID = 'warden-owner-initialize';

/**
 * Warden's own client of an instance started from the UI: `initialize`, then `tools/list` (which
 * pins the tools for review). Unlike an SDK client it never closes its side when a request fails,
 * so a server that crashes on start is restarted and reported by its session, not as a client
 * that went away. A session that ended before the greeting reached it (stopped, or its launch
 * refused, while the SDK's types were loading) has no one to greet: the send's "Not connected" is
 * dropped, since the session reports its own end.
 */
export async function greet(transport: Transport): Promise<void> {
  // Loaded here: the SDK's types build hundreds of schemas, which no relayed session needs.
  const { LATEST_PROTOCOL_VERSION } = await import('@modelcontextprotocol/sdk/types.js');
  const send = (message: JSONRPCMessage) => transport.send(message).catch(() => undefined);
  transport.onmessage = (m) => {
    if (!('id' in m) || m.id !== GREET_ID || !('result' in m)) return;
    void send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    void send({ jsonrpc: '2.0', id: 'warden-owner-tools', method: 'tools/list' });
  };
  await transport.start();
  await send({
    jsonrpc: '2.0',
    id: GREET_ID,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'mcp-warden', version: '1' },
    },
  });
}

export interface SupervisorDeps {
  /** The stored server, read-only (not copied: called on every message). */
  getServer: (name: string) => Readonly<Server> | undefined;
  launcher: InstanceLauncher;
  instancesDir: string;
  gate: (server: string, instanceId: string) => ToolGate;
  audit: (event: AuditEventInput) => void;
  redact: (server: string) => (value: unknown) => unknown;
  maxMessageBytes?: number;
  onInstancesChanged?: (instances: InstanceView[]) => void;
  /** Roots mediation for the sessions of one server, opened by one client. */
  roots?: (server: string, clientLabel: string) => RootsFactory;
  /** How long an instance started from the UI may take to answer `initialize` (default 60 s). */
  ownedStartTimeoutMs?: number;
}

export class Supervisor {
  private readonly sessions = new Map<string, InstanceSession>();
  /** Views of sessions that ended, kept briefly so the UI can show how they ended. */
  private readonly ended = new Map<string, InstanceView>();
  private readonly endListeners = new Set<(id: string) => void>();

  constructor(private readonly d: SupervisorDeps) {}

  /**
   * Starts a new instance of `serverName` for a new client session over `client`; with `adopt`,
   * its first start takes that process (launched already) instead of launching one.
   */
  async open(
    serverName: string,
    client: Transport,
    clientLabel: string,
    adopt?: AdoptedLaunch,
  ): Promise<InstanceSession> {
    const roots = this.d.roots?.(serverName, clientLabel);
    const session: InstanceSession = new InstanceSession({
      ...(adopt ? { adopt } : {}),
      ...(roots ? { roots } : {}),
      server: () => this.d.getServer(serverName),
      serverName,
      client,
      clientLabel,
      launcher: this.d.launcher,
      instancesDir: this.d.instancesDir,
      gate: (id) => this.d.gate(serverName, id),
      audit: this.d.audit,
      redact: this.d.redact,
      maxMessageBytes: this.d.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      onChange: () => this.changed(),
      onEnded: (id) => {
        this.ended.set(id, session.view());
        while (this.ended.size > 50) this.ended.delete(this.ended.keys().next().value!);
        this.sessions.delete(id);
        this.changed();
        for (const listener of this.endListeners) listener(id);
      },
    });
    this.sessions.set(session.id, session);
    await session.start();
    return session;
  }

  /** Subscribes to sessions ending (client gone, stopped, or failed and closed). */
  onEnded(listener: (id: string) => void): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  list(): InstanceView[] {
    return [...this.ended.values(), ...[...this.sessions.values()].map((s) => s.view())];
  }

  get(id: string): InstanceSession | undefined {
    return this.sessions.get(id);
  }

  /**
   * A change of `server` from revision `from` to `to` that its running instances follow without a
   * restart (policy-diff.ts's `appliesLive`): those on `from` are now on `to`.
   */
  followLiveChange(server: string, from: number, to: number): void {
    for (const session of this.sessions.values())
      if (session.server === server) session.follow(from, to);
  }

  /** Restarts an instance's process within its session; false when there is no such instance. */
  restart(id: string): Promise<boolean> {
    return this.withSession(id, (session) => session.restart());
  }

  /**
   * Starts an instance that Warden itself holds open (started from the UI, with no AI client):
   * it shows whether the server runs in its sandbox and lists its tools, which pins their
   * definitions for review before any client uses them. It runs until stopped.
   */
  async startOwned(serverName: string): Promise<InstanceSession> {
    const [clientSide, sessionSide] = InMemoryTransport.createLinkedPair();
    const session = await this.open(serverName, sessionSide, 'warden');
    void greet(clientSide);
    // A server that crashes on start is restarted, then failed with its stderr; one that never
    // answers is failed with that reason by this timer, not reported as a client that went away.
    const timeoutMs = this.d.ownedStartTimeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      if (session.view().ready) return;
      void session.failStart(
        `the server did not answer MCP's initialize within ${Math.round(timeoutMs / 1000)} s`,
      );
    }, timeoutMs);
    timer.unref();
    return session;
  }

  /** Stops an instance; false when there is no such instance. */
  stop(id: string): Promise<boolean> {
    return this.withSession(id, (session) => session.stop());
  }

  private async withSession(
    id: string,
    act: (session: InstanceSession) => Promise<void>,
  ): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session) return false;
    await act(session);
    return true;
  }

  /** Stops every instance of a server (e.g. before it is removed). */
  async stopServer(name: string): Promise<void> {
    await Promise.all(
      [...this.sessions.values()].filter((s) => s.view().server === name).map((s) => s.stop()),
    );
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.stop('Warden is shutting down')));
  }

  private changed(): void {
    this.d.onInstancesChanged?.(this.list());
  }
}
