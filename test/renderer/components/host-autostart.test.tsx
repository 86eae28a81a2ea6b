// @vitest-environment jsdom
/**
 * Start at login on the Host screen: the switch shows and changes the core's login item, is held
 * while a change runs or where there is none, names another program's entry (escaped) before
 * replacing it, and says why a change failed.
 */
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { AutostartState } from '../../../app/contract/autostart';
import { HostAutostart } from '../../../renderer/src/components/host-autostart';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { StoreProvider } from '../../../renderer/src/store/store-context';
import { fakeApi, refusing } from '../store/fake-api';

afterEach(cleanup);

const off: AutostartState = {
  available: true,
  enabled: false,
  target: '`warden serve` (the control panel is not opened)',
  where: '/home/ada/.config/autostart/mcp-warden.desktop',
};

function renderWith(answers: Parameters<typeof fakeApi>[0]) {
  const { api, calls } = fakeApi(answers);
  render(
    <StoreProvider store={createRootStore(api)} api={api}>
      <HostAutostart />
    </StoreProvider>,
  );
  return { calls, user: userEvent.setup() };
}

const theSwitch = () => screen.findByRole('switch', { name: 'Start Warden at login' });

describe('start at login', () => {
  it('shows what starts and where, and turns it on, held while the change runs', async () => {
    let finish: (s: AutostartState) => void = () => undefined;
    const { calls, user } = renderWith({
      'autostart.get': () => Promise.resolve(off),
      'autostart.set': () => new Promise((done) => (finish = done)),
    });
    const toggle = await theSwitch();
    expect(toggle.getAttribute('aria-checked')).toBe('false');
    expect(screen.getByText('warden serve', { selector: 'code' })).toBeTruthy();
    expect(screen.getByText(off.where, { selector: 'code' })).toBeTruthy();
    expect(screen.getByText(/join it instead of each starting a Warden/)).toBeTruthy();

    await user.click(toggle);
    expect(calls.filter((c) => c.op === 'autostart.set')).toEqual([
      { op: 'autostart.set', input: { enabled: true } },
    ]);
    expect((toggle as HTMLButtonElement).disabled).toBe(true);
    finish({ ...off, enabled: true });
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    expect((toggle as HTMLButtonElement).disabled).toBe(false);
  });

  it('names the other entry, escaped, and says the switch replaces it', async () => {
    renderWith({
      'autostart.get': () => Promise.resolve({ ...off, other: '/usr/bin/evil\u001b[2J --quiet' }),
    });
    expect((await theSwitch()).getAttribute('aria-checked')).toBe('false');
    const notice = document.querySelector('[data-autostart-other]');
    expect(notice?.textContent).toContain('/usr/bin/evil\\x1b[2J --quiet');
    expect(notice?.textContent).toContain('Turning the switch on replaces it');
  });

  it('holds the switch where there is no login item, with the reason', async () => {
    renderWith({
      'autostart.get': () =>
        Promise.resolve({
          ...off,
          available: false,
          where: 'none',
          reason:
            'Warden starts at login from the desktop app on Windows, not from `warden serve`.',
        }),
    });
    expect(((await theSwitch()) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText(/^Not available here: Warden starts at login/)).toBeTruthy();
  });

  it('a refused change shows the message and the remedy, and the switch stays off', async () => {
    const { user } = renderWith({
      'autostart.get': () => Promise.resolve(off),
      'autostart.set': refusing({
        kind: 'internal',
        message: 'cannot write ~/.config/autostart',
        remedy: 'make the folder writable and turn it on again',
      }),
    });
    const toggle = await theSwitch();
    await user.click(toggle);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(
      'Could not turn on start at login: cannot write ~/.config/autostart make the folder writable and turn it on again',
    );
    expect(toggle.getAttribute('aria-checked')).toBe('false');
    expect((toggle as HTMLButtonElement).disabled).toBe(false);
  });
});
