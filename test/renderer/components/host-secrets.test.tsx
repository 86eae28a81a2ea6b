// @vitest-environment jsdom
/**
 * Secrets outside the keychain on the Host screen: nothing while there are none; the file and the
 * names (never a value) when Warden without the app kept some; the move, held while it runs, what
 * moved and what stayed; and why a move failed.
 */
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { SecretsMoved, SecretsStatus } from '../../../app/contract/secrets';
import { HostSecrets } from '../../../renderer/src/components/host-secrets';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { StoreProvider } from '../../../renderer/src/store/store-context';
import { fakeApi, refusing } from '../store/fake-api';

afterEach(cleanup);

const store = '/home/ada/.config/mcp-warden/secrets.safe.json (encrypted with the OS keychain)';
const file = '/home/ada/.config/mcp-warden/secrets.json';
const two: SecretsStatus = {
  store,
  encrypted: true,
  unencrypted: { file, names: ['github/GITHUB_TOKEN', 'db/DB_PASSWORD'], differing: [] },
};

function renderWith(answers: Parameters<typeof fakeApi>[0]) {
  const { api, calls } = fakeApi(answers);
  const view = render(
    <StoreProvider store={createRootStore(api)} api={api}>
      <HostSecrets />
    </StoreProvider>,
  );
  return { calls, view, user: userEvent.setup() };
}

const moveButton = () => screen.findByRole('button', { name: 'Move into the keychain' });

describe('secrets outside the keychain', () => {
  it('shows nothing while every value is where the app reads it', async () => {
    let answered = false;
    const { view } = renderWith({
      'secrets.status': () =>
        Promise.resolve({ store, encrypted: true }).finally(() => (answered = true)),
    });
    await expect.poll(() => answered).toBe(true);
    await new Promise((done) => setTimeout(done, 20));
    expect(view.container.innerHTML).toBe('');
  });

  it('names the file and the values, moves them, held while it runs, and says so', async () => {
    let finish: (m: SecretsMoved) => void = () => undefined;
    const statuses = [two, { store, encrypted: true }];
    const { calls, user } = renderWith({
      'secrets.status': () => Promise.resolve(statuses.shift()),
      'secrets.moveIn': () => new Promise((done) => (finish = done)),
    });
    const button = await moveButton();
    expect(screen.getByText(file, { selector: 'code' })).toBeTruthy();
    expect(screen.getByText('github/GITHUB_TOKEN', { selector: 'code' })).toBeTruthy();
    expect(screen.getByText('db/DB_PASSWORD', { selector: 'code' })).toBeTruthy();
    expect(screen.getByText(/2 secret values set while the app was closed/)).toBeTruthy();
    expect(screen.getByText(/The app reads only the OS keychain, not this file/)).toBeTruthy();
    expect(screen.getByText(/Warden without the app cannot read them/)).toBeTruthy();

    await user.click(button);
    expect(calls.filter((c) => c.op === 'secrets.moveIn')).toEqual([
      { op: 'secrets.moveIn', input: { differing: 'keep' } },
    ]);
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(button.textContent).toBe('Moving…');
    finish({ moved: ['github/GITHUB_TOKEN', 'db/DB_PASSWORD'], kept: [] });
    const status = await screen.findByRole('status');
    expect(status.textContent).toBe(
      'The file no longer holds 2 secret values: the app keeps them in the OS keychain.',
    );
    await expect.poll(() => screen.queryByRole('button', { name: /Move/ })).toBeNull();
  });

  it('a value the keychain holds otherwise: the user keeps the app’s or takes the file’s', async () => {
    for (const [label, differing] of [
      ['Keep the app’s value', 'app'],
      ['Use the file’s value', 'file'],
    ] as const) {
      const { calls, user } = renderWith({
        'secrets.status': () =>
          Promise.resolve({
            store,
            encrypted: true,
            unencrypted: { file, names: [], differing: ['a/KEY'] },
          }),
        'secrets.moveIn': () => Promise.resolve({ moved: ['a/KEY'], kept: [] }),
      });
      await screen.findByText(/1 secret value in/);
      expect(screen.queryByRole('button', { name: 'Move into the keychain' })).toBeNull();
      expect(screen.getByText('a/KEY', { selector: 'code' })).toBeTruthy();
      expect(screen.getByText(/is in the keychain too, with another value/)).toBeTruthy();
      await user.click(screen.getByRole('button', { name: label }));
      expect(calls.filter((c) => c.op === 'secrets.moveIn')).toEqual([
        { op: 'secrets.moveIn', input: { differing } },
      ]);
      cleanup();
    }
  });

  it('a refused move shows the message and the remedy, and the values stay listed', async () => {
    const { user } = renderWith({
      'secrets.status': () => Promise.resolve(two),
      'secrets.moveIn': refusing({
        kind: 'internal',
        message: 'no OS keychain is available to encrypt secrets',
        remedy: 'unlock or install a keyring',
      }),
    });
    await user.click(await moveButton());
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(
      'Could not move them all: no OS keychain is available to encrypt secrets unlock or install a keyring',
    );
    expect(((await moveButton()) as HTMLButtonElement).disabled).toBe(false);
    expect(screen.getByText('github/GITHUB_TOKEN', { selector: 'code' })).toBeTruthy();
  });

  it('without the app: says the values are kept unencrypted, and where, with nothing to move', async () => {
    const headless = `${file} (unencrypted, mode 0600)`;
    renderWith({ 'secrets.status': () => Promise.resolve({ store: headless, encrypted: false }) });
    expect(await screen.findByRole('heading', { name: 'Secrets without a keychain' })).toBeTruthy();
    const notice = document.querySelector('[data-no-keychain]')!;
    expect(notice.textContent).toContain(
      `it has no OS keychain: the secret values it keeps are in ${headless}.`,
    );
    expect(screen.queryByRole('button')).toBeNull();
  });
});
