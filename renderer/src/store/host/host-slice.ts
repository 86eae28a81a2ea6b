/** What `warden doctor` reports about this host, and config files the core had to set aside. */
import type { StateCreator } from 'zustand';
import type { WardenApi } from '../../../../app/contract/api';
import type { ContractError } from '../../../../app/contract/contract-error';
import type { DoctorReport } from '../../../../app/contract/doctor';
import type { ConfigProblem } from '../../../../app/contract/servers';
import type { Root } from '../root-store';
import { toContractError } from '../servers/servers-slice';

export interface HostSlice {
  doctor: DoctorReport | undefined;
  doctorError: ContractError | undefined;
  doctorLoading: boolean;
  configProblems: ConfigProblem[];
  loadDoctor: () => Promise<void>;
  loadConfigProblems: () => Promise<void>;
  configProblemAdded: (problem: ConfigProblem) => void;
}

export const createHostSlice =
  (api: WardenApi): StateCreator<Root, [], [], HostSlice> =>
  (set) => ({
    doctor: undefined,
    doctorError: undefined,
    doctorLoading: false,
    configProblems: [],
    loadDoctor: async () => {
      set({ doctorLoading: true });
      try {
        set({ doctor: await api['host.doctor']({}), doctorError: undefined });
      } catch (error) {
        set({ doctorError: toContractError(error) });
      } finally {
        set({ doctorLoading: false });
      }
    },
    loadConfigProblems: async () => {
      try {
        set({ configProblems: await api['config.problems']({}) });
      } catch {
        /* kept as it was */
      }
    },
    configProblemAdded: (problem) =>
      set((s) => ({ configProblems: [...s.configProblems, problem] })),
  });

export const hostSelectors = {
  doctor: (s: Root) => s.doctor,
  error: (s: Root) => s.doctorError,
  loading: (s: Root) => s.doctorLoading,
  problems: (s: Root) => s.configProblems,
};
