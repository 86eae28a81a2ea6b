// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { err, ok } from '../../../app/result';
import { DecisionActions, decisionError } from '../../../renderer/src/components/decision-actions';

afterEach(cleanup);

it('says why a decision was not taken: expired, or the core refused it', () => {
  expect(decisionError(ok(true))).toBeUndefined();
  expect(decisionError(ok(false))).toBe('Already decided or expired.');
  expect(decisionError(err({ kind: 'internal', message: 'core gone' }))).toBe('core gone');
});

it('names what each button decides and shows the last error beside the buttons', async () => {
  const sent: string[] = [];
  render(
    <DecisionActions
      buttons={[
        { decision: 'approve', label: 'Allow call', className: 'primary', context: ' to rm' },
        { decision: 'deny', label: 'Deny call', context: ' to rm' },
      ]}
      decide={(d) => {
        sent.push(d);
        return Promise.resolve(d === 'deny' ? 'Already decided or expired.' : undefined);
      }}
    />,
  );
  const user = userEvent.setup();
  // jsdom joins the label and the hidden context without the space a browser keeps.
  await user.click(screen.getByRole('button', { name: /^Allow call ?to rm$/ }));
  expect(screen.queryByRole('alert')).toBeNull();
  await user.click(screen.getByRole('button', { name: /^Deny call ?to rm$/ }));
  expect((await screen.findByRole('alert')).textContent).toBe('Already decided or expired.');
  expect(sent).toEqual(['approve', 'deny']);
});

it('sends one decision at a time: a second click while the first is on its way sends nothing', async () => {
  const sent: string[] = [];
  let answer: (e: string | undefined) => void = () => undefined;
  render(
    <DecisionActions
      buttons={[
        { decision: 'allow', label: 'Allow', context: ' api.example.com' },
        { decision: 'deny', label: 'Deny', context: ' api.example.com' },
      ]}
      decide={(d) => {
        sent.push(d);
        return new Promise((done) => (answer = done));
      }}
    />,
  );
  const user = userEvent.setup();
  const allow = screen.getByRole('button', { name: /^Allow ?api/ });
  const deny = screen.getByRole('button', { name: /^Deny ?api/ });
  await user.click(allow);
  await user.click(allow);
  await user.click(deny);
  expect(sent).toEqual(['allow']);
  expect((allow as HTMLButtonElement).disabled).toBe(true);
  expect((deny as HTMLButtonElement).disabled).toBe(true);
  answer('Already decided or expired.');
  await screen.findByRole('alert');
  expect((deny as HTMLButtonElement).disabled).toBe(false);
});
