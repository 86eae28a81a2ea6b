/** What `warden doctor` reports about this host, and config files the core had to set aside. */
import type { StateCreator } from 'zustand';
import type { WardenApi } from '../../../../app/contract/api';
import type { ContractError } from '../../../../app/contract/contract-error';
import type { DoctorReport, RootCheck } from '../../../../app/contract/doctor';
import { type GatewayStatus, gatewayStatusSchema } from '../../../../app/contract/gateway';
import type { ConfigProblem } from '../../../../app/contract/servers';
import type { Root } from '../root-store';
import { toContractError } from '../servers/servers-slice';

export interface HostSlice {
  doctor: DoctorReport | undefined;
  doctorError: ContractError | undefined;
  doctorLoading: boolean;
  configProblems: ConfigProblem[];
  /** Whether the MCP gateway holds its port; another program on it is shown in red. */
  gatewayStatus: GatewayStatus;
  /** Filesystem roots as this host's sandbox would find them at launch, by declared path. */
  rootChecks: Record<string, RootCheck>;
  /** A verification run (real escape probes in the backend) is under way. */
  verifying: boolean;
  verifyError: ContractError | undefined;
  loadDoctor: () => Promise<void>;
  /** Runs the escape probes now; the result lands in `doctor.verifications`. */
  verifyNow: () => Promise<void>;
  checkRoots: (paths: readonly string[]) => Promise<void>;
  loadConfigProblems: () => Promise<void>;
  loadGatewayStatus: () => Promise<void>;
  configProblemAdded: (problem: ConfigProblem) => void;
}

export const createHostSlice =
  (api: WardenApi): StateCreator<Root, [], [], HostSlice> =>
  (set) => ({
    doctor: undefined,
    doctorError: undefined,
    doctorLoading: false,
    verifying: false,
    verifyError: undefined,
    configProblems: [],
    gatewayStatus: { kind: 'off' },
    rootChecks: {},
    checkRoots: async (paths) => {
      if (paths.length === 0) return;
      try {
        const checks = await api['host.checkRoots']({ paths: [...paths] });
        set((s) => ({
          rootChecks: { ...s.rootChecks, ...Object.fromEntries(checks.map((c) => [c.path, c])) },
        }));
      } catch {
        /* unchecked: the launch still checks, and says so beside the folder */
      }
    },
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
    verifyNow: async () => {
      set({ verifying: true, verifyError: undefined });
      try {
        const result = await api['host.verify']({});
        set((s) => ({
          doctor: s.doctor && {
            ...s.doctor,
            verifications: [
              ...(s.doctor.verifications ?? []).filter((v) => v.backend !== result.backend),
              result,
            ],
          },
        }));
      } catch (error) {
        set({ verifyError: toContractError(error) });
      } finally {
        set({ verifying: false });
      }
    },
    loadConfigProblems: async () => {
      try {
        set({ configProblems: await api['config.problems']({}) });
      } catch {
        /* kept as it was */
      }
    },
    loadGatewayStatus: async () => {
      try {
        const status = gatewayStatusSchema.safeParse(await api['gateway.status']({}));
        if (status.success) set({ gatewayStatus: status.data });
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
  gateway: (s: Root) => s.gatewayStatus,
  rootChecks: (s: Root) => s.rootChecks,
  verifying: (s: Root) => s.verifying,
  verifyError: (s: Root) => s.verifyError,
};
