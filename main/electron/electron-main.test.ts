/**
 * The Electron main process wiring, with a stand-in for the 'electron' module: it starts the real
 * core, answers a trusted `warden:call`, refuses an untrusted one, forwards core events to the
 * window, counts pending grants in the tray, and closes the core before quitting.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { electronStub } from '../../test/helpers/electron-stub';

vi.mock('electron', () => import('../../test/helpers/electron-stub'));

describe('Electron main process', () => {
  it('starts the core, serves trusted IPC only, and closes the core before quitting', async () => {
    const { app, handlers, windows } = electronStub;
    process.env.WARDEN_GATEWAY_PORT = '0';
    process.env.WARDEN_HOME = await mkdtemp(join(tmpdir(), 'warden-electron-main-'));
    await import('./electron-main');
    await vi.waitFor(() => expect(windows.length).toBe(1));
    expect(app.sandboxed).toBe(true);

    const win = windows[0]!;
    expect(win.options.webPreferences).toMatchObject({ sandbox: true, contextIsolation: true });
    const renderer = win.loaded;
    expect(renderer.endsWith(join('renderer', 'index.html'))).toBe(true);

    const call = handlers.get('warden:call')!;
    const trusted = { senderFrame: { url: pathToFileURL(renderer).href, parent: null } };
    expect(await call(trusted, 'servers.list', {})).toEqual({ ok: true, value: [] });
    const foreign = { senderFrame: { url: 'https://evil.example/', parent: null } };
    expect(await call(foreign, 'servers.list', {})).toMatchObject({
      ok: false,
      error: { kind: 'unauthorized' },
    });

    const added = await call(trusted, 'servers.add', {
      name: 'files',
      launch: { command: 'npx', args: ['-y', 'files-server'] },
      policy: (await import('../../app/policy/defaults')).defaultPolicy(),
    });
    expect(added).toMatchObject({ ok: true });
    await vi.waitFor(() =>
      expect(
        win.sent.some(
          ([channel, m]) =>
            channel === 'warden:event' && (m as { event: string }).event === 'servers.changed',
        ),
      ).toBe(true),
    );

    app.quit();
    expect(app.quits).toBe(1);
    // The first before-quit is held until the core has closed, then quitting resumes.
    await vi.waitFor(() => expect(app.quits).toBe(2));
  });
});
