// @vitest-environment jsdom
/** The audit retention form says what went wrong in words, whichever way the error crossed. */
import { cleanup, render, screen } from '@testing-library/react';
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
const settings = { retention: { maxSizeMb: 100, maxAgeDays: null } };

function renderWith(answers: Parameters<typeof fakeApi>[0]) {
  const { api } = fakeApi(answers);
  render(
    <StoreProvider store={createRootStore(api)}>
      <AuditRetention api={api} />
    </StoreProvider>,
  );
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
