/** The folder picker and save dialog glue, over a fake Electron `dialog`. */
import { describe, expect, it } from 'vitest';
import { type DialogLike, dialogPicks } from './dialog-picks';
import { serveShellRequest } from './shell-requests';

interface Win {
  id: number;
}

/** A dialog answering `open` and `save`, recording each call's parent window and options. */
function fakeDialog(open: { canceled: boolean; filePaths: string[] }, save = { canceled: true }) {
  const calls: Array<{ kind: string; parent?: number; options: unknown }> = [];
  const record = (kind: string, a: Win | object, b?: object) =>
    calls.push(
      b === undefined ? { kind, options: a } : { kind, parent: (a as Win).id, options: b },
    );
  const dialog = {
    showOpenDialog: (a: Win | object, b?: object) => {
      record('open', a, b);
      return Promise.resolve(open);
    },
    showSaveDialog: (a: Win | object, b?: object) => {
      record('save', a, b);
      return Promise.resolve(save);
    },
  } as DialogLike<Win>;
  return { dialog, calls };
}

const noShell = {
  notify: () => undefined,
  setBadgeCount: () => undefined,
};

describe('folder picker', () => {
  it('asks for one directory, modal to the app window, and answers the page with its path', async () => {
    const { dialog, calls } = fakeDialog({ canceled: false, filePaths: ['/home/u/site'] });
    const picks = dialogPicks(dialog, () => ({ id: 7 }));
    expect(await serveShellRequest({ kind: 'pickFolder' }, { ...noShell, ...picks }, () => 0)).toBe(
      '/home/u/site',
    );
    expect(calls).toEqual([
      { kind: 'open', parent: 7, options: { properties: ['openDirectory'] } },
    ]);
  });

  it('answers nothing when cancelled, and works without a window', async () => {
    const { dialog, calls } = fakeDialog({ canceled: true, filePaths: ['/ignored'] });
    expect(await dialogPicks(dialog, () => undefined).pickFolder()).toBeUndefined();
    expect(calls).toEqual([{ kind: 'open', options: { properties: ['openDirectory'] } }]);
    const empty = fakeDialog({ canceled: false, filePaths: [] });
    expect(await dialogPicks(empty.dialog, () => undefined).pickFolder()).toBeUndefined();
  });
});

describe('save target', () => {
  it('suggests the name and returns where the user chose, or nothing when cancelled', async () => {
    const chosen = fakeDialog({ canceled: true, filePaths: [] }, {
      canceled: false,
      filePath: '/home/u/audit.jsonl',
    } as { canceled: boolean });
    const picks = dialogPicks(chosen.dialog, () => ({ id: 1 }));
    expect(await picks.pickSaveTarget('audit.jsonl')).toBe('/home/u/audit.jsonl');
    expect(chosen.calls).toEqual([
      { kind: 'save', parent: 1, options: { defaultPath: 'audit.jsonl' } },
    ]);
    const cancelled = fakeDialog({ canceled: true, filePaths: [] });
    expect(
      await dialogPicks(cancelled.dialog, () => undefined).pickSaveTarget('a'),
    ).toBeUndefined();
  });
});
