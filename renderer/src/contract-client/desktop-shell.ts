/**
 * The desktop-only extras the Electron preload may add to `window.warden` beside the contract:
 * system notifications, the dock/taskbar badge, the system folder picker and a save dialog. Each
 * is optional and detected; in a browser none exist and the page falls back (no notification, the
 * count in the tab title, a path field, a download).
 */

export interface DesktopShell {
  /** Raises a system notification; `tag` comes back through `onNotificationClick`. */
  notify?(notice: { title: string; body: string; tag: string }): void;
  /** Subscribes to clicks on notifications raised by `notify`; returns the unsubscribe. */
  onNotificationClick?(listener: (tag: string) => void): () => void;
  /** Shows `count` on the app's badge (0 clears it). */
  setBadgeCount?(count: number): void;
  /** Opens the system folder picker; resolves to the chosen absolute path, or undefined. */
  pickFolder?(): Promise<string | undefined>;
  /** Asks where to save `text` (a save dialog) and writes it; resolves to the path, if saved. */
  saveFile?(file: { suggestedName: string; text: string }): Promise<string | undefined>;
}

/** The shell extras present on this page's `window.warden`; in a browser only the title badge. */
export function desktopShell(win: Window = window): DesktopShell {
  const w = (win as { warden?: unknown }).warden as Record<string, unknown> | undefined | null;
  // The count also goes in the title: a browser tab has no badge, and a window title shows it.
  const titleBadge = (count: number) => {
    win.document.title = count > 0 ? `(${count}) MCP Warden` : 'MCP Warden';
  };
  if (!w) return { setBadgeCount: titleBadge };
  const pick = <K extends keyof DesktopShell>(k: K): DesktopShell[K] | undefined =>
    typeof w[k] === 'function'
      ? ((w[k] as (...a: never[]) => unknown).bind(w) as never)
      : undefined;
  return {
    notify: pick('notify'),
    onNotificationClick: pick('onNotificationClick'),
    setBadgeCount: (count: number) => {
      titleBadge(count);
      const badge = pick('setBadgeCount');
      badge?.(count);
    },
    pickFolder: pick('pickFolder'),
    saveFile: pick('saveFile'),
  };
}
