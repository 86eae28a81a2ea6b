import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { NetworkPolicy } from '../../app/policy/policy-schema';
import {
  type EgressRuntime,
  mergeEgressEnv,
  proxyEnv,
  startEgress,
} from '../../main/egress/start-egress';
import type { InstanceEgress } from '../../main/supervisor/sandbox-launcher';

const runtime: EgressRuntime = {
  nodePath: '/opt/MCP Warden/mcp-warden',
  initScript: '/opt/MCP Warden/resources/out/sandbox-init/init.cjs',
  preloadScript: '/opt/MCP Warden/resources/out/sandbox-init/fetch-preload.cjs',
  isElectron: true,
};
const base = { server: 'srv', instanceId: 'srv#1', runtime, onDecision: () => undefined };

describe('startEgress', () => {
  it('gives the launcher a wrapper, fd 3 and the proxy environment', () => {
    const network = { ...defaultPolicy().network, mode: 'allowlist' as const, allow: ['api.test'] };
    const r = startEgress({ ...base, network });
    if (!r.ok) throw new Error(r.error.message);
    const egress: InstanceEgress = r.value;
    expect(egress.context).toEqual({
      wrapper: {
        argv: [runtime.nodePath, runtime.initScript, '--port', '8877'],
        readOnlyBinds: ['/opt/MCP Warden/resources/out/sandbox-init', '/opt/MCP Warden'],
      },
      extraFds: 1,
    });
    expect(egress.env).toMatchObject({
      HTTP_PROXY: 'http://127.0.0.1:8877',
      HTTPS_PROXY: 'http://127.0.0.1:8877',
      ALL_PROXY: 'socks5h://127.0.0.1:8877',
      http_proxy: 'http://127.0.0.1:8877',
      https_proxy: 'http://127.0.0.1:8877',
      all_proxy: 'socks5h://127.0.0.1:8877',
      NO_PROXY: 'localhost,127.0.0.1,::1',
      no_proxy: 'localhost,127.0.0.1,::1',
      NODE_USE_ENV_PROXY: '1',
      WARDEN_SERVER_NODE_OPTIONS:
        '--require "/opt/MCP Warden/resources/out/sandbox-init/fetch-preload.cjs"',
      ELECTRON_RUN_AS_NODE: '1',
    });
    // The init starts with nothing loaded: the preload is for the server, which the init starts.
    expect(egress.env.NODE_OPTIONS).toBeUndefined();
  });

  it('leaves loopback to the sandbox unless the policy names the host’s', () => {
    const noProxy = (network: Partial<NetworkPolicy>) => {
      const r = startEgress({
        ...base,
        network: { ...defaultPolicy().network, mode: 'allowlist', ...network },
      });
      if (!r.ok) throw new Error(r.error.message);
      return [r.value.env.NO_PROXY, r.value.env.no_proxy];
    };
    const own = 'localhost,127.0.0.1,::1';
    expect(noProxy({ allow: ['api.test'] })).toEqual([own, own]);
    expect(noProxy({ mode: 'ask', allow: [] })).toEqual([own, own]);
    expect(noProxy({ allow: ['api.test'], allowAddresses: ['10.0.0.0/8'] })).toEqual([own, own]);
    // Named, every loopback request goes through the broker, which decides it.
    expect(noProxy({ allow: ['localhost:11434'] })).toEqual(['', '']);
    expect(noProxy({ allow: ['127.0.0.1', '[::1]'] })).toEqual(['', '']);
    expect(noProxy({ allow: ['loop.test'], allowAddresses: ['127.0.0.0/8'] })).toEqual(['', '']);
  });

  it('runs the compiled init where there is one: no Node for it, nothing of Electron', () => {
    const network = { ...defaultPolicy().network, mode: 'allowlist' as const, allow: ['api.test'] };
    const initProgram = '/opt/MCP Warden/resources/out/sandbox-init/warden-init';
    const r = startEgress({ ...base, runtime: { ...runtime, initProgram }, network });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.context).toEqual({
      wrapper: {
        argv: [initProgram, '--port', '8877'],
        readOnlyBinds: ['/opt/MCP Warden/resources/out/sandbox-init'],
      },
      extraFds: 1,
    });
    // The server's NODE_OPTIONS still wait aside: the init restores them as it becomes the server.
    expect(r.value.env.WARDEN_SERVER_NODE_OPTIONS).toBe(
      '--require "/opt/MCP Warden/resources/out/sandbox-init/fetch-preload.cjs"',
    );
    expect(r.value.env.ELECTRON_RUN_AS_NODE).toBeUndefined();
    expect(r.value.env.NODE_OPTIONS).toBeUndefined();
  });

  it('none mode: no init, no channel, no variables', () => {
    const r = startEgress({ ...base, network: defaultPolicy().network });
    expect(r.ok && r.value).toMatchObject({ context: { extraFds: 0 }, env: {} });
    expect(r.ok && r.value.context.wrapper).toBeUndefined();
  });

  it('fails closed on an invalid pattern, naming the field', () => {
    const network = { ...defaultPolicy().network, mode: 'ask' as const, deny: ['*'] };
    const r = startEgress({ ...base, network });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe('invalid-network-policy');
      expect(r.error.fields.map((f) => f.field)).toEqual(['network.deny[0]']);
    }
  });

  it('appends to a server NODE_OPTIONS instead of replacing it', () => {
    const env: Record<string, string> = {
      NODE_OPTIONS: '--max-old-space-size=512',
      PATH: '/usr/bin',
    };
    mergeEgressEnv(env, proxyEnv(8877, { preloadScript: '/x/fetch-preload.cjs' }));
    expect(env.NODE_OPTIONS).toBe('--max-old-space-size=512 --require /x/fetch-preload.cjs');
    expect(env.PATH).toBe('/usr/bin');
  });

  it('where an init runs first, keeps all of NODE_OPTIONS aside for the server', () => {
    const network = { ...defaultPolicy().network, mode: 'allowlist' as const };
    const r = startEgress({ ...base, network });
    if (!r.ok) throw new Error(r.error.message);
    const env: Record<string, string> = { NODE_OPTIONS: '--require ./own.js', PATH: '/usr/bin' };
    mergeEgressEnv(env, r.value.env);
    expect(env.NODE_OPTIONS).toBeUndefined();
    expect(env.WARDEN_SERVER_NODE_OPTIONS).toBe(
      '--require ./own.js --require "/opt/MCP Warden/resources/out/sandbox-init/fetch-preload.cjs"',
    );
  });
});
