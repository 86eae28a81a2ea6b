// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { AuditFilters } from '../../../renderer/src/components/audit-filters';
import { auditSelectors } from '../../../renderer/src/store/audit/audit-selectors';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { StoreProvider } from '../../../renderer/src/store/store-context';
import { fakeApi } from '../store/fake-api';

afterEach(cleanup);

it('each list filter sets its field, and "any" clears it', async () => {
  const store = createRootStore(fakeApi().api);
  render(
    <StoreProvider store={store}>
      <AuditFilters />
    </StoreProvider>,
  );
  const user = userEvent.setup();
  const filter = () => auditSelectors.filter(store.getState());
  await user.selectOptions(screen.getByLabelText('Kind'), 'policy.changed');
  expect(filter().kinds).toEqual(['policy.changed']);
  await user.selectOptions(screen.getByLabelText('Outcome'), 'refused');
  expect(filter()).toMatchObject({ kinds: ['policy.changed'], outcome: 'refused' });
  await user.selectOptions(screen.getByLabelText('Kind'), 'any');
  expect(filter().kinds).toBeUndefined();
  expect(filter().outcome).toBe('refused');
});
