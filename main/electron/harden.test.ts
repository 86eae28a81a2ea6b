import { EventEmitter } from 'node:events';
import type { App, Session } from 'electron';
import { describe, expect, it } from 'vitest';
import { appContentSecurityPolicy } from './content-security-policy';
import { hardenSession, hardenWebContents } from './harden';

type Handler = (...args: unknown[]) => unknown;

function fakeSession() {
  const handlers: Record<string, Handler> = {};
  const session = {
    webRequest: { onHeadersReceived: (h: Handler) => (handlers.headers = h) },
    setPermissionRequestHandler: (h: Handler) => (handlers.request = h),
    setPermissionCheckHandler: (h: Handler) => (handlers.check = h),
    setDevicePermissionHandler: (h: Handler) => (handlers.device = h),
  };
  return { session: session as unknown as Session, handlers };
}

describe('Electron hardening', () => {
  it('refuses every permission request and check', () => {
    const { session, handlers } = fakeSession();
    hardenSession(session);
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read']) {
      let granted: unknown;
      handlers.request?.({}, permission, (g: boolean) => (granted = g));
      expect(granted, permission).toBe(false);
      expect(handlers.check?.({}, permission, 'file://', {})).toBe(false);
    }
    expect(handlers.device?.({ deviceType: 'usb' })).toBe(false);
  });

  it('sets the CSP header on every response, replacing a weaker one', () => {
    const { session, handlers } = fakeSession();
    hardenSession(session);
    let out: unknown;
    handlers.headers?.(
      { responseHeaders: { 'content-security-policy': ["script-src 'unsafe-inline'"], A: ['1'] } },
      (r: unknown) => (out = r),
    );
    expect(out).toEqual({
      responseHeaders: { A: ['1'], 'Content-Security-Policy': [appContentSecurityPolicy] },
    });
    expect(appContentSecurityPolicy).toContain("default-src 'none'");
    expect(appContentSecurityPolicy).not.toMatch(/unsafe-(inline|eval)/);
  });

  it('denies navigation, redirects, new windows and webviews in every web contents', () => {
    const app = new EventEmitter();
    hardenWebContents(app as unknown as App);
    const contents = Object.assign(new EventEmitter(), {
      openHandler: undefined as Handler | undefined,
      setWindowOpenHandler(h: Handler) {
        this.openHandler = h;
      },
    });
    app.emit('web-contents-created', {}, contents);
    for (const name of [
      'will-navigate',
      'will-frame-navigate',
      'will-redirect',
      'will-attach-webview',
    ]) {
      let prevented = false;
      contents.emit(name, { preventDefault: () => (prevented = true), isMainFrame: true });
      expect(prevented, name).toBe(true);
    }
    expect(contents.openHandler?.({ url: 'https://example.com' })).toEqual({ action: 'deny' });
  });
});
