/**
 * The policy Warden proposes for an imported stdio server: the default (sandboxed, no files, no
 * network) plus what its launcher preset, its catalogue entry and VS Code's own sandbox block
 * say it needs. Every grant carries the reason it was proposed, so nothing is granted unseen.
 */
import { argRuleText } from '../policy/arg-rules';
import { defaultPolicy } from '../policy/defaults';
import type { LaunchSpec, Policy } from '../policy/policy-schema';
import type { VsCodeSandbox } from './client-entries';
import {
  type NamedRoot,
  type PresetCatalogue,
  type PresetRoot,
  matchLauncher,
  matchServer,
} from './preset-types';

/** Folders the presets' placeholders stand for on this machine. */
export interface PresetPlaces {
  home: string;
  cache: string;
  dataHome: string;
  /** The user's own npm settings that the presets name (`npmrcEnv`), as read from their npm config. */
  npmrc?: Readonly<Record<string, string>>;
}

export interface ProposedRoot extends PresetRoot {
  /** Where the grant came from: a preset id, `vscode-sandbox`, `binary`. */
  from: string;
}

export interface Proposal {
  policy: Policy;
  /** Preset ids applied, launcher first. */
  presets: string[];
  roots: ProposedRoot[];
  notes: string[];
}

/** The folder part of a path (POSIX or Windows), without a trailing separator. */
export function parentDir(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '');
  const at = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  if (at < 0) return trimmed;
  if (at === 0) return '/';
  return trimmed.slice(0, at);
}

const isAbsolute = (p: string) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p);

function fill(template: string, places: PresetPlaces, scriptDir?: string): string | undefined {
  let missing = false;
  const out = template.replace(/\$\{(home|cache|dataHome|scriptDir)\}/g, (_, name: string) => {
    if (name === 'scriptDir') {
      if (!scriptDir) missing = true;
      return scriptDir ?? '';
    }
    return places[name as 'home' | 'cache' | 'dataHome'];
  });
  return missing ? undefined : out;
}

function flagValue(args: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === flag) return args[i + 1];
    if (a.startsWith(`${flag}=`)) return a.slice(flag.length + 1);
  }
  return undefined;
}

const isWithin = (path: string, folder: string) =>
  path === folder || path.startsWith(folder.endsWith('/') ? folder : `${folder}/`);

const MODE_RANK = { none: 0, allowlist: 1, ask: 2 } as const;

