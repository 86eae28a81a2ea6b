/**
 * The parent policy: the global part (the guards every server inherits) and the managed layer
 * above it, read from the core. Controls elsewhere ask `parentPolicySelectors.layers` what the
 * layers forbid, so that they show locked with the rule before anyone tries.
 */
import type { StateCreator } from 'zustand';
import type { WardenApi } from '../../../../app/contract/api';
import type { ContractError } from '../../../../app/contract/contract-error';
import type { PolicyView } from '../../../../app/contract/policy';
import type { Guards } from '../../../../app/policy/guards';
import type { GuardLayers } from '../../../../app/policy/managed-rules';
import { type Result, err, ok } from '../../../../app/result';
import type { Root } from '../root-store';
import { toContractError } from '../servers/servers-slice';

export interface ParentPolicySlice {
  parentPolicy: PolicyView | undefined;
  parentPolicyError: ContractError | undefined;
  loadParentPolicy: () => Promise<void>;
  /** Replaces the global part; the core validates it with the guards schema. */
  saveParentPolicy: (guards: Guards) => Promise<Result<PolicyView, ContractError>>;
}

export const createParentPolicySlice =
  (api: WardenApi): StateCreator<Root, [], [], ParentPolicySlice> =>
  (set) => ({
    parentPolicy: undefined,
    parentPolicyError: undefined,
    loadParentPolicy: async () => {
      try {
        set({ parentPolicy: await api['policy.get']({}), parentPolicyError: undefined });
      } catch (error) {
        set({ parentPolicyError: toContractError(error) });
      }
    },
    saveParentPolicy: async (guards) => {
      try {
        const view = await api['policy.update'](guards);
        set({ parentPolicy: view, parentPolicyError: undefined });
        return ok(view);
      } catch (error) {
        return err(toContractError(error));
      }
    },
  });

const NO_LAYERS: GuardLayers = { global: undefined, managed: undefined };
let lastView: PolicyView | undefined;
let lastLayers: GuardLayers = NO_LAYERS;

/** The layers as the rule checks take them (one object per loaded view, for stable renders). */
function layersOf(view: PolicyView | undefined): GuardLayers {
  if (view !== lastView) {
    lastView = view;
    lastLayers = view
      ? { global: view.stored ?? undefined, managed: view.managed.policy ?? undefined }
      : NO_LAYERS;
  }
  return lastLayers;
}

export const parentPolicySelectors = {
  view: (s: Root) => s.parentPolicy,
  error: (s: Root) => s.parentPolicyError,
  layers: (s: Root) => layersOf(s.parentPolicy),
  /** Why the managed file cannot be used (every launch is refused meanwhile), if it cannot. */
  managedProblem: (s: Root) => s.parentPolicy?.managed.error,
};
