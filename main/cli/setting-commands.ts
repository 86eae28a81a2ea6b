/**
 * The commands that change Warden's own settings rather than a server's: the guards every server
 * inherits (`policy`), the OpenTelemetry export (`telemetry`) and the start at login
 * (`autostart`). Part of the table of commands in command-specs.ts.
 */
import { type CommandGroup, command, json } from './command-spec';
import { flagTable } from './flag-specs';

export const globalPolicy: CommandGroup = {
  name: 'policy',
  summary: 'the guards every server inherits, and the managed policy above them',
  subcommands: [
    command(
      'policy show [--json]',
      'hidden paths, network deny and allow patterns, limits, and the isolation and workspace switches',
      {
        details:
          'Also shows the managed policy (/etc/mcp-warden/managed-policy.json, or the file\n' +
          'WARDEN_MANAGED_POLICY names), which no server can weaken.',
        flags: [json],
      },
    ),
    command('policy edit [flags]', 'change the guards every server inherits', {
      details:
        'A server may still hide more (servers edit NAME --hide PATH) or show one inherited\n' +
        'path to itself alone (--unhide PATH), an exception recorded in the audit log.',
      flags: flagTable(`
        --hide PATH                    hide PATH (~/x, /abs, or a name such as .env.*)
        --unhide PATH                  stop hiding PATH for every server
        --deny PATTERN                 a destination every server is refused
        --undeny PATTERN               remove a global deny pattern
        --allow-only PATTERN           limit every server to destinations within these patterns
        --unallow PATTERN              remove a pattern from that list (an empty list allows none)
        --allow-any                    drop that list: each server's own rules decide again
        --allow-off yes|no             whether a server may run with isolation off
        --allow-best-effort yes|no     whether a limit the host cannot enforce may be best-effort
        --workspace-exceptions yes|no  whether a server may be let write a workspace file (.git, …)
      `),
    }),
  ],
};

export const telemetry: CommandGroup = {
  name: 'telemetry',
  summary: 'export the audit log and call spans as OpenTelemetry (off by default)',
  subcommands: [
    command(
      'telemetry set --endpoint URL [--header NAME:VALUE]...',
      'send every audit event (a log record) and tools/call (a span) to an OTLP/HTTP collector',
      {
        details:
          'What is sent is what the audit log holds, secrets already redacted. Header values are\n' +
          'kept in config.json. A slow or unreachable collector never delays a call: events it\n' +
          'cannot take are dropped and counted in a warning (the audit log keeps them all).',
        flags: flagTable(`
          --endpoint URL           the collector's base address, e.g. http://127.0.0.1:4318
          --header NAME:VALUE      sent with every export (repeatable), e.g. 'Authorization: Bearer …'
        `),
      },
    ),
    command('telemetry off', 'stop exporting'),
    command('telemetry show [--json]', 'where the audit log is exported, if anywhere', {
      flags: [json],
    }),
  ],
};

export const autostart: CommandGroup = {
  name: 'autostart',
  summary: 'start `warden serve` at login, so that AI clients join it',
  subcommands: [
    command('autostart on [--gateway-port N]', 'start `warden serve --no-open` at login', {
      details:
        'A Warden that runs before any AI client starts lets every `warden connect` join it\n' +
        'instead of starting a core of its own, so servers answer sooner. Linux: an XDG autostart\n' +
        'entry ($XDG_CONFIG_HOME/autostart/mcp-warden.desktop); macOS: a LaunchAgent. It starts\n' +
        "this install for this state folder; it replaces another Warden entry (the app's too).",
      flags: flagTable(`
        --gateway-port N   the gateway port it serves (default 47821)
      `),
    }),
    command('autostart off', 'remove the login entry (whichever Warden it starts)'),
    command(
      'autostart show [--gateway-port N] [--json]',
      'whether Warden starts at login, and what',
      {
        details: 'The entry is on when it holds what `autostart on` with the same flags writes.',
        flags: [{ name: '--gateway-port', value: 'N', help: 'as given to `autostart on`' }, json],
      },
    ),
  ],
};
