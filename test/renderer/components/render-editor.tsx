/**
 * Renders the policy editor of one server over a real store and a contract double, for component
 * tests: `stored(revision, edit)` builds the server the core holds, `calls` records what was sent.
 */
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ServerView } from '../../../app/contract/servers';
import { defaultPolicy } from '../../../app/policy/defaults';
import { pinTools } from '../../../app/policy/policy-edits';
import type { Policy } from '../../../app/policy/policy-schema';
import { PolicyEditor } from '../../../renderer/src/components/policy-editor';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { StoreProvider } from '../../../renderer/src/store/store-context';
import { fakeApi } from '../store/fake-api';

/** The view the core sends of server `files` at `revision`, its policy changed by `edit`. */
export function stored(revision: number, edit: (p: Policy) => Policy = (p) => p): ServerView {
  const policy = pinTools(defaultPolicy(), { read: { name: 'read', description: 'reads' } });
  return {
    server: {
      name: 'files',
      launch: { command: 'node', args: ['server.js'] },
      policy: edit(policy),
      revision,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      acknowledged: true,
    },
    commandLine: 'node server.js',
    isolation: { kind: 'sandboxed', backend: 'bubblewrap' },
  };
}

/** The editor of `view`, with `answers` overriding what the contract double answers. */
export function renderEditor(
  view: ServerView,
  answers: Record<string, (input: unknown) => Promise<unknown>> = {},
) {
  const { api, calls } = fakeApi({ 'servers.update': () => Promise.resolve(view), ...answers });
  const store = createRootStore(api);
  store.getState().serversChanged([view]);
  const user = userEvent.setup();
  const screen = render(
    <StoreProvider store={store} api={api}>
      <PolicyEditor name={view.server.name} />
    </StoreProvider>,
  );
  const updates = () => calls.filter((c) => c.op === 'servers.update').map((c) => c.input);
  return { store, user, screen, updates, calls };
}
