// @vitest-environment jsdom
/**
 * What a client's config file says reaches the Clients screen as escapes: a disconnect that puts
 * entries back names the ones it left as they are, by the names the file gives them, and the
 * file's path and its backup's are shown as well; a failed call's message may quote the file too.
 */
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import type { ClientStatus, ClientsApi } from '../../../app/contract/clients';
import { ContractCallError } from '../../../app/contract/contract-error';
import { ClientsScreen } from '../../../renderer/src/components/clients-screen';
import { callErrorText } from '../../../renderer/src/components/import-screen';
import { hostile, rawControls } from '../../fixtures/hostile-text';

afterEach(cleanup);

const file = `/home/me/proj${hostile.bidi}/.cursor/mcp.json`;
const status: ClientStatus = {
  client: 'cursor',
  label: 'Cursor',
  installed: true,
  files: [
    {
      path: file,
      scope: 'project',
      exists: true,
      connected: true,
      backup: `${file}.warden-backup`,
      servers: [{ entryName: `notes${hostile.osc52}`, kind: 'warden', throughWarden: 'notes' }],
    },
  ],
};

function api(overrides: Partial<ClientsApi> = {}): ClientsApi {
  const none = () => Promise.reject(new Error('not in this test'));
  return {
    'clients.list': () => Promise.resolve([status]),
    'clients.importPreview': none,
    'clients.import': none,
    'clients.connectPreview': none,
    'clients.connect': none,
    'clients.disconnect': () =>
      Promise.resolve([
        {
          client: 'cursor',
          file,
          restored: 'entries',
          message: `the file changed since connect; left as they are now: evil${hostile.crErase}${hostile.bidi}`,
        },
      ]),
    'clients.revokeToken': none,
    ...overrides,
  };
}

it('shows a disconnect’s message, the file and its backup escaped', async () => {
  const user = userEvent.setup();
  const { container } = render(<ClientsScreen api={api()} initialClient="cursor" />);
  const item = await screen.findByText(/\\u202egnp\.exe\\u202c\/\.cursor\/mcp\.json$/);
  expect(item.textContent).toContain('proj\\u202egnp.exe');
  await user.click(screen.getByRole('button', { name: 'Disconnect Cursor' }));
  const done = await screen.findByRole('status');
  expect(done.textContent).toContain(
    'left as they are now: evil\\x0d\\x1b[2K\\u202egnp.exe\\u202c',
  );
  expect(within(done).getByText(/mcp\.json$/).textContent).toContain('\\u202e');
  expect(container.textContent).toContain('.warden-backup');
  expect(rawControls(container.textContent ?? '')).toEqual([]);
});

it('shows a failed call’s message escaped', async () => {
  const failing = api({
    'clients.list': () =>
      Promise.reject(
        new ContractCallError({
          kind: 'invalid-input',
          message: `cannot read ${file}`,
          remedy: 'fix it',
        }),
      ),
  });
  const { container } = render(<ClientsScreen api={failing} />);
  const alert = await screen.findByRole('alert');
  expect(alert.textContent).toContain('proj\\u202egnp.exe\\u202c/.cursor/mcp.json (fix it)');
  expect(rawControls(container.textContent ?? '')).toEqual([]);
  expect(callErrorText(new Error(`a server said ${hostile.osc0}`))).toBe(
    'a server said \\x1b]0;all good\\x07',
  );
});
