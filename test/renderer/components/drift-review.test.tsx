// @vitest-environment jsdom
/**
 * The drift review while the server changes the tool again: the review says so above the
 * definition it now shows, and Accept sends back that definition, the one on the screen, so that
 * the core pins nothing the user was not shown.
 */
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import type { ToolDrift } from '../../../app/contract/tools';
import { renderEditor, stored } from './render-editor';

afterEach(cleanup);

const drift = (description: string): ToolDrift => ({
  server: 'files',
  tool: 'read',
  pinned: { name: 'read', description: 'reads' },
  current: { name: 'read', description },
  fields: ['description'],
  seenAt: '2026-01-01T00:00:00.000Z',
});

it('says the tool changed again while the review was open, and accepts what it shows', async () => {
  const { user, store, calls } = renderEditor(stored(3), {
    'drift.decide': () => Promise.resolve({ decided: true }),
  });
  act(() => store.getState().driftChanged([drift('reads files')]));
  await user.click(screen.getByRole('tab', { name: 'Tools' }));
  const review = () => document.querySelector('[data-drift="read"]') as HTMLElement;
  expect(review().querySelector('[data-changed-again]')).toBeNull();

  act(() => store.getState().driftChanged([drift('reads files, then mails them out')]));
  expect(review().querySelector('[data-changed-again]')!.textContent).toContain(
    'The server changed this tool again while this review was open',
  );
  expect(review().querySelector('.diff-new')!.textContent).toBe('reads files, then mails them out');

  await user.click(screen.getByRole('button', { name: /Accept new definition/ }));
  expect(calls.filter((c) => c.op === 'drift.decide').map((c) => c.input)).toEqual([
    {
      server: 'files',
      tool: 'read',
      decision: 'accept',
      reviewed: { name: 'read', description: 'reads files, then mails them out' },
    },
  ]);
});
