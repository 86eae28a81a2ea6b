/**
 * Chooses the Linux backend. bubblewrap when it can create its namespaces; otherwise Landlock,
 * which gives less (landlock-gaps.ts) but still fails closed; otherwise bubblewrap's refusal, with
 * its remedy and Landlock's. WARDEN_SANDBOX_BACKEND=bwrap|landlock forces one (tests run the
 * escape suite under each; a forced backend that cannot run refuses, it never switches).
 */
import type { DoctorReport } from '../../../../app/contract/doctor';
import type { SandboxBackend } from '../../backend';
import type { HiddenPathsCache } from '../../hidden-paths-cache';
import { bwrapBackend } from '../bwrap-backend';
import { type LinuxHostFacts, sandboxUsable } from '../host-facts';
import { linuxDoctorReport } from '../linux-doctor';
import { DEFAULT_BWRAP, probeLinuxHost } from '../probe';
import { cachedHostFacts } from '../probe-cache';
import type { LinuxBackendChoice } from './backend-choice';
import { landlockBackend } from './landlock-backend';
import { landlockDoctorReport } from './landlock-doctor';
import { type LandlockFacts, probeLandlock } from './landlock-probe';

export { type LinuxBackendChoice, backendChoice } from './backend-choice';

export interface LinuxBackendOptions {
  choice?: LinuxBackendChoice;
  bwrapPath?: string;
  protectedPaths?: readonly string[];
  /** Records of earlier hidden-path searches, shared by every launch of this backend. */
  hiddenCache?: HiddenPathsCache;
  /** Simulated host facts and Landlock facts (tests). */
  facts?: LinuxHostFacts;
  landlock?: LandlockFacts;
}

/** The bubblewrap failure that made Landlock the choice, in one line. */
function bwrapFailure(facts: LinuxHostFacts): string {
  const failing = [facts.bwrap, facts.userns, facts.seccomp].find((c) => !c.ok);
  return failing && !failing.ok
    ? `bubblewrap cannot sandbox here: ${failing.detail}. Remedy: ${failing.remedy}`
    : 'bubblewrap cannot sandbox here';
}

/** The Linux backend for `options.choice` (default auto). */
export function linuxBackend(options: LinuxBackendOptions = {}): SandboxBackend {
  const bwrapPath = options.bwrapPath ?? DEFAULT_BWRAP;
  const protectedPaths = options.protectedPaths ?? [];
  let hostFacts: Promise<LinuxHostFacts> | undefined = options.facts
    ? Promise.resolve(options.facts)
    : undefined;
  const host = () => (hostFacts ??= cachedHostFacts(bwrapPath, probeLinuxHost));
  let llFacts: Promise<LandlockFacts> | undefined = options.landlock
    ? Promise.resolve(options.landlock)
    : undefined;
  const landlock = () => (llFacts ??= probeLandlock());
  const bwrap = bwrapBackend({
    bwrapPath,
    protectedPaths,
    ...(options.facts ? { facts: options.facts } : { host }),
    hiddenCache: options.hiddenCache,
  });
  const ll = landlockBackend({ landlock, host, protectedPaths, hiddenCache: options.hiddenCache });
  if (options.choice === 'bwrap') return bwrap;
  if (options.choice === 'landlock') return ll;

  let chosen: SandboxBackend | undefined;
  const choose = async (): Promise<SandboxBackend> => {
    if (chosen) return chosen;
    const facts = await host();
    if (sandboxUsable(facts)) return (chosen = bwrap);
    const l = await landlock();
    chosen = l.ok ? ll : bwrap;
    return chosen;
  };
  return {
    get name() {
      return chosen?.name ?? 'bwrap';
    },
    resolve: choose,
    async probe(): Promise<DoctorReport> {
      if (!options.facts) hostFacts = probeLinuxHost(bwrapPath);
      if (!options.landlock) llFacts = probeLandlock();
      chosen = undefined;
      const facts = await host();
      if (sandboxUsable(facts)) return linuxDoctorReport(facts);
      const l = await landlock();
      if (!l.ok) {
        // Neither works: bubblewrap's report, with Landlock's reason beside its checks.
        const report = linuxDoctorReport(facts);
        report.checks.push({
          id: 'landlock',
          label: 'Landlock (fallback)',
          status: 'missing',
          detail: l.detail,
          remedy: l.remedy,
        });
        return report;
      }
      chosen = ll;
      return landlockDoctorReport(l, facts, bwrapFailure(facts));
    },
    checkRoot: async (path) => (await choose()).checkRoot(path),
    compile: async (policy, launch, ctx) => (await choose()).compile(policy, launch, ctx),
  };
}
