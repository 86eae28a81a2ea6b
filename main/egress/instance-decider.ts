/**
 * What one instance's egress decides for a destination: first what the user denied for good
 * during this instance, then the policy's rules (deny wins) and session grants, then, for an
 * unknown destination, `allowlist` refuses and `ask` holds it in the grant inbox.
 */
import type { EgressReason } from '../../app/contract/grants';
import {
  type CompiledRules,
  type Destination,
  type DestinationPattern,
  decideDestination,
  parsePattern,
  patternForDestination,
  patternMatches,
} from '../../app/policy/network-patterns';
import type { GrantRequests } from './grant-inbox';

export type Verdict =
  | { allowed: true; rule: string }
  | { allowed: false; reason: EgressReason; rule?: string; message: string };

export interface DeciderOptions {
  server: string;
  instanceId: string;
  mode: 'allowlist' | 'ask';
  rules: CompiledRules;
  askTimeoutMs: number;
  grants?: GrantRequests;
}

export class InstanceDecider {
  /** Runtime grants of this instance: allow/deny for its session, and "always" until restart. */
  private readonly sessionAllow: DestinationPattern[] = [];
  private readonly sessionDeny: DestinationPattern[] = [];

  constructor(private readonly opts: DeciderOptions) {}

  async decide(dest: Destination): Promise<Verdict> {
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
        message: v.rule.startsWith('deny ')
          ? `${shown} is refused by network.deny (${v.rule})`
          : `${shown} is outside the allowlist of the ${v.rule.split(' ')[0]} policy (${v.rule})`,
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
}
