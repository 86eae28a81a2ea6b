import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';

const created: { options: Record<string, unknown>; win: FakeWindow }[] = [];
class FakeWindow extends EventEmitter {
  loaded = '';
  hidden = false;
  constructor(options: Record<string, unknown>) {
    super();
    created.push({ options, win: this });
  }
  loadFile(path: string) {
    this.loaded = path;
    return Promise.resolve();
  }
  hide() {
    this.hidden = true;
  }
  show() {}
}
vi.mock('electron', () => ({ BrowserWindow: FakeWindow }));

const { createAppWindow } = await import('./app-window');

describe('app window', () => {
  it('is context-isolated, sandboxed, without Node or webviews, and loads the renderer file', () => {
    let quitting = false;
    createAppWindow({
      preload: '/app/out/electron/preload.cjs',
      rendererIndex: '/app/out/renderer/index.html',
      isQuitting: () => quitting,
    });
    const { options, win } = created[0]!;
    expect(options.webPreferences).toMatchObject({
      preload: '/app/out/electron/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      disableBlinkFeatures: 'Auxclick',
    });
    expect(win.loaded).toBe('/app/out/renderer/index.html');

    let prevented = false;
    win.emit('close', { preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    expect(win.hidden).toBe(true);

    quitting = true;
    prevented = false;
    win.emit('close', { preventDefault: () => (prevented = true) });
    expect(prevented).toBe(false);
  });
});
