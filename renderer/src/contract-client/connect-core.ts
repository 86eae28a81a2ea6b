/**
 * Picks the one contract client the renderer uses: the Electron preload's `window.warden` when
 * present, otherwise the WebSocket transport of web mode.
 */
import { type ContractTransport, type WardenApi, createWardenApi } from '../../../app/contract/api';
import type { EventName, OperationName } from '../../../app/contract/contract';
import { browserSession, forgetSession, signOutOfBrowser } from './browser-session';
import { onFallbackOrigin } from './page-origin';
import { tokenFromLocation, socketUrlFor } from './page-token';
import type { CoreConnection } from './core-connection';
import { WsTransport } from './ws-transport';

declare global {
  interface Window {
    /** Exposed by the Electron preload; absent in a browser. */
    warden?: unknown;
  }
}

/** Connects to the core through whatever this page runs in. */
export function connectCore(win: Window = window): CoreConnection {
  const preload = win.warden;
  if (preload !== undefined && preload !== null) {
    return {
      api: apiFromPreload(preload),
      status: { kind: 'open' },
      onStatus: () => () => undefined,
    };
  }
  // A script's token in the fragment still works (it cannot be signed out of: it lives until
  // `warden serve` stops); a browser normally signs in for a session.
  const token = tokenFromLocation(win.location);
  const transport = new WsTransport({
    url: socketUrlFor(win.location),
    token: token ?? browserSession(win),
    createSocket: (url, protocols) => new WebSocket(url, protocols),
  });
  const connection: CoreConnection = {
    api: createWardenApi(transport),
    get status() {
      return transport.status;
    },
    onStatus: (listener) => transport.onStatus(listener),
    fallbackHost: onFallbackOrigin(win.location) ? win.location.host : undefined,
  };
  if (token !== undefined) return connection;

  let signingOut = false;
  // Signed out in another tab, or expired: this page is signed out too. Its own sign-out goes
  // to /login once the server answered (or could not be reached).
  transport.onStatus((status) => {
    if (status.kind === 'signed-out' && !signingOut) forgetSession(win, status.why);
  });
  connection.signOut = async () => {
    signingOut = true;
    await signOutOfBrowser(win);
  };
  return connection;
}

// The preload may expose a transport ({call, on}) or the API itself (one function per operation).
function apiFromPreload(preload: unknown): WardenApi {
  const p = preload as Partial<ContractTransport> & Record<string, unknown>;
  if (typeof p.call === 'function' && typeof p.on === 'function') {
    const transport: ContractTransport = {
      call: (name: OperationName, input: unknown) => p.call!(name, input),
      on: (event: EventName, listener: (payload: unknown) => void) => p.on!(event, listener),
    };
    return createWardenApi(transport);
  }
  return preload as WardenApi;
}
