// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { DetailSignIn } from '../../../renderer/src/components/detail-sign-in';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { StoreProvider } from '../../../renderer/src/store/store-context';
import { fakeApi, refusing } from '../store/fake-api';

afterEach(cleanup);

function renderSignIn(answers: Record<string, (input: unknown) => Promise<unknown>>) {
  const { api, calls } = fakeApi(answers);
  const user = userEvent.setup();
  const { container } = render(
    <StoreProvider store={createRootStore(api)} api={api}>
      <DetailSignIn name="notes" />
    </StoreProvider>,
  );
  return { user, calls, container };
}

describe('sign-in on the server detail', () => {
  it('shows "Sign in again" with the reason, and the button signs in', async () => {
    const { user, calls } = renderSignIn({
      'servers.oauthStatus': () =>
        Promise.resolve({
          kind: 'sign-in-required',
          reason: 'the authorization server refused the stored sign-in',
          remedy: 'run: warden servers sign-in notes',
        }),
      'servers.signIn': () =>
        Promise.resolve({ kind: 'signed-in', expiresAt: Date.now() + 3600_000 }),
    });
    expect(await screen.findByText('Sign in again', { selector: '.badge' })).toBeTruthy();
    expect(screen.getByText(/refused the stored sign-in/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: /^Sign in( again)? to notes$/ }));
    expect(await screen.findByText('Signed in', { selector: '.badge' })).toBeTruthy();
    expect(calls.filter((c) => c.op === 'servers.signIn')).toEqual([
      { op: 'servers.signIn', input: { name: 'notes' } },
    ]);
  });

  it('a failed sign-in shows the error and its remedy', async () => {
    const { user } = renderSignIn({
      'servers.oauthStatus': () => Promise.resolve({ kind: 'signed-out' }),
      'servers.signIn': refusing({
        kind: 'unauthorized',
        message: 'notes: nobody completed the sign-in in the browser in time',
        remedy: 'sign in again and finish in the browser that opens',
      }),
    });
    await user.click(await screen.findByRole('button', { name: /^Sign in( again)? to notes$/ }));
    expect(await screen.findByText(/in time \(sign in again and finish/)).toBeTruthy();
  });

  it('shows nothing for a server that does not sign in with OAuth', async () => {
    const { container, calls } = renderSignIn({
      'servers.oauthStatus': () => Promise.resolve({ kind: 'not-required' }),
    });
    await Promise.resolve();
    expect(calls.map((c) => c.op)).toContain('servers.oauthStatus');
    expect(container.textContent).toBe('');
  });
});
