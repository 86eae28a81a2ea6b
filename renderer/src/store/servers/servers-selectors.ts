/** Reads of the servers slice. Derived arrays must be read with `useShallow`. */
import type { ServerView } from '../../../../app/contract/servers';
import type { Root } from '../root-store';

const byName = (a: ServerView, b: ServerView) => a.server.name.localeCompare(b.server.name);

export const serversSelectors = {
  /** Server names in display order (a new array: read with useShallow). */
  names: (s: Root): string[] => [...s.servers].sort(byName).map((v) => v.server.name),
  /** One server's view, or undefined. */
  byName:
    (name: string) =>
    (s: Root): ServerView | undefined =>
      s.servers.find((v) => v.server.name === name),
  count: (s: Root) => s.servers.length,
  loaded: (s: Root) => s.serversLoaded,
  error: (s: Root) => s.serversError,
};
