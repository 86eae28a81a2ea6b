import { describe, expect, it } from 'vitest';
import { auditKinds } from './audit-event';
import { AUDIT_KINDS } from './audit-kinds';

describe('audit kinds as data', () => {
  it('lists exactly the kinds of the schema, in its order', () => {
    expect(AUDIT_KINDS).toEqual(auditKinds);
  });
});
