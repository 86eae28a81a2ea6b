/**
 * The presets catalogue (resources/presets): launcher presets (`npx`, `uvx`, `pipx`, `node`,
 * `python`, a binary) and well-known servers, each a starting policy the user sees and edits.
 * Paths may use `${home}`, `${cache}`, `${dataHome}` and `${scriptDir}`.
 */
import { WORKSPACE_NAMES } from '../policy/workspace-files';
import { z } from 'zod';
import { argRuleSchema, networkModeSchema } from '../policy/policy-schema';

const presetRootSchema = z.object({
  path: z.string().min(1),
  access: z.enum(['read', 'write']),
  /** Why the server needs it, shown next to the root in the preview. */
  why: z.string(),
});
export type PresetRoot = z.infer<typeof presetRootSchema>;

const presetNetworkSchema = z.object({
  mode: networkModeSchema,
  allow: z.array(z.string()).default([]),
  why: z.string().optional(),
});

export const launcherPresetSchema = z.object({
  id: z.string().min(1),
  label: z.string(),
  /** Command names (basename, without `.cmd`/`.exe`) this preset applies to. */
  commands: z.array(z.string()),
  /** Leading arguments that must follow the command (e.g. `["run"]` for `pipx run`). */
  subcommand: z.array(z.string()).default([]),
  /** `package`: the first positional argument names a package; `script`: a script file. */
  target: z.enum(['package', 'script', 'none']),
  roots: z.array(presetRootSchema).default([]),
  network: presetNetworkSchema.optional(),
  envPass: z.array(z.string()).default([]),
  /**
   * Variables set for the server, each naming a folder this preset grants (placeholders allowed):
   * a package manager's cache, which otherwise follows the sandbox's empty home.
   */
  env: z.record(z.string(), z.string()).default({}),
  /**
   * Variables set from a setting in the user's npm config (`~/.npmrc`), which the sandbox's empty
   * home hides (the file itself is never granted: it holds registry tokens). Only the named
   * setting is read, and a variable is set only where the user has that setting.
   */
  npmrcEnv: z.record(z.string(), z.object({ setting: z.string(), why: z.string() })).default({}),
});
export type LauncherPreset = z.infer<typeof launcherPresetSchema>;

/** A root named by an argument or a variable: that path, or its folder with `parent`. */
const namedRoot = {
  access: z.enum(['read', 'write']),
  parent: z.boolean().default(false),
};
export type NamedRoot = z.infer<z.ZodObject<typeof namedRoot>>;

export const serverPresetSchema = z.object({
  id: z.string().min(1),
  label: z.string(),
  /** Package or image names (without a version) that identify the server. */
  packages: z.array(z.string()).min(1),
  description: z.string(),
  roots: z.array(presetRootSchema).default([]),
  /** Positional arguments after the package are folders, granted with this access. */
  positionalRoots: z.enum(['read', 'write']).optional(),
  /** `--flag PATH` arguments whose value (or its folder, with `parent`) is a root. */
  flagRoots: z.array(z.object({ flag: z.string(), ...namedRoot })).default([]),
  /** Environment variables holding a path (or its folder, with `parent`) that is a root. */
  envRoots: z.array(z.object({ name: z.string(), ...namedRoot })).default([]),
  network: presetNetworkSchema.optional(),
  /** Tools that should ask the user before each call. */
  approval: z.array(z.string()).default([]),
  /** Argument rules proposed with the server (e.g. path arguments within its folders). */
  argRules: z.array(argRuleSchema).default([]),
  /** Workspace files it must write in its writable folders (an exception, shown as such). */
  unprotect: z.array(z.enum(WORKSPACE_NAMES)).default([]),
});
export type ServerPreset = z.infer<typeof serverPresetSchema>;

export const presetCatalogueSchema = z.object({
  launchers: z.array(launcherPresetSchema),
  servers: z.array(serverPresetSchema),
});
export type PresetCatalogue = z.infer<typeof presetCatalogueSchema>;

/** The base name of a command, without folders or a Windows extension. */
export function commandName(command: string): string {
  const base = command.split(/[\\/]/).pop() ?? command;
  return base.replace(/\.(cmd|exe|bat)$/i, '').toLowerCase();
}

/** Drops a version suffix from a package spec: `@scope/pkg@1.2` → `@scope/pkg`, `pkg==1` → `pkg`. */
export function packageName(spec: string): string {
  const at = spec.indexOf('@', 1);
  const base = at > 0 ? spec.slice(0, at) : spec;
  return base.split(/==|>=|<=|~=|\[/)[0]!;
}

/** The launcher preset for a command and its arguments, if any but the binary fallback. */
export function matchLauncher(
  catalogue: PresetCatalogue,
  command: string,
  args: readonly string[],
): { preset: LauncherPreset; target?: string; rest: string[] } | undefined {
  const name = commandName(command);
  for (const preset of catalogue.launchers) {
    if (!preset.commands.includes(name)) continue;
    const sub = preset.subcommand;
    if (sub.some((s, i) => args[i] !== s)) continue;
    const after = args.slice(sub.length);
    const at = after.findIndex((a) => !a.startsWith('-'));
    if (preset.target === 'none' || at < 0) return { preset, rest: [...after] };
    return { preset, target: after[at], rest: after.slice(at + 1) };
  }
  return undefined;
}

/**
 * The well-known server a launch target names (a package, or a script inside
 * `node_modules/<package>/`), if the catalogue knows it.
 */
export function matchServer(
  catalogue: PresetCatalogue,
  target: string | undefined,
): ServerPreset | undefined {
  if (!target) return undefined;
  const installed = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(target);
  const name = installed ? installed[1]!.replace('\\', '/') : packageName(target);
  return catalogue.servers.find((s) => s.packages.includes(name));
}
