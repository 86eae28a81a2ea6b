/**
 * Which pinned tools each server's last whole listing left out, as this core saw the listings:
 * the Tools tab marks them, so that forgetting the pin of a tool the server no longer offers is
 * an informed choice. Only a whole listing counts (no cursor asked, none answered): one page of
 * a paginated listing says nothing of the tools on the others. Kept in memory; the next listing
 * after a restart tells again.
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
    const had = this.listings.has(server);
    if (unlisted.length === 0) {
      if (had) this.listings.delete(server);
    } else {
      const names = [...new Set(unlisted)].sort();
      this.listings.set(server, { server, unlisted: names, seenAt: at.toISOString() });
    }
    if (had || unlisted.length > 0) this.emit();
  }

  /** The pin of `tool` is gone: it is no longer a pinned tool left out. */
  forget(server: string, tool: string): void {
    const listing = this.listings.get(server);
    if (!listing?.unlisted.includes(tool)) return;
    const unlisted = listing.unlisted.filter((n) => n !== tool);
    if (unlisted.length === 0) this.listings.delete(server);
    else this.listings.set(server, { ...listing, unlisted });
    this.emit();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}
