/**
 * The login item of `warden serve`: this install's `warden` command (as AI clients' configs
 * start it) running `serve --no-open --no-token` for the same state folder and gateway port. Its
 * output goes to the session's log, so the session token is not printed there; `warden open`
 * signs a browser in.
 */
import { homedir } from 'node:os';
import { defaultWardenCommand } from '../clients/clients-context';
import { DEFAULT_GATEWAY_PORT } from '../gateway/front-doors';
import { type Autostart, fileAutostart } from './login-item';

export function serveAutostart(
  wardenHome: string,
  gatewayPort: number,
  env: NodeJS.ProcessEnv,
): Autostart {
  const warden = defaultWardenCommand(wardenHome, env);
  // A port chosen at random (0) is no place for clients to find at the next login: the default.
  const port =
    gatewayPort === DEFAULT_GATEWAY_PORT || gatewayPort === 0
      ? []
      : ['--gateway-port', String(gatewayPort)];
  return fileAutostart({
    platform: process.platform,
    home: env.HOME || homedir(),
    xdgConfigHome: env.XDG_CONFIG_HOME,
    login: {
      command: warden.command,
      args: [...warden.args, 'serve', '--no-open', '--no-token', ...port],
      env: warden.env,
      target: '`warden serve` in the background (`warden open` shows its control panel)',
    },
  });
}
