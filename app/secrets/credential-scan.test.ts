import { describe, expect, it } from 'vitest';
import { credentialScanner, describeHits, redactCredentialFormats } from './credential-scan';

// Made-up credentials of each format (none is a real key).
const samples = {
  'private-key':
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACB=\n-----END OPENSSH PRIVATE KEY-----',
  'aws-access-key': 'AKIAIOSFODNN7EXAMPLE',
  'aws-secret-key': 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'github-token': 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
  'gitlab-token': 'glpat-xYz0123456789abcdefGH',
  'slack-token': 'xoxb-123456789012-abcdefghijkl',
  'npm-token': 'npm_0123456789abcdefghijABCDEFGHIJ012345',
  'openai-key': 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk',
} as const;

describe('credential scanning', () => {
  const scanner = credentialScanner([], { formats: true })!;

  it.each(Object.entries(samples))('finds and redacts a %s', (kind, sample) => {
    const result = { content: [{ type: 'text', text: `before ${sample} after` }] };
    const { value, hits } = scanner.redact(result);
    expect(hits).toEqual([{ kind, count: 1 }]);
    const text = value.content[0]!.text;
    expect(text).toBe(`before «credential:${kind}» after`);
    expect(result.content[0]!.text).toContain(sample); // the input is not changed
  });

  it('leaves ordinary text alone and returns the same object when nothing is found', () => {
    const result = {
      content: [
        {
          type: 'text',
          text: 'sk-learn-compatible-estimator-with-a-long-name, AKIA is a prefix, eyJ alone, ghp_short',
        },
        {
          type: 'image',
          data: 'iVBORw0KGgoAAAANSUhEUgAKIAIOSFODNN7EXAMPLEAAAABCAYAAAAfFcSJAAAADUlEQVR4',
        },
      ],
    };
    const out = scanner.redact(result);
    expect(out.hits).toEqual([]);
    expect(out.value).toBe(result);
    expect(scanner.redact({ n: 1, ok: true, list: [2, null] }).value).toEqual({
      n: 1,
      ok: true,
      list: [2, null],
    });
  });

  it("redacts the user's own secret values by name, ahead of a matching format", () => {
    const token = samples['github-token'];
    const own = credentialScanner(
      [
        { name: 'GITHUB_TOKEN', value: token },
        { name: 'DB_PASSWORD', value: 'hunter2-correct-horse' },
        { name: 'SHORT', value: 'ab' },
      ],
      { formats: true },
    )!;
    const { value, hits } = own.redact({
      text: `${token} and hunter2-correct-horse twice hunter2-correct-horse`,
      [token]: 'as a key too',
    });
    expect(JSON.stringify(value)).not.toContain(token);
    expect(JSON.stringify(value)).not.toContain('hunter2');
    expect(value).toHaveProperty(['«secret:GITHUB_TOKEN»']);
    expect(describeHits(hits)).toBe('secret GITHUB_TOKEN ×2, secret DB_PASSWORD ×2');
    expect(own.find({ a: ['x ab y'] })).toEqual([]);
  });

  it('secrets only: formats are not looked for', () => {
    const only = credentialScanner([{ name: 'K', value: 'value-1234' }], { formats: false })!;
    expect(only.find({ a: samples.jwt, b: 'value-1234' })).toEqual([
      { kind: 'secret', name: 'K', count: 1 },
    ]);
    expect(credentialScanner([], { formats: false })).toBeUndefined();
  });

  it('a private key without its end line is still redacted, and many headers stay linear', () => {
    const cut = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc';
    expect(scanner.redact({ t: `${cut} tail` }).value).toEqual({
      t: '«credential:private-key» tail',
    });
    const many = '-----BEGIN EC PRIVATE KEY-----'.repeat(20_000);
    expect(scanner.find({ t: many })[0]).toMatchObject({ kind: 'private-key' });
  });

  it('an allowed value is neither found nor replaced, even in a known format; others still are', () => {
    const own = samples['github-token'];
    const allowing = credentialScanner([], { formats: true, allowed: [own] })!;
    const other = samples['npm-token'];
    expect(allowing.find({ a: own })).toEqual([]);
    expect(allowing.redact({ a: own }).value).toEqual({ a: own });
    expect(allowing.redact({ a: `${own} ${other}` }).value).toEqual({
      a: `${own} «credential:npm-token»`,
    });
    expect(redactCredentialFormats({ a: own })).toEqual({ a: '«credential:github-token»' });
    const plain = { a: 'nothing here' };
    expect(redactCredentialFormats(plain)).toBe(plain);
  });
});
