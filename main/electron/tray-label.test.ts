import { describe, expect, it } from 'vitest';
import { trayLabel } from './tray-label';

describe('tray label', () => {
  it('shows the number of pending requests', () => {
    expect(trayLabel(0)).toEqual({ tooltip: 'MCP Warden', title: '' });
    expect(trayLabel(1)).toEqual({ tooltip: 'MCP Warden: 1 pending request', title: '1' });
    expect(trayLabel(7)).toEqual({ tooltip: 'MCP Warden: 7 pending requests', title: '7' });
    expect(trayLabel(250).title).toBe('99+');
    expect(trayLabel(-3)).toEqual(trayLabel(0));
    expect(trayLabel(Number.NaN)).toEqual(trayLabel(0));
  });
});
