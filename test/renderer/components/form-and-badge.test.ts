/** The badge words and the form's field mapping. */
import { describe, expect, it } from 'vitest';
import { argsFromText, formFieldOf } from '../../../renderer/src/components/add-server-fields';
import { isolationLabel } from '../../../renderer/src/components/isolation-label';

describe('isolationLabel', () => {
  it('says exactly what the core reported', () => {
    expect(isolationLabel({ kind: 'sandboxed', backend: 'bubblewrap' })).toBe('Sandboxed');
    expect(isolationLabel({ kind: 'sandboxed', backend: 'landlock' })).toBe('Sandboxed (Landlock)');
    expect(isolationLabel({ kind: 'off' })).toBe('Not sandboxed');
    expect(
      isolationLabel({
        kind: 'unavailable',
        reason: 'bwrap is missing',
        remedy: 'apt install bubblewrap',
      }),
    ).toBe('Cannot sandbox here: bwrap is missing');
  });
});

describe('argsFromText', () => {
  it('takes one argument per line, keeps spaces inside, drops blank lines and CRs', () => {
    expect(argsFromText('-y\r\n@scope/pkg\n\n  /path with spaces \n')).toEqual([
      '-y',
      '@scope/pkg',
      '  /path with spaces ',
    ]);
    expect(argsFromText('')).toEqual([]);
  });
});

describe('formFieldOf', () => {
  it('maps core field paths to form fields', () => {
    expect(formFieldOf('name')).toBe('name');
    expect(formFieldOf('launch.command')).toBe('command');
    expect(formFieldOf('launch.args[1]')).toBe('args');
    expect(formFieldOf('policy.isolation')).toBe('isolation');
    expect(formFieldOf('policy.network.mode')).toBeUndefined();
  });
});