/** Proposes a policy for `launch` (paths already resolved) with `env` as set for the server. */
export function proposePolicy(
  launch: LaunchSpec,
  env: Readonly<Record<string, string>>,
  catalogue: PresetCatalogue,
  places: PresetPlaces,
  sandbox?: VsCodeSandbox,
): Proposal {
  const policy = defaultPolicy();
  const roots: ProposedRoot[] = [];
  const notes: string[] = [];
  const presets: string[] = [];
  const addRoot = (root: PresetRoot, from: string) => {
    if (!isAbsolute(root.path)) {
      notes.push(`not granted: "${root.path}" (${root.why}) is not an absolute path`);
      return;
    }
    const same = roots.find((r) => r.path === root.path);
    if (same) {
      if (root.access === 'write') same.access = 'write';
      return;
    }
    roots.push({ ...root, from });
  };
  const addNetwork = (
    network: { mode: Policy['network']['mode']; allow: string[] } | undefined,
  ) => {
    if (!network) return;
    if (MODE_RANK[network.mode] > MODE_RANK[policy.network.mode])
      policy.network.mode = network.mode;
    for (const host of network.allow)
      if (!policy.network.allow.includes(host)) policy.network.allow.push(host);
  };

  const launcher = matchLauncher(catalogue, launch.command, launch.args);
  let scriptDir: string | undefined;
  if (launcher) {
    presets.push(launcher.preset.id);
    if (launcher.preset.target === 'script' && launcher.target) {
      const base = launch.cwd ?? '';
      const script = isAbsolute(launcher.target)
        ? launcher.target
        : base && `${base}/${launcher.target}`;
      if (script) scriptDir = parentDir(script);
      else
        notes.push(`the script "${launcher.target}" is a relative path: grant its folder by hand`);
      const modules = script ? /^(.*?[\\/]node_modules)[\\/]/.exec(script) : null;
      if (modules)
        addRoot(
          {
            path: modules[1]!,
            access: 'read',
            why: 'the installed packages the script loads, read-only',
          },
          launcher.preset.id,
        );
    }
    for (const root of launcher.preset.roots) {
      const path = fill(root.path, places, scriptDir);
      if (path) addRoot({ ...root, path }, launcher.preset.id);
    }
    addNetwork(launcher.preset.network);
    for (const name of launcher.preset.envPass) policy.env.pass.push(name);
    for (const [name, template] of Object.entries(launcher.preset.env)) {
      const folder = fill(template, places, scriptDir);
      // Only a folder granted above: the variable never points the server anywhere else.
      if (folder && roots.some((r) => r.access === 'write' && isWithin(folder, r.path)))
        policy.env.set[name] = { kind: 'plain', value: folder };
    }
    for (const [name, { setting, why }] of Object.entries(launcher.preset.npmrcEnv)) {
      const value = places.npmrc?.[setting];
      if (value === undefined) continue;
      policy.env.set[name] = { kind: 'plain', value };
      notes.push(`${name}=${value}, from ${setting} in your npm config: ${why}`);
    }
  } else if (isAbsolute(launch.command) && launch.command.startsWith(`${places.home}/`)) {
    presets.push('binary');
    addRoot(
      { path: parentDir(launch.command), access: 'read', why: "the program's folder, read-only" },
      'binary',
    );
  } else {
    presets.push('binary');
  }

  const server = matchServer(catalogue, launcher?.target);
  if (server) {
    presets.push(server.id);
    for (const root of server.roots) {
      const path = fill(root.path, places, scriptDir);
      if (path) addRoot({ ...root, path }, server.id);
    }
    const rest = launcher?.rest ?? [];
    if (server.positionalRoots) {
      for (const arg of rest.filter((a) => !a.startsWith('-')))
        addRoot(
          { path: arg, access: server.positionalRoots, why: `a folder given to ${server.label}` },
          server.id,
        );
    }
    const addNamed = (value: string | undefined, root: NamedRoot, why: string) => {
      if (value)
        addRoot(
          { path: root.parent ? parentDir(value) : value, access: root.access, why },
          server.id,
        );
    };
    for (const f of server.flagRoots) addNamed(flagValue(rest, f.flag), f, `given with ${f.flag}`);
    for (const e of server.envRoots) addNamed(env[e.name], e, `named by ${e.name}`);
    addNetwork(server.network);
    policy.tools.approval.push(...server.approval);
    if (server.unprotect.length > 0) {
      policy.guards = { hide: [], unhide: [], unprotect: [...server.unprotect] };
      notes.push(
        `${server.label} writes ${server.unprotect.join(', ')} in its folders, which Warden keeps read-only for other servers (code planted there runs outside any sandbox): an exception`,
      );
    }
    if (server.argRules.length > 0) {
      policy.tools.argRules = server.argRules.map((r) => ({ ...r }));
      notes.push(
        `argument rules for ${server.label}: ${server.argRules.map(argRuleText).join(', ')} (checked before each call)`,
      );
    }
  }

  if (sandbox) {
    presets.push('vscode-sandbox');
    for (const path of sandbox.allowWrite)
      addRoot(
        { path, access: 'write', why: "writable in VS Code's sandbox block" },
        'vscode-sandbox',
      );
    if (sandbox.allowedDomains.length > 0)
      addNetwork({ mode: 'allowlist', allow: sandbox.allowedDomains });
    policy.network.deny.push(...sandbox.deniedDomains);
    if (sandbox.denyRead.length > 0 || sandbox.denyWrite.length > 0)
      notes.push(
        `VS Code's sandbox denied ${[...sandbox.denyRead, ...sandbox.denyWrite].join(', ')}: Warden shows nothing that is not granted, so these stay hidden unless a granted folder contains them`,
      );
    notes.push(
      "VS Code's sandbox lets a server read most files; Warden shows it only the folders listed here",
    );
  }

  policy.filesystem.roots = roots.map(({ path, access }) => ({ path, access }));
  return { policy, presets, roots, notes };
}
