/** What the tray shows for a number of pending grants (pure, so it is tested without Electron). */

/** The tray tooltip and title for `pending` grants waiting for the user. */
export function trayLabel(pending: number): { tooltip: string; title: string } {
  const n = Number.isFinite(pending) && pending > 0 ? Math.floor(pending) : 0;
  if (n === 0) return { tooltip: 'MCP Warden', title: '' };
  return {
    tooltip: `MCP Warden: ${n} pending ${n === 1 ? 'request' : 'requests'}`,
    title: n > 99 ? '99+' : String(n),
  };
}
