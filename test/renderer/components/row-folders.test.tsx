// @vitest-environment jsdom
/** A folder chip on a server's row: a long path shows its end, and is whole for the tooltip. */
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { RowFolders } from '../../../renderer/src/components/row-folders';

afterEach(cleanup);

it('cuts a long folder path in the middle on its chip, whole in its title and for screen readers', () => {
  const path = '/home/alex/projects/acme-website/content/blog/2026/winter-launch';
  render(
    <RowFolders
      server="files"
      roots={[{ path, access: 'read' }]}
      disabled={false}
      save={() => Promise.resolve(undefined)}
    />,
  );
  const text = document.querySelector('.chip-folder .chip-text');
  expect(text?.getAttribute('title')).toBe(path);
  const shown = text?.querySelector('[aria-hidden="true"]')?.textContent ?? '';
  expect(shown).toBe('/home/…/2026/winter-launch');
  expect(shown.length).toBeLessThanOrEqual(30);
  // The accessible text is the whole path, and the chip's buttons name it.
  expect(text?.querySelector('.visually-hidden')?.textContent).toBe(path);
  expect(screen.getByRole('button', { name: `Remove folder ${path} from files` })).toBeTruthy();
});
