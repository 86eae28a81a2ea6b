import { describe, expect, it } from 'vitest';
import * as launch from './launch-error';
import { launchErrorSchema } from './launch-error-schema';

const { describeLaunchError, isSandboxUnavailable, launchError, secretUnreadable } = launch;
const { launchErrorRemedies, sandboxUnavailableKinds } = launch;

describe('LaunchError', () => {
  it('gives every kind a remedy a person can act on, used when the site names none', () => {
    for (const [kind, remedy] of Object.entries(launchErrorRemedies)) {
      expect(remedy.length, kind).toBeGreaterThan(10);
    }
    expect(launchError('internal', 'x')).toEqual({
      kind: 'internal',
      message: 'x',
      remedy: launchErrorRemedies.internal,
    });
    expect(launchError('root-invalid', 'x', 'declare /srv').remedy).toBe('declare /srv');
  });

  it('has no catch-all kind', () => {
    expect(Object.keys(launchErrorRemedies)).not.toContain('backend-failed');
  });

  it('keeps the field errors of an invalid network policy and the variable of a secret', () => {
    const invalid = {
      kind: 'invalid-network-policy',
      message: 'bad',
      remedy: 'fix',
      fields: [{ field: 'network.allow.1', message: 'is a URL' }],
    };
    expect(launchErrorSchema.parse(invalid)).toEqual(invalid);
    expect(launchErrorSchema.safeParse({ ...invalid, fields: undefined }).success).toBe(false);
    const secret = secretUnreadable('TOKEN', 'the keychain is locked');
    expect(launchErrorSchema.parse(secret)).toEqual({
      kind: 'secret-unreadable',
      variable: 'TOKEN',
      message: 'the secret for TOKEN could not be read: the keychain is locked',
      remedy: launchErrorRemedies['secret-unreadable'],
    });
    expect(
      launchErrorSchema.safeParse({ kind: 'backend-failed', message: '', remedy: '' }).success,
    ).toBe(false);
  });

  it('says "cannot sandbox here" only when the host is the cause', () => {
    for (const kind of sandboxUnavailableKinds) {
      expect(isSandboxUnavailable({ kind })).toBe(true);
      expect(describeLaunchError(launchError(kind, 'm', 'r'))).toBe('cannot sandbox here: m; r');
    }
    expect(describeLaunchError(secretUnreadable('TOKEN'))).toBe(
      `the server could not be started: the secret for TOKEN is not set; ${launchErrorRemedies['secret-unreadable']}`,
    );
    for (const kind of ['root-invalid', 'build-output-missing', 'internal'] as const) {
      expect(isSandboxUnavailable({ kind })).toBe(false);
    }
  });
});
