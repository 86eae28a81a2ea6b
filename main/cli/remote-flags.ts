/**
 * The flags of `servers add` that make a remote server: `--url`, `--header 'Name: value'`
 * (repeatable), `--transport`, and `--oauth` / `--oauth-scope SCOPE` for a server that signs in
 * with OAuth. Each bad value is a UsageError naming the flag.
 */
import type { HeaderInput, RemoteInput } from '../../app/contract/servers';
import { headerInputSchema } from '../../app/contract/servers';
import { remoteSchema } from '../../app/policy/policy-schema';
import { UsageError } from './cli-io';

/** Takes the remote flags out of `args`; `remote` is set when `--url` was given. */
export function parseRemoteFlags(args: readonly string[]): {
  remote?: RemoteInput;
  rest: string[];
} {
  let url: string | undefined;
  let transport: RemoteInput['transport'] | undefined;
  const headers: HeaderInput[] = [];
  const rest: string[] = [];
  let oauth: { scopes: string[] } | undefined;
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    if (token === '--oauth') {
      oauth ??= { scopes: [] };
      continue;
    }
    const eq = token.indexOf('=');
    const flag = token.startsWith('--') && eq > 0 ? token.slice(0, eq) : token;
    if (!['--url', '--header', '--transport', '--oauth-scope'].includes(flag)) {
      rest.push(token);
      continue;
    }
    const value = flag === token ? args[++i] : token.slice(eq + 1);
    if (value === undefined) throw new UsageError(`${flag}: needs a value`);
    if (flag === '--url') {
      if (url !== undefined) throw new UsageError('--url: give one URL');
      url = value;
    } else if (flag === '--transport') {
      if (value !== 'streamable-http' && value !== 'sse')
        throw new UsageError(`--transport: expected streamable-http or sse, got "${value}"`);
      transport = value;
    } else if (flag === '--oauth-scope') {
      if (!/^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/.test(value))
        throw new UsageError(`--oauth-scope: expected one scope token, got "${value}"`);
      oauth = { scopes: [...(oauth?.scopes ?? []), value] };
    } else headers.push(headerFlag(value));
  }
  if (url === undefined) {
    if (headers.length > 0 || transport || oauth)
      throw new UsageError('--header, --transport and --oauth need --url');
    return { rest };
  }
  const remote = {
    url,
    transport: transport ?? 'streamable-http',
    headers,
    ...(oauth ? { oauth: oauth.scopes.length ? { scopes: oauth.scopes } : {} } : {}),
  };
  const checked = remoteSchema.shape.url.safeParse(url);
  if (!checked.success)
    throw new UsageError(`--url: ${checked.error.issues[0]?.message ?? 'invalid'}`);
  return { remote, rest };
}

/** `Name: value` as a header; the value is never repeated in an error. */
function headerFlag(text: string): HeaderInput {
  const at = text.indexOf(':');
  const header = { name: text.slice(0, Math.max(at, 0)).trim(), value: text.slice(at + 1).trim() };
  const checked = headerInputSchema.safeParse(header);
  if (at <= 0 || !checked.success)
    throw new UsageError(
      `--header: expected 'Name: value' with a header name and a one-line value${at > 0 ? ` (header "${header.name}")` : ''}`,
    );
  return checked.data;
}
