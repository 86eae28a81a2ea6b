/**
 * Electron-wide hardening, installed before any window exists: the CSP header on every response,
 * every permission request and check refused, and for every web contents: navigation, redirects,
 * new windows and <webview> attachment denied.
 */
import type { App, Session, WebContents } from 'electron';
import { withContentSecurityPolicy } from './content-security-policy';

/** Hardens the session the app window uses. */
export function hardenSession(session: Session): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders) });
  });
  session.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
}

/** Denies navigation, new windows and webviews for every web contents the app creates. */
export function hardenWebContents(app: App): void {
  app.on('web-contents-created', (_event, contents: WebContents) => {
    contents.on('will-navigate', (event) => event.preventDefault());
    contents.on('will-frame-navigate', (event) => event.preventDefault());
    contents.on('will-redirect', (event) => event.preventDefault());
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
}
