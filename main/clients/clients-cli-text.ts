/** How the clients commands print previews, diffs and status for a person at a terminal. */
import type {
  ClientStatus,
  ConnectPreview,
  ConnectResult,
  ImportPreview,
} from '../../app/contract/clients';
import { showUntrusted } from '../../app/text/untrusted-text';
import { shellQuote } from '../core/command-line';

/** Client files and server names are untrusted: shown escaped, one line each. */
const u = (text: string): string => showUntrusted(text);

const STATUS_TEXT: Record<ImportPreview['candidates'][number]['status'], string> = {
  ready: 'ready to import',
  imported: 'already imported',
  remote: 'remote — not imported',
  invalid: 'not importable',
  'through-warden': 'already through Warden',
};

/** The import preview of one file. */
export function describePreview(preview: ImportPreview): string {
  const lines = [`${preview.label}: ${u(preview.file)}`, `Secrets: ${u(preview.secretStore)}`, ''];
  for (const c of preview.candidates) {
    const target =
      c.status === 'ready' || c.status === 'imported' ? ` → Warden server "${u(c.name)}"` : '';
    lines.push(`  ${u(c.entryName)}  (${STATUS_TEXT[c.status]}${target})`);
    if (c.commandLine) lines.push(`    command:   ${u(c.commandLine)}`);
    if (c.launch?.cwd) lines.push(`    folder:    ${u(c.launch.cwd)}`);
    if (c.policy) {
      const p = c.policy;
      lines.push(`    presets:   ${u(c.presets.join(', ')) || '(none)'}`);
      lines.push(`    isolation: ${p.isolation}`);
      lines.push(
        `    files:${c.roots.length ? '' : '     (none)'}`,
        ...c.roots.map(
          (r) => `      ${u(r.path)} (${r.access === 'write' ? 'rw' : 'ro'}) — ${u(r.why)}`,
        ),
      );
      const net = [
        p.network.mode,
        ...(p.network.allow.length ? [`allow ${p.network.allow.join(', ')}`] : []),
        ...(p.network.deny.length ? [`deny ${p.network.deny.join(', ')}`] : []),
      ];
      lines.push(`    network:   ${u(net.join('; '))}`);
      if (c.env.length)
        lines.push(`    env:       ${u(c.env.map((e) => `${e.key}: ${e.shown}`).join('; '))}`);
      if (p.tools.approval.length) lines.push(`    ask first: ${u(p.tools.approval.join(', '))}`);
    }
    for (const w of c.warnings) lines.push(`    WARNING:   ${u(w.message)}`);
    for (const n of c.notes) lines.push(`    note:      ${u(n)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A connect preview or result: the diff, what was rewritten and what was left alone. */
export function describeConnect(c: ConnectPreview | ConnectResult): string {
  const lines = [`${u(c.file)} (${c.transport}):`];
  for (const r of c.rewritten)
    lines.push(
      r.updated
        ? `  ${u(r.entryName)} → through Warden server "${u(r.server)}" (already; its start command becomes this Warden's)`
        : `  ${u(r.entryName)} → through Warden server "${u(r.server)}"`,
    );
  for (const x of c.untouched) lines.push(`  ${u(x.entryName)}: unchanged (${u(x.reason)})`);
  // The diff is shown line by line, each line escaped (a client file may hold any character).
  lines.push('', c.diff ? c.diff.replace(/\n$/, '').split('\n').map(u).join('\n') : '(no change)');
  if (c.transport === 'http')
    lines.push(
      'Over HTTP the client reaches Warden only while the Warden app or "warden serve" runs; use --transport stdio to have it start Warden itself.',
    );
  if ('backup' in c) {
    for (const n of c.notes ?? []) lines.push(`note: ${u(n)}`);
    lines.push(
      `Backup of the original file: ${u(c.backup)}`,
      'Restart the client to pick up the change.',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `clients list`. */
export function describeClients(status: ClientStatus[]): string {
  const lines: string[] = [];
  for (const s of status) {
    lines.push(`${s.label} (${s.client}): ${s.installed ? 'installed' : 'not found'}`);
    for (const f of s.files.filter((f) => f.exists)) {
      lines.push(
        `  ${u(f.path)}${f.connected ? ` — connected (backup: ${u(f.backup ?? '?')})` : ''}`,
      );
      if (f.gatewayToken)
        lines.push(
          `    gateway token: ${f.gatewayToken.state} (since ${f.gatewayToken.createdAt})${f.gatewayToken.revokedWhy ? `: ${u(f.gatewayToken.revokedWhy)}` : ''}`,
        );
      if (f.error) {
        lines.push(`    ${f.problem ? `this file ${u(f.problem)}` : `cannot read: ${u(f.error)}`}`);
        if (f.remedy) lines.push(`    to fix: ${u(f.remedy)}`);
      }
      for (const v of f.servers)
        lines.push(
          `    ${u(v.entryName)}: ${v.throughWarden ? `through Warden ("${u(v.throughWarden)}")${v.startCommandOutdated ? ', with an older start command' : ''}` : v.kind === 'remote' ? 'remote, not through Warden' : v.kind === 'invalid' ? 'not runnable as written' : 'not through Warden'}`,
        );
      if (f.servers.some((v) => v.startCommandOutdated))
        lines.push(
          `    To update the start command: warden clients connect ${s.client} --path ${u(shellQuote(f.path))}`,
        );
    }
  }
  return `${lines.join('\n')}\n`;
}
