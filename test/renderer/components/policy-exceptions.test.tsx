// @vitest-environment jsdom
/**
 * The exceptions of the Files tab: a workspace file and an inherited hidden path are chosen from
 * their lists, shown in red with what they give away, saved in the policy, and taken back to a
 * clean editor; a hidden path the managed layer keeps is locked with its rule; the core's field
 * error shows beside the exception it is about.
 */
import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractCallError } from '../../../app/contract/contract-error';
import type { PolicyView } from '../../../app/contract/policy';
import { exceptHiddenPath, exceptWorkspaceFile } from '../../../app/policy/policy-edits';
import { renderEditor, stored } from './render-editor';

afterEach(cleanup);

const saveButton = () => screen.getByRole<HTMLButtonElement>('button', { name: 'Save policy' });
const saveBar = () => within(screen.getByRole('region', { name: 'Save policy' }));
const workspace = () =>
  within(screen.getByRole('list', { name: 'Workspace files this server may write' }));
const hidden = () => within(screen.getByRole('list', { name: 'Hidden paths this server may see' }));

/** The parent policy the core answers: the defaults, the managed layer hiding `managed`. */
function parentView(managed: string[]): PolicyView {
  return {
    stored: null,
    revision: 'r1',
    applied: {},
    managed: { path: '/etc/mcp-warden/managed-policy.json', policy: { hiddenPaths: managed } },
  };
}

describe('policy editor: exceptions', () => {
  it('adds a workspace file exception in red, saves it, and taking it back is no change', async () => {
    const { user, updates } = renderEditor(stored(3), {
      'servers.update': () =>
        Promise.resolve(stored(4, (p) => exceptWorkspaceFile(p, '.git', true))),
    });
    expect(workspace().getByText('None: every workspace file is kept read-only.')).toBeTruthy();
    expect(screen.getByText(/No folder is writable/)).toBeTruthy();
    const allow = screen.getByRole<HTMLButtonElement>('button', { name: 'Allow writing' });
    expect(allow.disabled).toBe(true);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Workspace file' }), '.git');
    await user.click(allow);
    const item = workspace().getByRole('listitem');
    expect(item.className).toContain('guard-exception');
    expect(item.querySelector('.exception-warning')?.textContent).toBe(
      'Exception: this server may write the workspace file .git in its writable folders; what it ' +
        'puts there can run as you, outside any sandbox.',
    );
    // Chosen once, it is no longer offered.
    expect(screen.queryByRole('option', { name: '.git' })).toBeNull();
    expect(saveBar().getByText('Unsaved changes')).toBeTruthy();

    await user.click(workspace().getByRole('button', { name: 'Remove exception .git' }));
    expect(saveBar().getByText('No unsaved changes')).toBeTruthy();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Workspace file' }), '.git');
    await user.click(allow);
    await user.click(saveButton());
    expect(updates()).toMatchObject([
      { policy: { guards: { hide: [], unhide: [], unprotect: ['.git'] } }, expectedRevision: 3 },
    ]);
    expect(await screen.findByText('Saved as revision 4.')).toBeTruthy();
  });

  it('locks a hidden path the managed layer keeps, naming its rule; another one is allowed', async () => {
    const { user, store, updates } = renderEditor(stored(3));
    act(() => store.setState({ parentPolicy: parentView(['~/work/secrets']) }));
    const choice = screen.getByRole('combobox', { name: 'Hidden path' });
    const allow = screen.getByRole<HTMLButtonElement>('button', { name: 'Allow seeing' });
    await user.selectOptions(choice, '~/work/secrets');
    expect(screen.getByRole('option', { name: '~/work/secrets (managed)' })).toBeTruthy();
    expect(allow.disabled).toBe(true);
    expect(choice.getAttribute('aria-invalid')).toBe('true');
    expect(
      screen.getByText(/^Locked: the managed policy hides ~\/work\/secrets/).textContent,
    ).toContain('(managed hiddenPaths "~/work/secrets")');
    await user.click(allow);
    expect(hidden().queryByText('~/work/secrets')).toBeNull();

    await user.selectOptions(choice, '~/.aws');
    expect(screen.queryByText(/^Locked:/)).toBeNull();
    await user.click(allow);
    const item = hidden().getByRole('listitem');
    expect(item.querySelector('.exception-warning')?.textContent).toBe(
      'Exception: this server may see the hidden path ~/.aws and read the secrets kept there.',
    );
    await user.click(saveButton());
    expect(updates()).toMatchObject([{ policy: { guards: { hide: [], unhide: ['~/.aws'] } } }]);
  });

  it('says so beside an exception the managed layer forbids, or the core refused', async () => {
    const view = stored(3, (p) =>
      exceptWorkspaceFile(exceptHiddenPath(p, '~/work/secrets', true), '.envrc', true),
    );
    const refusal = new ContractCallError({
      kind: 'invalid-input',
      message: 'the policy is not valid',
      fields: [{ field: 'policy.guards.unprotect[0]', message: 'refused by the core: .envrc' }],
    });
    const { user, store } = renderEditor(view, {
      'servers.update': () => Promise.reject(refusal),
    });
    act(() => store.setState({ parentPolicy: parentView(['~/work/secrets']) }));
    expect(hidden().getByRole('listitem').textContent).toContain(
      'Locked: the managed policy hides ~/work/secrets; no server may see it',
    );
    await user.click(hidden().getByRole('button', { name: 'Remove exception ~/work/secrets' }));
    await user.click(saveButton());
    expect(await workspace().findByText('refused by the core: .envrc')).toBeTruthy();
  });
});
