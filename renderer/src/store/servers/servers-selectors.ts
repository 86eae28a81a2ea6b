/** Reads of the servers slice. Derived arrays must be read with `useShallow`. */
import type { ServerView } from '../../../../app/contract/servers';
import type { Root } from '../root-store';

const byName = (a: ServerView, b: ServerView) => a.server.name.localeCompare(b.server.name);

// Every row reads its server on every store change (a live audit batch is one); indexing the list
// once per list keeps that O(1) per row instead of a scan, and the sort out of the hot path.
const indexes = new WeakMap<readonly ServerView[], Map<string, ServerView>>();
const sortedNames = new WeakMap<readonly ServerView[], string[]>();

function indexOf(list: readonly ServerView[]): Map<string, ServerView> {
  let index = indexes.get(list);
  if (!index) {
    index = new Map(list.map((v) => [v.server.name, v]));
    indexes.set(list, index);
  }
  return index;
}

export const serversSelectors = {
  /** Server names in display order; the same array while the list is unchanged. */
  names: (s: Root): string[] => {
    let names = sortedNames.get(s.servers);
    if (!names) {
      names = [...s.servers].sort(byName).map((v) => v.server.name);
      sortedNames.set(s.servers, names);
    }
    return names;
  },
  /** One server's view, or undefined. */
  byName:
    (name: string) =>
    (s: Root): ServerView | undefined =>
      indexOf(s.servers).get(name),
  count: (s: Root) => s.servers.length,
  loaded: (s: Root) => s.serversLoaded,
  error: (s: Root) => s.serversError,
};
