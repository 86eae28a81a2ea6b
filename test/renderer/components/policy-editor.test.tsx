// @vitest-environment jsdom
import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractCallError } from '../../../app/contract/contract-error';
import { addPattern, setSecretRef } from '../../../app/policy/policy-edits';
import { rawControls } from '../../fixtures/hostile-text';
import { renderEditor, stored } from './render-editor';

afterEach(cleanup);

const saveButton = () => screen.getByRole<HTMLButtonElement>('button', { name: 'Save policy' });
const saveBar = () => within(screen.getByRole('region', { name: 'Save policy' }));

describe('policy editor', () => {
  it('starts clean with Save really disabled: a click sends nothing', async () => {
    const { user, updates } = renderEditor(stored(3));
    expect(saveBar().getByText('No unsaved changes')).toBeTruthy();
    expect(saveButton().disabled).toBe(true);
    await user.click(saveButton());
    expect(updates()).toEqual([]);
  });

  it('adding a folder marks the form dirty and enables Save', async () => {
    const { user } = renderEditor(stored(3));
    await user.type(screen.getByLabelText('Folder path'), '/home/me/project');
    await user.click(screen.getByRole('button', { name: 'Add folder' }));
    expect(saveBar().getByText('Unsaved changes')).toBeTruthy();
    expect(saveButton().disabled).toBe(false);
  });

  it('adding a domain marks the form dirty and enables Save', async () => {
    const { user } = renderEditor(stored(3));
    await user.click(screen.getByRole('tab', { name: 'Network' }));
    await user.type(
      screen.getByRole('textbox', { name: 'Allowed destinations' }),
      'api.example.com{Enter}',
    );
    expect(saveBar().getByText('Unsaved changes')).toBeTruthy();
    expect(saveButton().disabled).toBe(false);
  });

  it('adding a variable marks the form dirty and enables Save', async () => {
    const { user } = renderEditor(stored(3));
    await user.click(screen.getByRole('tab', { name: 'Environment' }));
    await user.type(screen.getByLabelText('Name'), 'LOG_LEVEL');
    await user.type(screen.getByLabelText('Value'), 'debug');
    await user.click(screen.getByRole('button', { name: 'Add variable' }));
    expect(saveBar().getByText('Unsaved changes')).toBeTruthy();
    expect(saveButton().disabled).toBe(false);
  });

  it('Save sends exactly the user-owned fields, never the pinned tools', async () => {
    const { user, updates } = renderEditor(stored(3), {
      'servers.update': () => Promise.resolve(stored(4, (p) => addPattern(p, 'allow', 'a.test'))),
    });
    await user.click(screen.getByRole('tab', { name: 'Network' }));
    await user.type(screen.getByRole('textbox', { name: 'Allowed destinations' }), 'a.test{Enter}');
    await user.click(saveButton());
    const { tools, ...rest } = stored(3, (p) => addPattern(p, 'allow', 'a.test')).server.policy;
    const { pinned: _pinned, ...userTools } = tools;
    expect(updates()).toEqual([
      { name: 'files', policy: { ...rest, tools: userTools }, expectedRevision: 3 },
    ]);
    expect(JSON.stringify(updates())).not.toContain('pinned');
    expect(await screen.findByText('Saved as revision 4.')).toBeTruthy();
    expect(saveBar().getByText('No unsaved changes')).toBeTruthy();
  });

  it('shows a field error from the core beside its field', async () => {
    const refusal = new ContractCallError({
      kind: 'invalid-input',
      message: 'the policy is not valid',
      fields: [{ field: 'policy.network.allow[0]', message: 'refused by the core: a.test' }],
    });
    const { user } = renderEditor(stored(3), { 'servers.update': () => Promise.reject(refusal) });
    await user.click(screen.getByRole('tab', { name: 'Network' }));
    await user.type(screen.getByRole('textbox', { name: 'Allowed destinations' }), 'a.test{Enter}');
    await user.click(saveButton());
    const chip = screen.getByText('a.test').closest('li');
    expect(chip).not.toBeNull();
    expect(await within(chip!).findByText('refused by the core: a.test')).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain('Not saved: the policy is not valid');
  });

  it('keeps the edit when a newer revision arrives, and saves on top of it', async () => {
    const { user, store, updates } = renderEditor(stored(3));
    await user.click(screen.getByRole('tab', { name: 'Network' }));
    await user.type(
      screen.getByRole('textbox', { name: 'Allowed destinations' }),
      'mine.test{Enter}',
    );
    act(() =>
      store.getState().serversChanged([stored(4, (p) => addPattern(p, 'allow', 'b.test'))]),
    );
    const chips = within(screen.getByRole('list', { name: 'Allowed destinations' }));
    expect(chips.getByText('mine.test')).toBeTruthy();
    expect(chips.getByText('b.test')).toBeTruthy();
    expect(saveBar().getByText('Unsaved changes')).toBeTruthy();
    await user.click(saveButton());
    expect(updates()).toMatchObject([
      { policy: { network: { allow: ['b.test', 'mine.test'] } }, expectedRevision: 4 },
    ]);
  });

  it('names a field changed both here and elsewhere, keeping the user value', async () => {
    const { user, store } = renderEditor(stored(3));
    await user.click(screen.getByRole('tab', { name: 'Network' }));
    await user.click(screen.getByRole('radio', { name: /Ask/ }));
    const theirs = stored(4, (p) => ({ ...p, network: { ...p.network, mode: 'allowlist' } }));
    act(() => store.getState().serversChanged([theirs]));
    expect(
      screen.getByText(/Also changed elsewhere while you edited: Network \(stored: Allowlist\)\./),
    ).toBeTruthy();
    expect(screen.getByRole<HTMLInputElement>('radio', { name: /Ask/ }).checked).toBe(true);
  });

  it('a secret saved meanwhile joins the draft: the other edits stay and the value is never sent', async () => {
    const withSecret = stored(4, (p) => setSecretRef(p, 'API_KEY', 'files/API_KEY'));
    const { user, updates } = renderEditor(stored(3), {
      'servers.setSecret': () => Promise.resolve(withSecret),
    });
    await user.click(screen.getByRole('tab', { name: 'Network' }));
    await user.type(screen.getByRole('textbox', { name: 'Allowed destinations' }), 'a.test{Enter}');
    await user.click(screen.getByRole('tab', { name: 'Environment' }));
    await user.type(screen.getByLabelText('Name'), 'API_KEY');
    await user.type(screen.getByLabelText('Value'), 'hunter2-secret');
    await user.click(screen.getByRole('button', { name: 'Save secret' }));
    expect(await screen.findByText('Secret saved as revision 4.')).toBeTruthy();
    expect(saveBar().getByText('Unsaved changes')).toBeTruthy();
    await user.click(saveButton());
    expect(updates()).toMatchObject([
      {
        policy: {
          network: { allow: ['a.test'] },
          env: { set: { API_KEY: { kind: 'secret', ref: 'files/API_KEY' } } },
        },
        expectedRevision: 4,
      },
    ]);
    expect(JSON.stringify(updates())).not.toContain('hunter2');
  });

  it('says where a secret is kept: the keychain in the app, the unencrypted file without it', async () => {
    const withSecret = stored(3, (p) => setSecretRef(p, 'API_KEY', 'files/API_KEY'));
    const places = [
      [{ store: 'keychain.json (encrypted with the OS keychain)', encrypted: true }, 'keychain'],
      [{ store: '/home/ada/secrets.json (unencrypted, mode 0600)', encrypted: false }, 'file'],
    ] as const;
    for (const [status, place] of places) {
      const { user } = renderEditor(withSecret, {
        'secrets.status': () => Promise.resolve(status),
      });
      await user.click(screen.getByRole('tab', { name: 'Environment' }));
      const hint = await waitForPlace(place);
      const row = document.querySelector('[data-env="API_KEY"]')!;
      if (place === 'keychain') {
        expect(hint.textContent).toContain('A secret is saved at once in the OS keychain.');
        expect(row.textContent).toContain('keychain secret, value hidden');
      } else {
        expect(hint.textContent).toContain(
          'A secret is saved at once in /home/ada/secrets.json (unencrypted, mode 0600): Warden without the app has no OS keychain.',
        );
        expect(hint.textContent).not.toContain('in the OS keychain');
        expect(row.textContent).toContain('secret, kept unencrypted, value hidden');
        expect(row.textContent).not.toContain('keychain secret');
      }
      cleanup();
    }
  });
});

/** The Environment tab's hint once it says where secrets are kept. */
async function waitForPlace(place: string): Promise<Element> {
  let hint: Element | null = null;
  await expect
    .poll(() => (hint = document.querySelector(`[data-secret-place="${place}"]`)))
    .not.toBeNull();
  return hint!;
}

it('shows a remote server’s URL with its bidi and invisible characters escaped', async () => {
  const local = stored(3);
  const { launch: _launch, ...server } = local.server;
  const remote = {
    ...local,
    server: {
      ...server,
      remote: {
        url: 'https://mcp.example/\u202etxt.exe\u200b',
        transport: 'streamable-http' as const,
        headers: [],
      },
    },
  };
  const { user } = renderEditor(remote);
  await user.click(screen.getByRole('tab', { name: 'Command' }));
  const text = screen.getByText(/^Remote server: Warden connects to/).textContent ?? '';
  expect(text).toContain('https://mcp.example/\\u202etxt.exe\\u200b');
  expect(rawControls(text)).toEqual([]);
});
