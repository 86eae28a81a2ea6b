/** The words the UI uses for each resource limit (app/policy/limit-labels.ts) and host check. */
export { limitLabels } from '../../../app/policy/limit-labels';

/** Host check statuses as shown. */
export const checkStatusLabels: Record<'ok' | 'missing' | 'degraded', string> = {
  ok: 'OK',
  missing: 'Missing',
  degraded: 'Degraded',
};
