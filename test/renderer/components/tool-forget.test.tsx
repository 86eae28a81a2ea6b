// @vitest-environment jsdom
/**
 * Forgetting a tool's pinned definition from the Tools tab: asked first with what it gives up,
 * nothing sent on "Keep it", the core asked on "Forget", and the tool gone from the list once the
 * core's newer server arrives; and a pin the server's whole listings leave out is marked.
 */
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { ContractCallError } from '../../../app/contract/contract-error';
import { renderEditor, stored } from './render-editor';

afterEach(cleanup);

const forgetCalls = (calls: Array<{ op: string; input: unknown }>) =>
  calls.filter((c) => c.op === 'tools.forget').map((c) => c.input);

it('asks before forgetting, then asks the core, and the tool leaves the list', async () => {
  const { user, store, calls } = renderEditor(stored(3), {
    'tools.forget': () => Promise.resolve({ forgotten: true }),
  });
  await user.click(screen.getByRole('tab', { name: 'Tools' }));
  const forget = () => screen.getByRole('button', { name: 'Forget the pinned definition of read' });
  await user.click(forget());
  const asked = screen.getByRole('group', { name: 'Forget read' });
  expect(asked.textContent).toContain('a change made meanwhile is not shown as drift');
  await user.click(screen.getByRole('button', { name: 'Keep it' }));
  expect(screen.queryByRole('group', { name: 'Forget read' })).toBeNull();
  expect(forgetCalls(calls)).toEqual([]);

  await user.click(forget());
  await user.click(screen.getByRole('button', { name: 'Forget' }));
  expect(forgetCalls(calls)).toEqual([{ server: 'files', tool: 'read' }]);
  const without = stored(4, (p) => ({ ...p, tools: { ...p.tools, pinned: {} } }));
  act(() => store.getState().serversChanged([without]));
  expect(document.querySelector('[data-tool="read"]')).toBeNull();
  expect(screen.getByText(/No tools seen yet/)).toBeTruthy();
});

it('says why the core refused', async () => {
  const { user } = renderEditor(stored(3), {
    'tools.forget': () =>
      Promise.reject(
        new ContractCallError({ kind: 'not-found', message: 'no server named "files"' }),
      ),
  });
  await user.click(screen.getByRole('tab', { name: 'Tools' }));
  await user.click(screen.getByRole('button', { name: 'Forget the pinned definition of read' }));
  await user.click(screen.getByRole('button', { name: 'Forget' }));
  expect((await screen.findByText(/^Not forgotten:/)).textContent).toBe(
    'Not forgotten: no server named "files"',
  );
});

it('marks a pinned tool the server’s whole listings leave out', async () => {
  const { user, store } = renderEditor(stored(3));
  await user.click(screen.getByRole('tab', { name: 'Tools' }));
  const item = () => document.querySelector('[data-tool="read"]') as HTMLElement;
  expect(item().querySelector('[data-unlisted]')).toBeNull();
  act(() =>
    store
      .getState()
      .listingsChanged([
        { server: 'files', unlisted: [{ name: 'read', since: '2026-01-01T10:00:00Z' }] },
      ]),
  );
  expect(item().textContent).toContain('not listed');
  expect(item().querySelector('[data-unlisted]')!.textContent).toMatch(
    /^Left out of the server’s tool listings since .+: it may no longer offer this tool\./,
  );
  // Another server's listing says nothing of this one.
  act(() =>
    store
      .getState()
      .listingsChanged([
        { server: 'other', unlisted: [{ name: 'read', since: '2026-01-01T10:00:00Z' }] },
      ]),
  );
  expect(item().querySelector('[data-unlisted]')).toBeNull();
});
