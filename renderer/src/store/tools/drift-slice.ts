/**
 * Tools whose definition changed since it was pinned: hidden until the user reviews them; pinned
 * tools a server's whole listings leave out; and a pinned definition forgotten, to be pinned anew
 * at the next listing.
 */
import type { StateCreator } from 'zustand';
import type { WardenApi } from '../../../../app/contract/api';
import type { ContractError } from '../../../../app/contract/contract-error';
import type { ToolDrift, ToolListing } from '../../../../app/contract/tools';
import type { Result } from '../../../../app/result';
import type { Root } from '../root-store';
import { attempt, quietly } from '../servers/servers-slice';

export interface DriftSlice {
  drift: ToolDrift[];
  loadDrift: () => Promise<void>;
  driftChanged: (list: ToolDrift[]) => void;
  listings: ToolListing[];
  loadListings: () => Promise<void>;
  listingsChanged: (list: ToolListing[]) => void;
  /** Accept pins the definition reviewed (`drift.current` as shown), nothing sent since. */
  decideDrift: (
    drift: ToolDrift,
    decision: 'accept' | 'keep-blocked',
  ) => Promise<Result<boolean, ContractError>>;
  /** Forgets a tool's pinned definition; false when none was pinned. */
  forgetTool: (server: string, tool: string) => Promise<Result<boolean, ContractError>>;
}

export const createDriftSlice =
  (api: WardenApi): StateCreator<Root, [], [], DriftSlice> =>
  (set) => ({
    drift: [],
    loadDrift: () => quietly(async () => set({ drift: await api['drift.list']({}) })),
    driftChanged: (drift) => set({ drift }),
    listings: [],
    loadListings: () => quietly(async () => set({ listings: await api['tools.listings']({}) })),
    listingsChanged: (listings) => set({ listings }),
    decideDrift: ({ server, tool, current }, decision) =>
      attempt(
        async () =>
          (
            await api['drift.decide'](
              decision === 'accept'
                ? { server, tool, decision, reviewed: current }
                : { server, tool, decision },
            )
          ).decided,
      ),
    forgetTool: (server, tool) =>
      attempt(async () => (await api['tools.forget']({ server, tool })).forgotten),
  });

export const driftSelectors = {
  /** Drift of one server (a new array: read with useShallow). */
  of: (server: string) => (s: Root) => s.drift.filter((d) => d.server === server),
  /** The pinned tools the whole listings of `server` leave out, each with since when. */
  listingOf: (server: string) => (s: Root) => s.listings.find((l) => l.server === server),
};
