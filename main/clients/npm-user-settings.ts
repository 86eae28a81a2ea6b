/**
 * The user's own npm settings that the launcher presets name (`npmrcEnv`), read on the host from
 * their npm user config (`~/.npmrc`, or where `NPM_CONFIG_USERCONFIG` points). Inside a sandbox
 * HOME is empty, so npm there never reads that file, and the file is never granted: it holds
 * registry tokens. So only the named settings are read, and nothing else of the file leaves here.
 *
 * The file is ini as npm reads it: `key=value` and `key[]=value` lines, `;` and `#` comments,
 * quoted values, and `${NAME}` (`${NAME?}`: empty when unset) replaced from the environment. A
 * setting npm could not read either (an unset `${NAME}`) or whose value holds a control character
 * is left out.
 */
import { join } from 'node:path';
import type { PresetCatalogue } from '../../app/clients/preset-types';
import { readRegularFileSync } from '../config/regular-file';
import type { LocationContext } from './client-locations';

/** A config file over this is not an npm config a person wrote: nothing is read from it. */
const MAX_FILE_BYTES = 256 * 1024;

/** The npm user config's path, as npm finds it (its `userconfig` setting from the environment). */
export function npmUserConfigPath(ctx: LocationContext): string {
  for (const [name, value] of Object.entries(ctx.env))
    if (name.toLowerCase() === 'npm_config_userconfig' && value) return value;
  return join(ctx.home, '.npmrc');
}

/** The settings of the catalogue's `npmrcEnv` that the user's npm config has, by setting name. */
export function npmUserSettings(
  ctx: LocationContext,
  catalogue: PresetCatalogue,
): Record<string, string> {
  const wanted = new Set(
    catalogue.launchers.flatMap((l) => Object.values(l.npmrcEnv).map((e) => e.setting)),
  );
  if (wanted.size === 0) return {};
  // Only a regular file is read: a FIFO or a device there must not hold the core or fill memory.
  const file = readRegularFileSync(npmUserConfigPath(ctx), MAX_FILE_BYTES);
  return file.ok ? npmrcSettings(file.value.text, wanted, ctx.env) : {};
}

/** The `wanted` top-level settings of an npm config file's text (a list setting joined by commas). */
export function npmrcSettings(
  text: string,
  wanted: ReadonlySet<string>,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const found = new Map<string, string[]>();
  const unreadable = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    // npm reads the keys before any section; a section's keys are not its settings.
    if (line.startsWith('[')) break;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    let key = line.slice(0, eq).trim();
    const list = key.endsWith('[]');
    if (list) key = key.slice(0, -2);
    if (!wanted.has(key)) continue;
    const value = settingValue(line.slice(eq + 1).trim(), env);
    if (value === undefined) unreadable.add(key);
    else found.set(key, list ? [...(found.get(key) ?? []), value] : [value]);
  }
  const settings: Record<string, string> = {};
  for (const [key, values] of found) {
    const value = values.join(',');
    if (!unreadable.has(key) && value !== '') settings[key] = value;
  }
  return settings;
}

/** A value as npm reads it: unquoted, its comment cut, variables replaced; undefined if unreadable. */
function settingValue(raw: string, env: Readonly<Record<string, string | undefined>>) {
  let value: string;
  const quote = raw[0];
  if ((quote === '"' || quote === "'") && raw.length > 1 && raw.endsWith(quote)) {
    value = raw.slice(1, -1);
  } else {
    const comment = /(?<!\\)[;#]/.exec(raw);
    value = (comment ? raw.slice(0, comment.index) : raw).trim().replace(/\\([;#])/g, '$1');
  }
  let unreadable = false;
  value = value.replace(/(?<!\\)\$\{([^${}?]+)(\?)?\}/g, (_, name: string, optional?: string) => {
    const replacement = env[name];
    if (replacement === undefined && !optional) unreadable = true;
    return replacement ?? '';
  });
  // eslint-disable-next-line no-control-regex
  if (unreadable || /[\u0000-\u001f\u007f]/.test(value)) return undefined;
  return value;
}
