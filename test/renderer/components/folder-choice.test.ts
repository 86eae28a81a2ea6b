/** The row's folder add control and the desktop shell's folder picker, with a fake shell. */
import { describe, expect, it } from 'vitest';
import { desktopShell } from '../../../renderer/src/contract-client/desktop-shell';
import { pickFolderToAdd } from '../../../renderer/src/components/folder-choice';

/** A page whose `window.warden` is the Electron preload's shape, picker answering `answer`. */
function desktopPage(answer: unknown) {
  const asked: string[] = [];
  const win = {
    document: { title: '' },
    warden: {
      call: () => Promise.resolve(undefined),
      on: () => () => undefined,
      pickFolder() {
        asked.push('pickFolder');
        return Promise.resolve(answer);
      },
    },
  } as unknown as Window;
  return { shell: desktopShell(win), asked };
}

describe('adding a folder with the shell folder picker', () => {
  it('uses the picker the desktop shell offers and takes the folder chosen', async () => {
    const { shell, asked } = desktopPage('/home/u/projects/site');
    expect(typeof shell.pickFolder).toBe('function');
    expect(await pickFolderToAdd(shell)).toBe('/home/u/projects/site');
    expect(asked).toEqual(['pickFolder']);
  });

  it('adds nothing when the user cancels or the answer is not an absolute path', async () => {
    expect(await pickFolderToAdd(desktopPage(undefined).shell)).toBeUndefined();
    expect(await pickFolderToAdd(desktopPage('relative/dir').shell)).toBeUndefined();
    expect(await pickFolderToAdd(desktopPage({ path: '/etc' }).shell)).toBeUndefined();
  });

  it('has no picker in a browser, where the path is typed', async () => {
    const shell = desktopShell({ document: { title: '' } } as unknown as Window);
    expect('pickFolder' in shell && shell.pickFolder !== undefined).toBe(false);
    expect(await pickFolderToAdd(shell)).toBeUndefined();
  });
});
