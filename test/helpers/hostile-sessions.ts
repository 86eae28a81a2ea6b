/**
 * Sessions of the hostile JSON-RPC fixture server through a real Supervisor, relay and tool gate
 * (plain child processes, no sandbox), with a raw client side that records every message in the
 * order it arrived.
 */
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Server, ToolDefinition } from '../../app/policy/policy-schema';
import { ApprovalInbox } from '../../main/gateway/approval-inbox';
import type { CallGuards } from '../../main/gateway/call-guards';
import type { ToolGate } from '../../main/gateway/relay';
import { createToolGate } from '../../main/gateway/tool-gate';
import { DriftRegistry } from '../../main/gateway/tool-drift';
import type { InstanceSession } from '../../main/supervisor/instance-session';
import type { InstanceLauncher } from '../../main/supervisor/launcher';
import { Supervisor } from '../../main/supervisor/supervisor';
import { plainLauncher } from './plain-launcher';

export const hostileScript = join(import.meta.dirname, '../fixtures/hostile-jsonrpc-server.mjs');

export interface HostileOptions {
  dir: string;
  env?: Record<string, string>;
  maxMessageBytes?: number;
  /** Replaces the gate of the instances (e.g. one that throws). */
  gate?: (real: ToolGate) => ToolGate;
  /** The call guards the real gate applies (credential scans and the like); none by default. */
  guards?: CallGuards;
  /** Launches the instances instead of plain child processes (e.g. the sandbox launcher). */
  launcher?: InstanceLauncher;
}

export interface RawSession {
  session: InstanceSession;
  seen: JSONRPCMessage[];
  /** Sends a request and resolves with its answer (result or error). */
  request(method: string, params?: Record<string, unknown>): Promise<JSONRPCMessage>;
  call(behaviour: string, args?: Record<string, unknown>): Promise<JSONRPCMessage>;
  send(message: JSONRPCMessage): Promise<void>;
  close(): Promise<void>;
}

/** A confirmed server named `hostile` that runs `script` with this Node, under the default policy. */
export function hostileServer(script = hostileScript): Server {
  return {
    name: 'hostile',
    launch: { command: process.execPath, args: [script] },
    policy: defaultPolicy(),
    revision: 1,
    createdAt: '',
    updatedAt: '',
    acknowledged: true,
  };
}

export function hostileSetup(o: HostileOptions) {
  const server = hostileServer();
  const events: AuditEventInput[] = [];
  const audit = (e: AuditEventInput) => void events.push(e);
  const approvals = new ApprovalInbox(audit);
  const drift = new DriftRegistry();
  const launcher = plainLauncher(o.env ?? {});
  const supervisor = new Supervisor({
    getServer: () => server,
    launcher: o.launcher ?? launcher,
    instancesDir: o.dir,
    audit,
    redact: () => (v: unknown) => v,
    maxMessageBytes: o.maxMessageBytes,
    gate: (name, instance) => {
      const real = createToolGate({
        server: name,
        instance,
        policy: () => server.policy.tools,
        pin: async (defs: Record<string, ToolDefinition>) => {
          // Pinning writes the config file in the core: it takes a while.
          await new Promise((resolve) => setTimeout(resolve, 20));
          Object.assign(server.policy.tools.pinned, defs);
        },
        drift,
        approvals,
        audit,
        redact: (v) => v,
        ...(o.guards ? { guards: o.guards } : {}),
      });
      return o.gate ? o.gate(real) : real;
    },
  });

  const open = async (): Promise<RawSession> => {
    const [clientSide, sessionSide] = InMemoryTransport.createLinkedPair();
    const seen: JSONRPCMessage[] = [];
    const waiters = new Map<string | number, (m: JSONRPCMessage) => void>();
    clientSide.onmessage = (m) => {
      seen.push(m);
      if ('id' in m && !('method' in m) && m.id !== undefined) waiters.get(m.id)?.(m);
    };
    await clientSide.start();
    const session = await supervisor.open('hostile', sessionSide, 'test');
    let next = 0;
    const request = (method: string, params: Record<string, unknown> = {}) => {
      const id = ++next;
      const answered = new Promise<JSONRPCMessage>((resolve) => waiters.set(id, resolve));
      void clientSide.send({ jsonrpc: '2.0', id, method, params });
      return answered;
    };
    await request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return {
      session,
      seen,
      request,
      call: (behaviour, args = {}) =>
        request('tools/call', { name: 'behave', arguments: { behaviour, ...args } }),
      send: (m) => clientSide.send(m),
      close: () => clientSide.close(),
    };
  };
  return { server, events, supervisor, launcher, open };
}

/** The text of the first content block of a tools/call answer, or its error message. */
export function answerText(m: JSONRPCMessage): string {
  if ('error' in m) return `error ${m.error.code}: ${m.error.message}`;
  if ('result' in m) {
    const content = (m.result as { content?: { text?: string }[] }).content;
    return content?.[0]?.text ?? JSON.stringify(m.result);
  }
  return JSON.stringify(m);
}
