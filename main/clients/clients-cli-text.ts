/** How the clients commands print previews, diffs and status for a person at a terminal. */
import type {
  ClientStatus,
  ConnectPreview,
  ConnectResult,
  ImportPreview,
} from '../../app/contract/clients';

const STATUS_TEXT: Record<ImportPreview['candidates'][number]['status'], string> = {
  ready: 'ready to import',
  imported: 'already imported',
  remote: 'remote — not imported',
  invalid: 'not importable',
  'through-warden': 'already through Warden',
};

/** The import preview of one file. */
export function describePreview(preview: ImportPreview): string {
  const lines = [`${preview.label}: ${preview.file}`, `Secrets: ${preview.secretStore}`, ''];
  for (const c of preview.candidates) {
    const target =
      c.status === 'ready' || c.status === 'imported' ? ` → Warden server "${c.name}"` : '';
    lines.push(`  ${c.entryName}  (${STATUS_TEXT[c.status]}${target})`);
    if (c.commandLine) lines.push(`    command:   ${c.commandLine}`);
    if (c.launch?.cwd) lines.push(`    folder:    ${c.launch.cwd}`);
    if (c.policy) {
      const p = c.policy;
      lines.push(`    presets:   ${c.presets.join(', ') || '(none)'}`);
      lines.push(`    isolation: ${p.isolation}`);
      lines.push(
        `    files:${c.roots.length ? '' : '     (none)'}`,
        ...c.roots.map((r) => `      ${r.path} (${r.access === 'write' ? 'rw' : 'ro'}) — ${r.why}`),
      );
      const net = [
        p.network.mode,
        ...(p.network.allow.length ? [`allow ${p.network.allow.join(', ')}`] : []),
        ...(p.network.deny.length ? [`deny ${p.network.deny.join(', ')}`] : []),
      ];
      lines.push(`    network:   ${net.join('; ')}`);
      if (c.env.length)
        lines.push(`    env:       ${c.env.map((e) => `${e.key}: ${e.shown}`).join('; ')}`);
      if (p.tools.approval.length) lines.push(`    ask first: ${p.tools.approval.join(', ')}`);
    }
    for (const w of c.warnings) lines.push(`    WARNING:   ${w.message}`);
    for (const n of c.notes) lines.push(`    note:      ${n}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A connect preview or result: the diff, what was rewritten and what was left alone. */
export function describeConnect(c: ConnectPreview | ConnectResult): string {
  const lines = [`${c.file} (${c.transport}):`];
  for (const r of c.rewritten) lines.push(`  ${r.entryName} → through Warden server "${r.server}"`);
  for (const u of c.untouched) lines.push(`  ${u.entryName}: unchanged (${u.reason})`);
  lines.push('', c.diff || '(no change)');
  if (c.transport === 'http')
    lines.push(
      'Over HTTP the client reaches Warden only while the Warden app or "warden serve" runs; use --transport stdio to have it start Warden itself.',
    );
  if ('backup' in c)
    lines.push(
      `Backup of the original file: ${c.backup}`,
      'Restart the client to pick up the change.',
    );
  return `${lines.join('\n')}\n`;
}

/** `clients list`. */
export function describeClients(status: ClientStatus[]): string {
  const lines: string[] = [];
  for (const s of status) {
    lines.push(`${s.label} (${s.client}): ${s.installed ? 'installed' : 'not found'}`);
    for (const f of s.files.filter((f) => f.exists)) {
      lines.push(`  ${f.path}${f.connected ? ` — connected (backup: ${f.backup ?? '?'})` : ''}`);
      if (f.error) lines.push(`    cannot read: ${f.error}`);
      for (const v of f.servers)
        lines.push(
          `    ${v.entryName}: ${v.throughWarden ? `through Warden ("${v.throughWarden}")` : v.kind === 'remote' ? 'remote, not through Warden' : v.kind === 'invalid' ? 'not runnable as written' : 'not through Warden'}`,
        );
    }
  }
  return `${lines.join('\n')}\n`;
}
