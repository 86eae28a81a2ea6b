/**
 * The argument rules' scope hides what the sandbox hides, also where no layers were given and
 * the stored policy has guards of its own (an exception), which list only its own changes.
 */
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { DEFAULT_HIDDEN_PATHS } from '../../app/policy/guards';
import { argScopeCache } from './call-scope';

it('hides the default paths for a stored policy with an exception and no layers', () => {
  const policy = defaultPolicy();
  policy.filesystem.roots = [{ path: '/home/u', access: 'write' }];
  policy.guards = { hide: [], unhide: ['~/.aws'], unprotect: ['.git'] };
  const scope = argScopeCache('/home/u')(policy, undefined);
  if (!scope.ok) throw new Error(scope.error);
  expect(scope.value.hidden?.paths).toContain('/home/u/.ssh');
  expect(scope.value.hidden?.paths).not.toContain('/home/u/.aws');
  expect(DEFAULT_HIDDEN_PATHS).toContain('~/.aws');
});
