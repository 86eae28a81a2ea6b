// @vitest-environment jsdom
/**
 * The OpenTelemetry export on the Audit log screen: what the core says it does (off, on and where,
 * set but off and why); setting it up and changing it, every header named again with its value
 * (a value is never shown back); turning it off; a refusal said with its remedy.
 */
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { TelemetryStatus } from '../../../app/contract/telemetry';
import { AuditTelemetry } from '../../../renderer/src/components/audit-telemetry';
import { fakeApi, refusing } from '../store/fake-api';

afterEach(cleanup);

const on: TelemetryStatus = {
  settings: { endpoint: 'https://otel.example.com:4318', headers: ['X-Api-Key'] },
  export: 'on',
};

function renderWith(answers: Parameters<typeof fakeApi>[0]) {
  const { api, calls } = fakeApi(answers);
  render(<AuditTelemetry api={api} />);
  return { calls, user: userEvent.setup() };
}

const ops = (calls: Array<{ op: string; input: unknown }>, op: string) =>
  calls.filter((c) => c.op === op);

describe('the OpenTelemetry export', () => {
  it('is set up with an endpoint and a header, and then shows where it goes', async () => {
    const statuses: TelemetryStatus[] = [{ export: 'off' }, on];
    const { calls, user } = renderWith({
      'telemetry.get': () => Promise.resolve(statuses.shift()),
      'telemetry.set': () =>
        Promise.resolve({ endpoint: on.settings!.endpoint, headers: ['X-Api-Key'] }),
    });
    expect((await screen.findByText('off')).tagName).toBe('STRONG');
    await user.click(screen.getByRole('button', { name: 'Set up export' }));
    await user.type(
      screen.getByLabelText('Collector endpoint (OTLP over HTTP)'),
      ' https://otel.example.com:4318 ',
    );
    await user.click(screen.getByRole('button', { name: 'Add header' }));
    await user.type(screen.getByLabelText('Header 1 name'), 'X-Api-Key');
    const value = screen.getByLabelText('Header 1 value');
    expect(value.getAttribute('type')).toBe('password');
    await user.type(value, 'k-123');
    await user.click(screen.getByRole('button', { name: 'Save export' }));
    expect(ops(calls, 'telemetry.set')).toEqual([
      {
        op: 'telemetry.set',
        input: {
          endpoint: 'https://otel.example.com:4318',
          headers: [{ name: 'X-Api-Key', value: 'k-123' }],
        },
      },
    ]);
    expect(await screen.findByText('https://otel.example.com:4318')).toBeTruthy();
    expect(screen.getByText('on').tagName).toBe('STRONG');
    expect(screen.getByText(/with header/).textContent).toContain('X-Api-Key');
    expect(screen.getByRole('status').textContent).toBe('Saved; the export follows it now.');
    expect(document.body.textContent).not.toContain('k-123');
  });

  it('a change names every header again: their values start empty, and one left so is refused', async () => {
    const { calls, user } = renderWith({ 'telemetry.get': () => Promise.resolve(on) });
    await user.click(await screen.findByRole('button', { name: 'Change export' }));
    expect(
      screen.getByLabelText<HTMLInputElement>('Collector endpoint (OTLP over HTTP)').value,
    ).toBe('https://otel.example.com:4318');
    expect(screen.getByLabelText<HTMLInputElement>('Header 1 name').value).toBe('X-Api-Key');
    expect(screen.getByLabelText<HTMLInputElement>('Header 1 value').value).toBe('');
    await user.click(screen.getByRole('button', { name: 'Save export' }));
    expect(ops(calls, 'telemetry.set')).toEqual([]);
    expect(screen.getByText('Give every header a name and a value, or remove it.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Remove header 1' }));
    await user.click(screen.getByRole('button', { name: 'Save export' }));
    expect(ops(calls, 'telemetry.set')).toEqual([
      { op: 'telemetry.set', input: { endpoint: 'https://otel.example.com:4318', headers: [] } },
    ]);
  });

  it('is turned off, and a refusal says why with its remedy', async () => {
    const statuses: TelemetryStatus[] = [on, { export: 'off' }];
    const { calls, user } = renderWith({
      'telemetry.get': () => Promise.resolve(statuses.shift()),
      'telemetry.off': () => Promise.resolve({ off: true }),
    });
    await user.click(await screen.findByRole('button', { name: 'Turn export off' }));
    expect(ops(calls, 'telemetry.off')).toHaveLength(1);
    expect((await screen.findByText('off')).tagName).toBe('STRONG');
    expect(screen.getByRole('status').textContent).toBe(
      'The export is off; its header values are forgotten.',
    );

    cleanup();
    const refused = renderWith({
      'telemetry.get': () => Promise.resolve({ export: 'off' }),
      'telemetry.set': refusing({
        kind: 'invalid-input',
        message: 'telemetry.endpoint: must be an http or https URL',
        remedy: 'give the collector’s address',
      }),
    });
    await refused.user.click(await screen.findByRole('button', { name: 'Set up export' }));
    await refused.user.type(
      screen.getByLabelText('Collector endpoint (OTLP over HTTP)'),
      'ftp://c.test',
    );
    await refused.user.click(screen.getByRole('button', { name: 'Save export' }));
    expect(
      await screen.findByText(
        'Not saved: telemetry.endpoint: must be an http or https URL give the collector’s address',
      ),
    ).toBeTruthy();
  });

  it('set but off: says why', async () => {
    renderWith({
      'telemetry.get': () =>
        Promise.resolve({
          ...on,
          export: 'failed',
          problem: 'the value of header X-Api-Key is not in this secret store',
        }),
    });
    expect((await screen.findByText('set, but off')).tagName).toBe('STRONG');
    expect(
      screen.getByText(
        /The export is off: the value of header X-Api-Key is not in this secret store/,
      ),
    ).toBeTruthy();
  });
});
