// @vitest-environment jsdom
/**
 * The panel on 127.0.0.1 says it is on the port's own address, and what that means; on the
 * per-run name it says nothing.
 */
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FallbackOriginBanner } from '../../../renderer/src/components/fallback-origin-banner';
import { onFallbackOrigin } from '../../../renderer/src/contract-client/page-origin';

afterEach(cleanup);

describe('onFallbackOrigin', () => {
  it('is false on the per-run name only', () => {
    expect(onFallbackOrigin({ hostname: `${'3f'.repeat(16)}.localhost` })).toBe(false);
    expect(onFallbackOrigin({ hostname: '127.0.0.1' })).toBe(true);
    expect(onFallbackOrigin({ hostname: 'localhost' })).toBe(true);
    expect(onFallbackOrigin({ hostname: 'other.localhost' })).toBe(true);
  });
});

describe('FallbackOriginBanner', () => {
  it('names the address and the service worker risk, and points to the printed address', () => {
    render(<FallbackOriginBanner host="127.0.0.1:4312" />);
    const note = screen.getByRole('note', { name: 'Fallback address' });
    expect(note.textContent).toContain('This page is at 127.0.0.1:4312, which belongs to the port');
    expect(note.textContent).toContain('could have left a service worker here');
    expect(note.textContent).toContain('use the address warden serve printed');
  });
});
