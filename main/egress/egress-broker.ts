/**
 * The host side of one instance's egress: reads its channel, decides each `host:port` (rules,
 * runtime grants, ask), resolves allowed names on the host, refuses private addresses that the
 * policy does not list, connects, and streams both ways with backpressure. Every attempt ends in
 * one audit event attributed to the instance that owns the channel.
 */
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressDecisionEvent, EgressReason } from '../../app/contract/grants';
import { formatIp } from '../../app/policy/network-address';
import { type CompiledRules, parseDestination } from '../../app/policy/network-patterns';
import { FailCode } from '../sandbox-init/mux-frames';
import { MuxSession } from '../sandbox-init/mux-session';
import type { MuxStream } from '../sandbox-init/mux-stream';
import type { GrantInbox } from './grant-inbox';
import { InstanceDecider, type Verdict } from './instance-decider';
import { limitedLookup } from './lookup-limiter';
import {
  type Lookup,
  type ResolveOverride,
  resolveDestination,
  systemLookup,
} from './resolve-destination';
import { connectUpstream, spliceUpstream } from './upstream';

export interface BrokerOptions {
  server: string;
  instanceId: string;
  mode: 'allowlist' | 'ask';
  rules: CompiledRules;
  askTimeoutMs: number;
  grants?: GrantInbox;
  resolve?: readonly ResolveOverride[];
  lookup?: Lookup;
  onDecision: (e: EgressDecisionEvent) => void;
  /** The channel broke the protocol and was closed (this instance only). */
  onViolation?: (message: string) => void;
  connectTimeoutMs?: number;
  maxStreams?: number;
}

const failCodes: Record<EgressReason, FailCode> = {
  denied: FailCode.Denied,
  'not-allowed': FailCode.NotAllowed,
  'ask-timeout': FailCode.AskTimeout,
  'address-blocked': FailCode.AddressBlocked,
  'resolve-failed': FailCode.ResolveFailed,
  'connect-failed': FailCode.ConnectFailed,
  limit: FailCode.Limit,
  'bad-destination': FailCode.BadDestination,
};

export class EgressBroker {
  private readonly sessions = new Set<MuxSession>();
  private readonly decider: InstanceDecider;

  private readonly lookup: Lookup;

  constructor(private readonly opts: BrokerOptions) {
    this.lookup = limitedLookup(opts.lookup ?? systemLookup);
    this.decider = new InstanceDecider(opts);
  }

  /** Serves one channel (normally exactly one per instance). */
  attach(channel: Duplex): void {
    const session = new MuxSession(channel, {
      role: 'host',
      maxStreams: this.opts.maxStreams ?? 128,
    });
    this.sessions.add(session);
    session.on('open', (stream: MuxStream, host: string, port: number) => {
      this.handle(session, stream, host, port).catch((e: Error) => {
        session.refuse(stream, FailCode.ConnectFailed, `internal error: ${e.message}`);
      });
    });
    session.on('limit', (host: string, port: number) =>
      this.audit(host, port, Date.now(), {
        allowed: false,
        reason: 'limit',
        message: 'too many connections at once',
      }),
    );
    session.on('violation', (m: string) => this.opts.onViolation?.(m));
    session.on('close', () => this.sessions.delete(session));
  }

  /** Closes every channel and connection of this instance and drops its pending grants. */
  close(): void {
    for (const s of this.sessions) s.close();
    this.opts.grants?.cancelInstance(this.opts.instanceId);
  }

  private async handle(
    session: MuxSession,
    stream: MuxStream,
    host: string,
    port: number,
  ): Promise<void> {
    const started = Date.now();
    const parsed = parseDestination(host, port);
    if (!parsed.ok) {
      const v: Verdict = {
        allowed: false,
        reason: 'bad-destination',
        message: `${host}:${port} ${parsed.error.message}`,
      };
      return this.refuse(session, stream, host, port, started, v);
    }
    const dest = parsed.value;
    const verdict = await this.decider.decide(dest);
    if (!verdict.allowed) return this.refuse(session, stream, dest.host, port, started, verdict);
    const resolved = await resolveDestination(
      dest,
      this.opts.rules,
      this.opts.resolve ?? [],
      this.lookup,
    );
    if (!resolved.ok) {
      const v: Verdict = {
        allowed: false,
        reason: resolved.reason,
        rule: verdict.rule,
        message: resolved.message,
      };
      return this.refuse(session, stream, dest.host, port, started, v, resolved.address);
    }
    const rule = resolved.rule ? `${verdict.rule}; ${resolved.rule}` : verdict.rule;
    let socket: net.Socket | undefined;
    let lastError = '';
    for (const ip of resolved.addresses.slice(0, 3)) {
      if (stream.destroyed) break;
      try {
        socket = await connectUpstream(formatIp(ip), port, this.opts.connectTimeoutMs ?? 10_000);
        break;
      } catch (e) {
        lastError = `${formatIp(ip)}: ${(e as Error).message}`;
      }
    }
    if (!socket) {
      const message = `cannot connect to ${dest.host}:${port} (${lastError || 'client gone'})`;
      return this.refuse(session, stream, dest.host, port, started, {
        allowed: false,
        reason: 'connect-failed',
        rule,
        message,
      });
    }
    const address = socket.remoteAddress;
    if (stream.destroyed) {
      socket.destroy();
      return this.audit(dest.host, port, started, { allowed: true, rule }, address, stream);
    }
    session.accept(stream);
    spliceUpstream(socket, stream);
    stream.on('close', () =>
      this.audit(dest.host, port, started, { allowed: true, rule }, address, stream),
    );
  }

  private refuse(
    session: MuxSession,
    stream: MuxStream,
    host: string,
    port: number,
    started: number,
    v: Verdict & { allowed: false },
    address?: string,
  ): void {
    session.refuse(stream, failCodes[v.reason], `warden: ${v.message}`);
    this.audit(host, port, started, v, address);
  }

  private audit(
    host: string,
    port: number,
    started: number,
    v: Verdict,
    address?: string,
    stream?: MuxStream,
  ): void {
    const e: EgressDecisionEvent = {
      kind: 'egress',
      instance: this.opts.instanceId,
      server: this.opts.server,
      host,
      port,
      decision: v.allowed ? 'allowed' : 'refused',
      bytesUp: stream?.bytesIn ?? 0,
      bytesDown: stream?.bytesOut ?? 0,
      durationMs: Date.now() - started,
      at: new Date(started).toISOString(),
    };
    if (address) e.address = address;
    if (v.rule) e.rule = v.rule;
    if (!v.allowed) {
      e.reason = v.reason;
      e.message = v.message;
    }
    try {
      this.opts.onDecision(e);
    } catch {
      // An audit sink that throws must not take the channel down; the sink reports its own errors.
    }
  }
}
