/**
 * The host side of one instance's egress: the proxy inside the sandbox asks it to dial each
 * `host:port`; it decides (rules, runtime grants, ask), resolves allowed names on the host,
 * refuses private addresses that the policy does not list, and connects. Every attempt ends in
 * one audit event attributed to the instance whose proxy asked, with the bytes each way.
 */
import type net from 'node:net';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { formatIp } from '../../app/policy/network-address';
import { type CompiledRules, parseDestination } from '../../app/policy/network-patterns';
import type { GrantRequests } from './grant-inbox';
import { InstanceDecider, type Verdict } from './instance-decider';
import { limitedLookup } from './lookup-limiter';
import type { DialClient, Dialed } from './refusal';
import {
  type Lookup,
  type ResolveOverride,
  resolveDestination,
  systemLookup,
  warmSystemLookup,
} from './resolve-destination';
import { ReadBufferBudget, connectUpstream } from './upstream';

export interface BrokerOptions {
  server: string;
  instanceId: string;
  mode: 'allowlist' | 'ask';
  rules: CompiledRules;
  askTimeoutMs: number;
  grants?: GrantRequests;
  resolve?: readonly ResolveOverride[];
  lookup?: Lookup;
  onDecision: (e: EgressDecisionEvent) => void;
  /** The channel broke the protocol and was closed (this instance only). */
  onViolation?: (message: string) => void;
  connectTimeoutMs?: number;
  maxStreams?: number;
}

export class EgressBroker {
  private readonly decider: InstanceDecider;
  private readonly lookup: Lookup;
  private readonly budget = new ReadBufferBudget();
  /** Client connections being decided or open; more than `maxStreams` are refused at once. */
  private readonly clients = new Set<DialClient>();
  private closed = false;
  /** Dials whose one audit event is not out yet (an allowed connection's comes when it ends). */
  private unrecorded = 0;
  private recorded: (() => void)[] = [];

  constructor(private readonly opts: BrokerOptions) {
    if (opts.lookup === undefined) warmSystemLookup();
    this.lookup = limitedLookup(opts.lookup ?? systemLookup);
    this.decider = new InstanceDecider(opts);
  }

  /** Decides and connects one client connection of this instance (the proxy's `Dial`). */
  dial = async (
    host: string,
    port: number,
    client: DialClient,
    options: { relay?: boolean } = {},
  ): Promise<Dialed> => {
    const started = Date.now();
    this.unrecorded++;
    if (this.closed || this.clients.size >= (this.opts.maxStreams ?? 128)) {
      const v = {
        allowed: false,
        reason: 'limit',
        message: 'too many connections at once',
      } as const;
      return this.refuse(host, port, started, v);
    }
    this.clients.add(client);
    client.once('close', () => this.clients.delete(client));
    try {
      return await this.decideAndConnect(host, port, client, started, options.relay === true);
    } catch (e) {
      const message = `internal error: ${(e as Error).message}`;
      return this.refuse(host, port, started, {
        allowed: false,
        reason: 'connect-failed',
        message,
      });
    }
  };

  /**
   * Ends every connection of this instance and drops its pending grants. Resolves once each
   * connection's audit event is out (an ended connection's comes as its socket closes), so that the
   * instance's exit is recorded after them; a dial still resolving or connecting is waited for
   * `graceMs` at most, and its event follows when it ends.
   */
  close(graceMs = 1000): Promise<void> {
    this.closed = true;
    for (const c of this.clients) c.destroy();
    this.opts.grants?.cancelInstance(this.opts.instanceId);
    if (this.unrecorded === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      timer.unref();
      this.recorded.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private async decideAndConnect(
    host: string,
    port: number,
    client: DialClient,
    started: number,
    forRelay: boolean,
  ): Promise<Dialed> {
    const parsed = parseDestination(host, port);
    if (!parsed.ok) {
      const v: Verdict = {
        allowed: false,
        reason: 'bad-destination',
        message: `${host}:${port} ${parsed.error.message}`,
      };
      return this.refuse(host, port, started, v);
    }
    const dest = parsed.value;
    const verdict = await this.decider.decide(dest);
    if (!verdict.allowed) return this.refuse(dest.host, port, started, verdict);
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
      return this.refuse(dest.host, port, started, v, resolved.address);
    }
    const rule = resolved.rule ? `${verdict.rule}; ${resolved.rule}` : verdict.rule;
    let socket: net.Socket | undefined;
    let lastError = '';
    for (const ip of resolved.addresses.slice(0, 3)) {
      if (client.destroyed) break;
      try {
        const timeout = this.opts.connectTimeoutMs ?? 10_000;
        socket = await connectUpstream(
          formatIp(ip),
          port,
          timeout,
          forRelay ? this.budget : undefined,
        );
        break;
      } catch (e) {
        lastError = `${formatIp(ip)}: ${(e as Error).message}`;
      }
    }
    if (!socket) {
      const message = `cannot connect to ${dest.host}:${port} (${lastError || 'client gone'})`;
      return this.refuse(dest.host, port, started, {
        allowed: false,
        reason: 'connect-failed',
        rule,
        message,
      });
    }
    const opened = socket;
    const address = opened.remoteAddress;
    const done = () =>
      this.audit(dest.host, port, started, { allowed: true, rule }, address, opened);
    if (client.destroyed) {
      opened.destroy();
      done();
      return { ok: false, refusal: { reason: 'connect-failed', message: 'client gone' } };
    }
    client.once('close', () => opened.destroy());
    opened.once('close', done);
    return { ok: true, socket: opened };
  }

  private refuse(
    host: string,
    port: number,
    started: number,
    v: Verdict & { allowed: false },
    address?: string,
  ): Dialed {
    this.audit(host, port, started, v, address);
    return { ok: false, refusal: { reason: v.reason, message: v.message } };
  }

  private audit(
    host: string,
    port: number,
    started: number,
    v: Verdict,
    address?: string,
    socket?: net.Socket,
  ): void {
    const e: EgressDecisionEvent = {
      kind: 'egress',
      instance: this.opts.instanceId,
      server: this.opts.server,
      host,
      port,
      decision: v.allowed ? 'allowed' : 'refused',
      bytesUp: socket?.bytesWritten ?? 0,
      bytesDown: socket?.bytesRead ?? 0,
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
      // An audit sink that throws must not take the egress down; the sink reports its own errors.
    }
    if (--this.unrecorded === 0) for (const resolve of this.recorded.splice(0)) resolve();
  }
}
