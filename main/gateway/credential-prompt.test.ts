import { describe, expect, it } from 'vitest';
import { credentialPrompts, wordsOf } from './credential-prompt';

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
