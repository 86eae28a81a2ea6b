/**
 * Tool drift known to a core: a tool whose listed definition differs from its pin is hidden from
 * listings and refused on calls until the user accepts the change. The registry is what refuses
 * the calls (tool-gate.ts), so it follows the stored pins: a pin changed by anyone (this core,
 * another Warden process, config.json edited by hand) keeps the tool refused while the server's
 * definition still differs from it, and only a pin that now matches lets it through.
 */
import { canonicalJson } from '../../app/audit/canonical-json';
import type { ToolDrift } from '../../app/contract/tools';
import type { ToolDefinition } from '../../app/policy/policy-schema';

const definitionFields = ['description', 'inputSchema', 'annotations'] as const;

/** Which pinned fields differ between two definitions. */
export function driftFields(pinned: ToolDefinition, current: ToolDefinition): string[] {
  return definitionFields.filter((f) => canonicalJson(pinned[f]) !== canonicalJson(current[f]));
}

/** Drift known to the core, per server and tool, for the UI to review. */
export class DriftRegistry {
  private readonly drifts = new Map<string, ToolDrift>();
  private readonly listeners = new Set<() => void>();

  list(server?: string): ToolDrift[] {
    return [...this.drifts.values()].filter((d) => server === undefined || d.server === server);
  }
  get(server: string, tool: string): ToolDrift | undefined {
    return this.drifts.get(`${server}\u0000${tool}`);
  }
  set(drift: ToolDrift): void {
    this.drifts.set(`${drift.server}\u0000${drift.tool}`, drift);
    this.emit();
  }
  delete(server: string, tool: string): void {
    if (this.drifts.delete(`${server}\u0000${tool}`)) this.emit();
  }

  /**
   * The stored pins of `server` are now `pinned` (`undefined`: the server is gone). A drift whose
   * pin is gone, or now matches what the server offers, ends (as forgetting or accepting it
   * would); one whose pin changed to anything else stays, against the new pin. Listeners hear
   * only of a change.
   */
  followPins(server: string, pinned: Readonly<Record<string, ToolDefinition>> | undefined): void {
    let changed = false;
    for (const drift of this.list(server)) {
      const key = `${server}\u0000${drift.tool}`;
      const pin = pinned && Object.hasOwn(pinned, drift.tool) ? pinned[drift.tool] : undefined;
      if (pin && canonicalJson(pin) === canonicalJson(drift.pinned)) continue;
      const fields = pin ? driftFields(pin, drift.current) : [];
      if (pin && fields.length > 0) this.drifts.set(key, { ...drift, pinned: pin, fields });
      else this.drifts.delete(key);
      changed = true;
    }
    if (changed) this.emit();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  private emit(): void {
    for (const l of this.listeners) l();
  }
}
