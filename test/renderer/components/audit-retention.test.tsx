// @vitest-environment jsdom
/**
 * The audit retention form says what went wrong in words, whichever way the error crossed, and
 * never writes back limits changed elsewhere that it did not show.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { ContractCallError, type ContractError } from '../../../app/contract/contract-error';
import { AuditRetention } from '../../../renderer/src/components/audit-retention';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { StoreProvider } from '../../../renderer/src/store/store-context';
import { fakeApi } from '../store/fake-api';

afterEach(cleanup);

const locked: ContractError = {
  kind: 'conflict',
  message: 'The audit database is locked by another process.',
  remedy: 'Close the other Warden and save again.',
};
/** What Electron's context bridge delivers for a ContractCallError: a plain object. */
const bridged = { name: 'ContractCallError', message: locked.message, error: locked };
const settings = { retention: { maxSizeMb: 100, maxAgeDays: null }, revision: 'r1' };

function renderWith(answers: Parameters<typeof fakeApi>[0]) {
  const fake = fakeApi(answers);
  render(
    <StoreProvider store={createRootStore(fake.api)}>
      <AuditRetention api={fake.api} />
    </StoreProvider>,
  );
  return fake;
}

it('a refused save shows the message and the remedy, not [object Object]', async () => {
  renderWith({
    'audit.settings': () => Promise.resolve(settings),
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- as bridged
    'audit.setSettings': () => Promise.reject(bridged),
  });
  await screen.findByDisplayValue('100');
  await userEvent.setup().click(screen.getByRole('button', { name: 'Save retention' }));
  const status = await screen.findByText(/^Not saved:/);
  expect(status.textContent).toBe(`Not saved: ${locked.message} ${locked.remedy}`);
});

it('a failed read shows the message and the remedy of a contract error', async () => {
  renderWith({ 'audit.settings': () => Promise.reject(new ContractCallError(locked)) });
  const status = await screen.findByText(/^Could not read retention:/);
  expect(status.textContent).toBe(`Could not read retention: ${locked.message} ${locked.remedy}`);
});

it('a change made elsewhere is taken in under the edits, and a save names the newer revision', async () => {
  const { listeners, calls } = renderWith({
    'audit.settings': () => Promise.resolve(settings),
    'audit.setSettings': (input) =>
      Promise.resolve({ ...(input as typeof settings), revision: 'r3' }),
  });
  const size = await screen.findByLabelText('Maximum size in MB');
  const age = screen.getByLabelText('Maximum age in days');
  const user = userEvent.setup();
  await user.clear(size);
  await user.type(size, '50');
  expect(screen.getByRole('button', { name: 'Discard changes' })).toBeTruthy();
  // Another window sets an age limit and a size: the age is taken in, the size is a conflict.
  const changed = listeners.get('audit.settingsChanged')!;
  act(() => changed({ retention: { maxSizeMb: 2048, maxAgeDays: 30 }, revision: 'r2' }));
  expect((size as HTMLInputElement).value).toBe('50');
  expect((age as HTMLInputElement).value).toBe('30');
  const notice = document.querySelector('[data-draft-conflicts]')!;
  expect(notice.textContent).toContain('Maximum size (stored: 2048 MB)');
  await user.click(screen.getByRole('button', { name: 'Save retention' }));
  expect(calls.filter((c) => c.op === 'audit.setSettings').map((c) => c.input)).toEqual([
    { retention: { maxSizeMb: 50, maxAgeDays: 30 }, expectedRevision: 'r2' },
  ]);
  await screen.findByText('Saved; older rows are removed now.');
  expect(document.querySelector('[data-draft-conflicts]')).toBeNull();
  expect(screen.queryByRole('button', { name: 'Discard changes' })).toBeNull();
});

it('a save refused as stale takes in the stored limits and keeps the edits on them', async () => {
  let stored = settings;
  const stale: ContractError = {
    kind: 'conflict',
    message: 'the audit retention changed since it was read (in another window or in config.json)',
  };
  const { calls } = renderWith({
    'audit.settings': () => Promise.resolve(stored),
    'audit.setSettings': () => Promise.reject(new ContractCallError(stale)),
  });
  const age = await screen.findByLabelText('Maximum age in days');
  const user = userEvent.setup();
  await user.type(age, '90');
  stored = { retention: { maxSizeMb: 700, maxAgeDays: null }, revision: 'r2' };
  await user.click(screen.getByRole('button', { name: 'Save retention' }));
  await screen.findByText(/^Not saved: the audit retention changed/);
  expect(screen.getByRole('status').textContent).toContain('Your edits are kept');
  await expect
    .poll(() => screen.getByLabelText<HTMLInputElement>('Maximum size in MB').value)
    .toBe('700');
  expect((age as HTMLInputElement).value).toBe('90');
  // Discarding takes the stored limits whole.
  await user.click(screen.getByRole('button', { name: 'Discard changes' }));
  expect((age as HTMLInputElement).value).toBe('');
  expect(calls.filter((c) => c.op === 'audit.setSettings')).toHaveLength(1);
});
