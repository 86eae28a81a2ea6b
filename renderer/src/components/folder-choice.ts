/**
 * The folder to add to a server, chosen with the desktop shell's system folder picker when the
 * shell offers one (Electron); in a browser there is none and the path is typed.
 */
import type { DesktopShell } from '../contract-client/desktop-shell';

/**
 * Opens the shell's folder picker; resolves to the chosen absolute path, or undefined when the
 * shell has no picker, the user cancelled, or the answer is not an absolute path.
 */
export async function pickFolderToAdd(shell: DesktopShell): Promise<string | undefined> {
  if (!shell.pickFolder) return undefined;
  const chosen = await shell.pickFolder();
  return typeof chosen === 'string' && chosen.startsWith('/') ? chosen : undefined;
}
