/**
 * The app when its core cannot start (here an audit log path that is a folder): the failure and
 * what to do about it are shown in an error box and the app exits, rather than running on with
 * no core and no window.
 */
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { electronStub } from '../../test/helpers/electron-stub';

vi.mock('electron', () => import('../../test/helpers/electron-stub'));

describe('Electron main process, core that cannot start', () => {
  it('shows why with the remedy and exits', async () => {
    const { errorBoxes, exits, windows } = electronStub;
    process.env.WARDEN_GATEWAY_PORT = '0';
    process.env.WARDEN_HOME = await mkdtemp(join(tmpdir(), 'warden-electron-fail-'));
    const auditPath = join(process.env.WARDEN_HOME, 'audit.db');
    await mkdir(auditPath);
    await import('./electron-main');
    await vi.waitFor(() => expect(exits).toEqual([1]));
    expect(errorBoxes).toHaveLength(1);
    expect(errorBoxes[0]!.title).toBe('MCP Warden could not start');
    expect(errorBoxes[0]!.content).toContain(`Cannot open the audit log ${auditPath}`);
    expect(errorBoxes[0]!.content).toContain(`${auditPath} is not a file: move it aside`);
    expect(windows).toHaveLength(0);
  });
});
