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
  /** The core says the global part changed (here, in another window, the CLI or the file). */
  parentPolicyChanged: (view: PolicyView) => void;
  /**
   * Replaces the global part; the core validates it with the guards schema and, given the
   * revision the edit started from, refuses it as a conflict once another change replaced that.
   * Field errors name the guards' own paths (`limits.memoryMb`).
   */
  saveParentPolicy: (
    guards: Guards,
    expectedRevision?: string,
  ) => Promise<Result<PolicyView, ContractError>>;
}

/** The contract names a field of the update's `guards`; the form names the guards' own. */
function guardsFields(error: ContractError): ContractError {
  if (!error.fields) return error;
  const fields = error.fields.map((f) => ({ ...f, field: f.field.replace(/^guards\./, '') }));
  return { ...error, fields };
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
    parentPolicyChanged: (view) => set({ parentPolicy: view, parentPolicyError: undefined }),
    saveParentPolicy: async (guards, expectedRevision) => {
      try {
        const view = await api['policy.update']({
          guards,
          ...(expectedRevision !== undefined ? { expectedRevision } : {}),
        });
        set({ parentPolicy: view, parentPolicyError: undefined });
        return ok(view);
      } catch (error) {
        return err(guardsFields(toContractError(error)));
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
