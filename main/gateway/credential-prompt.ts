/**
 * Whether a server's elicitation asks the user to type a credential. `elicitation/create` in form
 * mode puts a form the server wrote in front of the user, inside their AI client: a server that
 * asks there for a password or an API key is phishing, and MCP forbids servers to ask for
 * sensitive information that way (URL mode sends the user to the service's own page instead).
 * The check reads the form's fields (name, title, description, format) and its message; only a
 * field the user can type into counts (free text or a number: not a yes/no or a list of choices).
 * It reads English words in Latin letters: it stops a form that says what it wants, not one
 * written to slip past it (another language, look-alike letters).
 *
 * URL mode is where MCP sends the user for a credential, so its address is what the user must be
 * able to trust: only an `https:` address with no user name in it passes. A `javascript:`,
 * `file:` or app link (`vscode:`, …) runs or opens something on the user's machine, `http:` can
 * be read and changed on the way (or aims at a service on the user's own loopback), and in
 * `https://github.com@evil.example/` the site is the part after the `@`. Which site it is stays
 * the user's to judge: the client shows it.
 */

/** A field of the form that asks for a credential, and the words that said so. */
export interface CredentialPrompt {
  field: string;
  asked: string;
}

/** Words that name a credential on their own. */
const WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'passcode',
  'pwd',
  'secret',
  'credential',
  'credentials',
  'mnemonic',
  'otp',
  'totp',
  '2fa',
  'mfa',
  'cvv',
  'cvc',
  'ssn',
  'apikey',
  'token',
]);

/** Pairs of words that name one; found in a field's name, title or description, or the message. */
const PAIRS = new Set([
  'pass word',
  'pass phrase',
  'api key',
  'access key',
  'secret key',
  'private key',
  'signing key',
  'seed phrase',
  'recovery phrase',
  'recovery code',
  'backup code',
  'access token',
  'api token',
  'auth token',
  'bearer token',
  'refresh token',
  'session token',
  'personal token',
  'card number',
  'security code',
  'verification code',
  'social security',
]);

/** Of WORDS, those that say enough in running text (a description, the message). */
const TEXT_WORDS = new Set(['password', 'passwd', 'passphrase', 'passcode', 'mnemonic']);

/** Lower-case words of a name or a text: `githubToken`, `GITHUB_TOKEN`, `API key` alike. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * The first word or pair of `words` that names a credential, given which single words count.
 * `token` counts only as the last word (`githubToken`, "Access token"), since it also counts a
 * model's tokens (`tokenLimit`, "token budget").
 */
function named(words: readonly string[], single: ReadonlySet<string>): string | undefined {
  for (let i = 0; i < words.length; i++) {
    const pair = i + 1 < words.length ? `${words[i]} ${words[i + 1]}` : '';
    if (PAIRS.has(pair)) return pair;
    const word = words[i]!;
    if (single.has(word) && (word !== 'token' || i === words.length - 1)) return word;
  }
  return undefined;
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Whether the user can type into a field: free text or a number, not a choice. */
function typed(schema: Record<string, unknown>): boolean {
  if (schema.type !== 'string' && schema.type !== 'number' && schema.type !== 'integer')
    return false;
  return !('enum' in schema) && !('oneOf' in schema) && !('anyOf' in schema);
}

/**
 * The fields of an `elicitation/create` request's form that ask for a credential (empty for a URL
 * mode request, or a form that does not). A form whose message asks for one, with a field to type
 * it into, counts that field.
 */
export function credentialPrompts(params: unknown): CredentialPrompt[] {
  if (typeof params !== 'object' || params === null) return [];
  const p = params as { mode?: unknown; message?: unknown; requestedSchema?: unknown };
  if (p.mode !== undefined && p.mode !== 'form') return [];
  const schema = p.requestedSchema as { properties?: unknown } | undefined;
  const properties =
    typeof schema?.properties === 'object' && schema.properties !== null
      ? Object.entries(schema.properties as Record<string, unknown>)
      : [];
  const fields = properties.filter(
    (entry): entry is [string, Record<string, unknown>] =>
      typeof entry[1] === 'object' &&
      entry[1] !== null &&
      typed(entry[1] as Record<string, unknown>),
  );
  const prompts: CredentialPrompt[] = [];
  for (const [field, def] of fields) {
    const asked =
      (str(def.format) === 'password' ? 'password' : undefined) ??
      named(wordsOf(field), WORDS) ??
      named(wordsOf(str(def.title)), WORDS) ??
      named(wordsOf(str(def.description)), TEXT_WORDS);
    if (asked) prompts.push({ field, asked });
  }
  const inMessage = named(wordsOf(str(p.message)), TEXT_WORDS);
  if (prompts.length === 0 && inMessage && fields[0])
    prompts.push({ field: fields[0][0], asked: inMessage });
  return prompts;
}

/**
 * Why a URL mode `elicitation/create` request's address must not be put to the user, or
 * undefined when it may (and for a form).
 */
export function unsafeCredentialLink(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const p = params as { mode?: unknown; url?: unknown };
  if (p.mode !== 'url') return undefined;
  let url: URL;
  try {
    url = new URL(str(p.url));
  } catch {
    return 'an address that is not a URL';
  }
  if (url.protocol !== 'https:') return `an address that is not https: (${url.protocol})`;
  if (url.username !== '' || url.password !== '')
    return `an address that has a user name before its site ("${url.hostname}")`;
  return undefined;
}
