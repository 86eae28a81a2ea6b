/** A core that serves server-everything, unsandboxed, as "everything", with its front doors open. */
import { defaultPolicy } from '../../app/policy/defaults';
import { type Core, createCore } from '../../main/core/core';
import { type FrontDoors, startFrontDoors } from '../../main/gateway/front-doors';
import { everythingServer } from './everything-server';
import { plainLauncher } from './plain-launcher';

export { everythingServer };

/** Creates the core on `home`, adds "everything" and opens the front doors (HTTP on any port). */
export async function everythingCore(home: string): Promise<{ core: Core; doors: FrontDoors }> {
  const core = await createCore({ wardenHome: home, launcher: plainLauncher() });
  await core.config.addServer({
    name: 'everything',
    launch: { command: process.execPath, args: [everythingServer, 'stdio'] },
    policy: { ...defaultPolicy(), isolation: 'off' },
    acknowledged: true,
  });
  const doors = await startFrontDoors(core, { httpPort: 0 });
  return { core, doors };
}
