/**
 * Egress for `warden exec`: the broker for one command, refusals printed on stderr as they happen
 * (repeats and floods coalesced, see refusal-lines.ts), and in `ask` mode the questions asked on
 * the controlling terminal (or, without one, refused at the timeout with the reason printed).
 * `exec` has no saved policy, so "always" acts for this run and says which flag makes it permanent.
 */
import { showUntrusted } from '../../app/text/untrusted-text';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import type { Policy } from '../../app/policy/policy-schema';
import type { Result } from '../../app/result';
import { GrantInbox } from './grant-inbox';
import { startHostPortEgress } from './host-port-egress';
import { refusalLines } from './refusal-lines';
import type { ResolveOverride } from './resolve-destination';
import {
  type Egress,
  type EgressRuntime,
  type EgressSetupError,
  startEgress,
} from './start-egress';
import { type PromptIo, attachTerminalPrompt, openControllingTerminal } from './terminal-prompt';

export interface ExecEgressOptions {
  policy: Policy;
  runtime: EgressRuntime;
  resolve?: readonly ResolveOverride[];
  /** Where messages go (the CLI's stderr). */
  stderr: (text: string) => void;
  /** The terminal to ask on; default: the controlling terminal, if there is one. */
  terminal?: () => Promise<PromptIo | undefined>;
  server?: string;
  /** Run the proxy in Warden on a host loopback port (macOS) instead of the in-sandbox init. */
  hostPort?: boolean;
}

export interface ExecEgress {
  egress: Egress;
  /** Stops asking and closes every connection. */
  stop(): Promise<void>;
}

/** Prepares egress for one `warden exec` run. */
export async function prepareExecEgress(
  o: ExecEgressOptions,
): Promise<Result<ExecEgress, EgressSetupError>> {
  const server = o.server ?? 'exec';
  const write = (text: string): void => o.stderr(text);
  const inbox = new GrantInbox({
    persistRule: (_server, rule) =>
      write(
        `warden: exec has no saved policy; pass --${rule.list} ${showUntrusted(rule.pattern)} to make this permanent\n`,
      ),
  });
  const refusals = refusalLines({ write });
  const options = {
    network: o.policy.network,
    server,
    instanceId: `${server}#${process.pid}`,
    runtime: o.runtime,
    grants: inbox,
    ...(o.resolve ? { resolve: o.resolve } : {}),
    onDecision: (e: EgressDecisionEvent) => refusals.decided(e),
    onProblem: (m: string) => write(`warden: egress: ${m}\n`),
  };
  const started = o.hostPort ? await startHostPortEgress(options) : startEgress(options);
  if (!started.ok) {
    refusals.stop();
    return started;
  }
  let detach = (): void => undefined;
  if (o.policy.network.mode === 'ask') {
    const io = await (o.terminal ?? openControllingTerminal)();
    detach = attachTerminalPrompt(inbox, io, { write });
  }
  const egress = started.value;
  return {
    ok: true,
    value: {
      egress,
      stop: async () => {
        detach();
        await egress.close();
        refusals.stop();
      },
    },
  };
}
