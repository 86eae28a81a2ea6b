/**
 * Which pinned tools each server's whole listings leave out, and since when, as this core saw the
 * listings: the Tools tab marks them, so that forgetting the pin of a tool the server no longer
 * offers is an informed choice. Only a whole listing counts (no cursor asked, none answered): one
 * page of a paginated listing says nothing of the tools on the others. Listeners hear of a change
 * of the set only, however often a client lists. Kept in memory; after a restart the next listing
 * tells again.
 */
import type { ToolListing } from '../../app/contract/tools';

export class ToolListings {
  private readonly listings = new Map<string, ToolListing>();
  private readonly listeners = new Set<() => void>();

  list(): ToolListing[] {
    return [...this.listings.values()];
  }

  /** A whole listing of `server` left out the pinned tools `unlisted` (none: it left out none). */
  seen(server: string, unlisted: readonly string[], at = new Date()): void {
    const before = new Map(this.listings.get(server)?.unlisted.map((u) => [u.name, u.since]));
    const names = [...new Set(unlisted)].sort();
    if (names.length === before.size && names.every((n) => before.has(n))) return;
    const since = at.toISOString();
    this.put(
      server,
      names.map((name) => ({ name, since: before.get(name) ?? since })),
    );
  }

  /**
   * The stored pins of `server` are now `pinned` (`undefined`: the server is gone): a tool no
   * longer pinned is no longer a pinned tool left out.
   */
  followPins(server: string, pinned: Readonly<Record<string, unknown>> | undefined): void {
    const unlisted = this.listings.get(server)?.unlisted;
    const kept = unlisted?.filter((u) => pinned !== undefined && Object.hasOwn(pinned, u.name));
    if (unlisted && kept && kept.length < unlisted.length) this.put(server, kept);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private put(server: string, unlisted: ToolListing['unlisted']): void {
    if (unlisted.length === 0) this.listings.delete(server);
    else this.listings.set(server, { server, unlisted });
    for (const l of this.listeners) l();
  }
}
