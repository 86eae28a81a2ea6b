/**
 * The host side of one instance's egress: reads its channel, decides each `host:port` (rules,
 * runtime grants, ask), resolves allowed names on the host, refuses private addresses that the
 * policy does not list, connects, and streams both ways with backpressure. Every attempt ends in
 * one audit event attributed to the instance that owns the channel.
 */
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressDecisionEvent, EgressReason } from '../../app/contract/grants';
import { formatIp } from '../../app/policy/network-address';
import {
  type CompiledRules,
  type Destination,
  type DestinationPattern,
  decideDestination,
  parseDestination,
  parsePattern,
  patternForDestination,
  patternMatches,
} from '../../app/policy/network-patterns';
import { FailCode } from '../sandbox-init/mux-frames';
import { MuxSession } from '../sandbox-init/mux-session';
import type { MuxStream } from '../sandbox-init/mux-stream';
import type { GrantInbox } from './grant-inbox';
import { limitedLookup } from './lookup-limiter';
import {
  type Lookup,
  type ResolveOverride,
  resolveDestination,
  systemLookup,
} from './resolve-destination';

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

type Verdict =
  | { allowed: true; rule: string }
  | { allowed: false; reason: EgressReason; rule?: string; message: string };

export class EgressBroker {
  private readonly sessions = new Set<MuxSession>();
  /** Runtime grants of this instance: allow/deny for its session, and "always" until restart. */
  private readonly sessionAllow: DestinationPattern[] = [];
  private readonly sessionDeny: DestinationPattern[] = [];

  private readonly lookup: Lookup;

  constructor(private readonly opts: BrokerOptions) {
    this.lookup = limitedLookup(opts.lookup ?? systemLookup);
  }

  /** Serves one channel (normally exactly one per instance). */
  attach(channel: Duplex): void {
    const session = new MuxSession(channel, {
      role: 'host',
      maxStreams: this.opts.maxStreams ?? 256,
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
    const verdict = await this.decide(dest);
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
        socket = await this.connect(formatIp(ip), port);
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
    this.splice(socket, stream);
    stream.on('close', () =>
      this.audit(dest.host, port, started, { allowed: true, rule }, address, stream),
    );
  }

  private async decide(dest: Destination): Promise<Verdict> {
    const denied = this.sessionDeny.find((p) => patternMatches(p, dest));
    if (denied)
      return {
        allowed: false,
        reason: 'denied',
        rule: `grant deny ${denied.text}`,
        message: `${dest.host}:${dest.port} was denied for this server`,
      };
    const v = decideDestination(this.opts.rules, dest, this.sessionAllow);
    const shown = `${dest.host}:${dest.port}`;
    if (v.verdict === 'allow') return { allowed: true, rule: v.rule };
    if (v.verdict === 'deny')
      return {
        allowed: false,
        reason: 'denied',
        rule: v.rule,
        message: `${shown} is refused by network.deny (${v.rule})`,
      };
    const pattern = patternForDestination(dest);
    if (this.opts.mode === 'allowlist' || !this.opts.grants) {
      return {
        allowed: false,
        reason: 'not-allowed',
        message: `${shown} is not in this server's network.allow; add it with --allow ${pattern}`,
      };
    }
    const answer = await this.opts.grants.request({
      server: this.opts.server,
      instance: this.opts.instanceId,
      host: dest.host,
      port: dest.port,
      pattern,
      timeoutMs: this.opts.askTimeoutMs,
    });
    const rule = `grant ${answer.outcome} ${answer.grantId ?? ''}`.trim();
    const remember = (list: DestinationPattern[]): void => {
      const p = parsePattern(pattern);
      if (p.ok) list.push(p.value);
    };
    switch (answer.outcome) {
      case 'allow-session':
      case 'allow-always':
        remember(this.sessionAllow);
        return { allowed: true, rule };
      case 'allow-once':
        return { allowed: true, rule };
      case 'deny-always':
        remember(this.sessionDeny);
        return {
          allowed: false,
          reason: 'denied',
          rule,
          message: `${shown} was denied (always) by the user`,
        };
      case 'deny':
        return {
          allowed: false,
          reason: 'denied',
          rule,
          message: `${shown} was denied by the user`,
        };
      case 'limit':
        return {
          allowed: false,
          reason: 'limit',
          message: `too many destinations are waiting for a decision`,
        };
      case 'timeout':
        return {
          allowed: false,
          reason: 'ask-timeout',
          rule,
          message: `no one allowed ${shown} within ${Math.round(this.opts.askTimeoutMs / 1000)} s (ask mode)`,
        };
      case 'cancelled':
        return {
          allowed: false,
          reason: 'denied',
          rule,
          message: `the instance ended before ${shown} was decided`,
        };
    }
  }

  private connect(host: string, port: number): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ host, port, allowHalfOpen: true });
      const timer = setTimeout(
        () => s.destroy(new Error('timed out')),
        this.opts.connectTimeoutMs ?? 10_000,
      );
      s.once('connect', () => {
        clearTimeout(timer);
        s.setNoDelay(true);
        resolve(s);
      });
      s.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  }

  private splice(socket: net.Socket, stream: MuxStream): void {
    socket.on('error', () => stream.destroy());
    stream.on('error', () => socket.destroy());
    socket.on('close', () => {
      if (!stream.readableEnded) stream.destroy();
    });
    stream.on('close', () => {
      if (stream.wasReset || !stream.writableFinished) socket.destroy();
    });
    socket.pipe(stream);
    stream.pipe(socket);
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
