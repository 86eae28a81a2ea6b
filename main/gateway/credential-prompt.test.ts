import { describe, expect, it } from 'vitest';
import { credentialPrompts, unsafeCredentialLink, wordsOf } from './credential-prompt';

/** An elicitation's params with one field. */
const form = (field: string, def: Record<string, unknown>, message = 'Please fill this in') => ({
  message,
  requestedSchema: { type: 'object', properties: { [field]: def } },
});
const text = { type: 'string' };

describe('wordsOf', () => {
  it('splits names and texts alike', () => {
    expect(wordsOf('githubToken')).toEqual(['github', 'token']);
    expect(wordsOf('GITHUB_TOKEN')).toEqual(['github', 'token']);
    expect(wordsOf('APIKey')).toEqual(['api', 'key']);
    expect(wordsOf('Your API key, please.')).toEqual(['your', 'api', 'key', 'please']);
  });
});

describe('credentialPrompts', () => {
  it('finds a field that asks for a credential by its name, title, description or format', () => {
    expect(credentialPrompts(form('githubToken', text))).toEqual([
      { field: 'githubToken', asked: 'token' },
    ]);
    expect(credentialPrompts(form('api_key', text))).toEqual([
      { field: 'api_key', asked: 'api key' },
    ]);
    expect(credentialPrompts(form('value', { ...text, title: 'Password' }))).toEqual([
      { field: 'value', asked: 'password' },
    ]);
    expect(
      credentialPrompts(form('value', { ...text, description: 'The private key of your wallet' })),
    ).toEqual([{ field: 'value', asked: 'private key' }]);
    expect(credentialPrompts(form('value', { ...text, format: 'password' }))).toEqual([
      { field: 'value', asked: 'password' },
    ]);
    // Split by anything that is not a letter or a digit, an invisible space included.
    expect(credentialPrompts(form('value', { ...text, title: 'Pass\u200bword' }))).toEqual([
      { field: 'value', asked: 'pass word' },
    ]);
    expect(credentialPrompts(form('code', { type: 'integer', title: 'CVV' }))).toEqual([
      { field: 'code', asked: 'cvv' },
    ]);
  });

  it('finds a message that asks for one, with a field to type it into', () => {
    const params = form('answer', text, 'To go on, enter your GitHub password below.');
    expect(credentialPrompts(params)).toEqual([{ field: 'answer', asked: 'password' }]);
  });

  it('leaves forms that ask for no credential', () => {
    expect(credentialPrompts(form('name', { ...text, title: 'Your name' }))).toEqual([]);
    // A model's tokens are not a credential.
    expect(credentialPrompts(form('maxTokens', { type: 'integer' }))).toEqual([]);
    expect(credentialPrompts(form('tokenLimit', { type: 'integer' }))).toEqual([]);
    expect(
      credentialPrompts(form('budget', { ...text, description: 'How many tokens may it use?' })),
    ).toEqual([]);
    // A description that mentions a token in passing is not a prompt for one.
    expect(credentialPrompts(form('repo', { ...text, description: 'Needs no token' }))).toEqual([]);
  });

  it('leaves choices: a yes/no or a list cannot take a typed credential', () => {
    expect(credentialPrompts(form('rememberPassword', { type: 'boolean' }))).toEqual([]);
    expect(
      credentialPrompts(form('password', { type: 'string', enum: ['keep', 'change'] })),
    ).toEqual([]);
    expect(credentialPrompts(form('ok', { type: 'boolean' }, 'Store your password?'))).toEqual([]);
  });

  it('leaves URL mode (the sanctioned way to ask for one) and malformed params', () => {
    expect(credentialPrompts({ mode: 'url', message: 'Sign in', url: 'https://x' })).toEqual([]);
    expect(credentialPrompts(undefined)).toEqual([]);
    expect(credentialPrompts({ message: 'password', requestedSchema: 'no' })).toEqual([]);
    expect(credentialPrompts(form('password', null as never))).toEqual([]);
  });

  it('takes an explicit form mode like the default', () => {
    expect(credentialPrompts({ ...form('secret', text), mode: 'form' })).toEqual([
      { field: 'secret', asked: 'secret' },
    ]);
  });
});

describe('unsafeCredentialLink', () => {
  const link = (url: unknown) => ({
    mode: 'url',
    message: 'Sign in',
    url,
    elicitationId: 'e1',
  });

  it('lets an https address with no user name pass', () => {
    expect(unsafeCredentialLink(link('https://github.com/login/device'))).toBeUndefined();
    expect(unsafeCredentialLink(link('https://auth.example.com:8443/a?b=c#d'))).toBeUndefined();
  });

  it('refuses an address that runs or opens something on the machine, or travels in clear', () => {
    expect(unsafeCredentialLink(link('javascript:alert(1)'))).toBe(
      'an address that is not https: (javascript:)',
    );
    expect(unsafeCredentialLink(link('file:///etc/passwd'))).toBe(
      'an address that is not https: (file:)',
    );
    expect(unsafeCredentialLink(link('vscode://settings/open'))).toBe(
      'an address that is not https: (vscode:)',
    );
    expect(unsafeCredentialLink(link('http://127.0.0.1:8080/admin'))).toBe(
      'an address that is not https: (http:)',
    );
    expect(unsafeCredentialLink(link('  JavaScript:alert(1)'))).toBe(
      'an address that is not https: (javascript:)',
    );
  });

  it('refuses a user name in front of the site, and what is not a URL', () => {
    expect(unsafeCredentialLink(link('https://github.com@evil.example/login'))).toBe(
      'an address that has a user name before its site ("evil.example")',
    );
    expect(unsafeCredentialLink(link('https://user:pw@example.com/'))).toBe(
      'an address that has a user name before its site ("example.com")',
    );
    expect(unsafeCredentialLink(link('github.com/login'))).toBe('an address that is not a URL');
    expect(unsafeCredentialLink(link(42))).toBe('an address that is not a URL');
  });

  it('leaves forms and malformed params to the form check', () => {
    expect(unsafeCredentialLink(form('password', text))).toBeUndefined();
    expect(unsafeCredentialLink({ mode: 'form', url: 'javascript:x' })).toBeUndefined();
    expect(unsafeCredentialLink(undefined)).toBeUndefined();
    expect(unsafeCredentialLink('url')).toBeUndefined();
  });
});
