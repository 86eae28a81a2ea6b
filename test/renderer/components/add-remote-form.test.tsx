// @vitest-environment jsdom
/** The URL mode of "Add server": what it sends the core, and where a field error is shown. */
import { cleanup, render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { AddServerForm } from '../../../renderer/src/components/add-server-form';
import { headersFromText } from '../../../renderer/src/components/add-server-fields';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { StoreProvider } from '../../../renderer/src/store/store-context';
import { fakeApi, refusing } from '../store/fake-api';

afterEach(cleanup);

function renderForm(answer: (input: unknown) => Promise<unknown>) {
  const { api, calls } = fakeApi({ 'servers.add': answer });
  const store = createRootStore(api);
  const screen = render(
    <StoreProvider store={store} api={api}>
      <AddServerForm />
    </StoreProvider>,
  );
  const adds = () => calls.filter((c) => c.op === 'servers.add').map((c) => c.input);
  return { screen, user: userEvent.setup(), adds };
}

describe('Add server, URL mode', () => {
  it('sends the URL, the transport and the headers, with the URL host allowed', async () => {
    const { screen, user, adds } = renderForm((input) =>
      Promise.resolve({
        server: { name: (input as { name: string }).name },
        commandLine: '',
        isolation: { kind: 'off' },
      }),
    );
    await user.type(screen.getByLabelText('Name'), 'docs');
    await user.click(screen.getByLabelText('A remote server, reached over HTTP'));
    expect(screen.queryByLabelText('Command')).toBeNull();
    await user.type(screen.getByLabelText('URL'), 'https://mcp.example.com/mcp');
    await user.selectOptions(screen.getByLabelText('Transport'), 'sse');
    await user.type(screen.getByLabelText('Headers'), 'Authorization: Bearer abc');
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    expect(adds()).toEqual([
      expect.objectContaining({
        name: 'docs',
        remote: {
          url: 'https://mcp.example.com/mcp',
          transport: 'sse',
          headers: [{ name: 'Authorization', value: 'Bearer abc' }],
        },
      }),
    ]);
    const sent = adds()[0] as { policy: { network: { mode: string; allow: string[] } } };
    expect(sent.policy.network.mode).toBe('allowlist');
    expect(sent.policy.network.allow).toEqual(['mcp.example.com:443']);
    expect(adds()[0]).not.toHaveProperty('launch');
  });

  it('shows a URL error beside the URL field', async () => {
    const { screen, user } = renderForm(
      refusing({
        kind: 'invalid-input',
        message: 'bad url',
        fields: [{ field: 'remote.url', message: 'must be an http:// or https:// URL' }],
      }),
    );
    await user.type(screen.getByLabelText('Name'), 'docs');
    await user.click(screen.getByLabelText('A remote server, reached over HTTP'));
    await user.type(screen.getByLabelText('URL'), 'ftp://x');
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    expect(await screen.findByText(/must be an http/)).toBeTruthy();
  });
});

describe('headersFromText', () => {
  it('reads one Name: value per line; a value may hold colons', () => {
    expect(headersFromText('Authorization: Bearer a:b\r\n\nX-Key:1')).toEqual([
      { name: 'Authorization', value: 'Bearer a:b' },
      { name: 'X-Key', value: '1' },
    ]);
  });
});
