// @vitest-environment jsdom
/**
 * A row of the Servers list keeps what the user has open in it (a confirmation, a half-typed
 * domain) while the list changes around it: servers added above or below, removed, the whole
 * list sent again, and the list scrolled a few rows, windowed (over 40 servers) or not.
 */
import { act, cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ServerList } from '../../../renderer/src/components/server-list';
import type { ConnectionStatus } from '../../../renderer/src/contract-client/ws-transport';
import { bindCore } from '../../../renderer/src/store/bind-core';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { StoreProvider } from '../../../renderer/src/store/store-context';
import { auditRow, fakeApi, manualFrames } from '../store/fake-api';
import { stored } from './render-editor';

afterEach(cleanup);

beforeAll(() => {
  // jsdom has no modal dialogs: opening one only marks it open, which is all these tests read.
  Object.assign(HTMLDialogElement.prototype, {
    showModal(this: HTMLDialogElement) {
      this.open = true;
    },
    close(this: HTMLDialogElement) {
      this.open = false;
    },
  });
});

/** A server view named `name`, with a fresh object each call (as every list the core sends). */
const view = (name: string) => {
  const v = stored(1);
  return { ...v, server: { ...v.server, name } };
};
const names = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);

function renderList(initial: string[]) {
  const { api } = fakeApi();
  const store = createRootStore(api);
  let listed = [...initial];
  const send = (next: string[]) => {
    listed = next;
    act(() => store.getState().serversChanged(listed.map(view)));
  };
  send(listed);
  const user = userEvent.setup();
  render(
    <StoreProvider store={store} api={api}>
      <ServerList />
    </StoreProvider>,
  );
  const scroller = document.querySelector<HTMLElement>('.server-scroll')!;
  const scrollTo = (top: number) => {
    Object.defineProperty(scroller, 'scrollTop', { value: top, configurable: true });
    act(() => void scroller.dispatchEvent(new Event('scroll')));
  };
  return { store, user, send, scrollTo, listed: () => listed };
}

const row = (name: string) => document.querySelector<HTMLElement>(`[data-server="${name}"]`);
const findRow = async (name: string) => {
  await screen.findByText(name, { selector: 'h3' });
  return row(name)!;
};

// Over 40 servers the list is windowed; up to 40 it renders every row.
describe.each([
  ['windowed', 60],
  ['every row rendered', 12],
])('a row of the Servers list (%s)', (_label, count) => {
  const first = names('m', count);
  const target = first[1]!;

  it('keeps a half-typed domain while servers are added above and below and the list is sent again', async () => {
    const { user, send } = renderList(first);
    await user.click(within(row(target)!).getByRole('button', { name: /\+ Domain/ }));
    await user.type(within(row(target)!).getByRole('textbox', { name: /Domain/ }), 'api.half');
    send([...names('a', 5), ...first, ...names('z', 5)]);
    send([...names('a', 6), ...first.filter((n) => n !== first[0])]);
    send([...names('a', 6), ...first.slice(1)]);
    const field = within(row(target)!).getByRole('textbox', { name: /Domain/ });
    expect(field).toHaveProperty('value', 'api.half');
  });

  it('keeps an open remove confirmation while a copy is added next to it and others above', async () => {
    const { user, send } = renderList(first);
    await user.click(within(row(target)!).getByRole('button', { name: /^Remove/ }));
    expect(screen.getByRole('dialog', { name: `Remove "${target}"?` })).toHaveProperty(
      'open',
      true,
    );
    send([...first, `${target}-copy`]);
    send([...names('a', 8), ...first, `${target}-copy`]);
    expect(screen.getByRole('dialog', { name: `Remove "${target}"?` })).toHaveProperty(
      'open',
      true,
    );
  });

  it('keeps a half-typed domain while the list is scrolled a few rows away and back', async () => {
    const { user, scrollTo } = renderList(first);
    await user.click(within(row(target)!).getByRole('button', { name: /\+ Domain/ }));
    await user.type(within(row(target)!).getByRole('textbox', { name: /Domain/ }), 'api.half');
    // The focus left the row (a click elsewhere): the open field alone keeps it.
    act(() => (document.activeElement as HTMLElement).blur());
    scrollTo(1500);
    scrollTo(0);
    const field = within(row(target)!).getByRole('textbox', { name: /Domain/ });
    expect(field).toHaveProperty('value', 'api.half');
  });

  it('lets a row go once nothing is open in it', async () => {
    const { user, scrollTo } = renderList(first);
    await user.click(within(row(target)!).getByRole('button', { name: /^Remove/ }));
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await user.click(within(row(target)!).getByRole('button', { name: /\+ Domain/ }));
    await user.click(within(row(target)!).getByRole('button', { name: 'Cancel' }));
    act(() => (document.activeElement as HTMLElement).blur());
    scrollTo(1500);
    expect(row(target)).toBeNull();
    expect(row(first.at(-1)!) === null).toBe(count > 20);
  });

  it('keeps a half-typed domain across a reconnection, the refetch that follows and live activity', async () => {
    const { api, listeners, calls } = fakeApi({
      'servers.list': () => Promise.resolve(first.map(view)),
      // No managed layer: the rows then lock nothing, as in the other tests.
      'policy.get': () => Promise.reject(new Error('no managed layer here')),
    });
    const frames = manualFrames();
    const store = createRootStore(api, { frame: frames.schedule });
    let status: (s: ConnectionStatus) => void = () => undefined;
    bindCore(store, {
      api,
      status: { kind: 'open' },
      onStatus: (l) => ((status = l), () => undefined),
    });
    const user = userEvent.setup();
    render(
      <StoreProvider store={store} api={api}>
        <ServerList />
      </StoreProvider>,
    );
    await user.click(within(await findRow(target)).getByRole('button', { name: /\+ Domain/ }));
    await user.type(within(row(target)!).getByRole('textbox', { name: /Domain/ }), 'api.half');
    act(() => status({ kind: 'waiting', attempt: 1, retryInMs: 500 }));
    act(() => status({ kind: 'open' }));
    // The lists fetched again on the new connection arrive.
    await act(() => Promise.resolve());
    expect(calls.filter((c) => c.op === 'servers.list')).toHaveLength(2);
    act(() => listeners.get('audit.batch')?.([auditRow(1, { server: target }), auditRow(2)]));
    act(() => frames.runFrame());
    const field = within(row(target)!).getByRole('textbox', { name: /Domain/ });
    expect(field).toHaveProperty('value', 'api.half');
  });
});
