/** What the audit detail shows under Request, Response and Decision for the rows of a call. */
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../../app/audit/audit-event';
import { detailParts } from '../../../renderer/src/components/audit-detail';

/** What the rows of call 7 share, and each half of it. */
const call7 = { ts: '2026-12-06T10:00:00.000Z', server: 'fs', requestId: 7, tool: 'read_file' };
const asked = { method: 'tools/call', args: { path: '/a' }, client: 'stdio' };
const answered = { resultSummary: '1 content block', durationMs: 3, sizeBytes: 300 };
const request = { ...call7, ...asked, kind: 'mcp.request', outcome: 'info', sizeBytes: 90 };
const response = {
  ...call7,
  ...answered,
  kind: 'mcp.response',
  outcome: 'ok',
  method: 'tools/call',
};

describe('audit detail parts', () => {
  it('shows a call row as its request and its response, each with its own size', () => {
    const call = {
      ...call7,
      ...asked,
      ...answered,
      kind: 'mcp.call',
      outcome: 'ok',
      requestBytes: 90,
    };
    const parts = detailParts(call as AuditEvent, undefined);
    expect(parts.request).toEqual({
      method: 'tools/call',
      tool: 'read_file',
      arguments: { path: '/a' },
      requestId: 7,
      client: 'stdio',
      sizeBytes: 90,
    });
    expect(parts.response).toEqual({ result: '1 content block', durationMs: 3, sizeBytes: 300 });
  });

  it('shows a request row with the response found for it, and the other way round', () => {
    for (const [row, pair] of [
      [request, response],
      [response, request],
    ]) {
      const parts = detailParts(row as AuditEvent, pair as AuditEvent);
      expect(parts.request).toMatchObject({ arguments: { path: '/a' }, sizeBytes: 90 });
      expect(parts.response).toMatchObject({ result: '1 content block', sizeBytes: 300 });
    }
  });

  it('shows the duration to the microsecond, as the stored event keeps it whole', () => {
    const timed = { ...response, durationMs: 2.1880409999998847 };
    expect(detailParts(timed as AuditEvent, undefined).response?.durationMs).toBe(2.188);
    const slow = { ...response, durationMs: 1250.0004999 };
    expect(detailParts(slow as AuditEvent, undefined).response?.durationMs).toBe(1250);
  });

  it("shows a server's request to the client as its request, and a refusal as its decision", () => {
    const asked = {
      ts: '2026-12-06T10:00:00.000Z',
      server: 'fs',
      kind: 'mcp.server-request',
      outcome: 'info',
      requestId: 'sample-1',
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] },
      sizeBytes: 120,
    };
    const passed = detailParts(asked as AuditEvent, undefined);
    expect(passed.request).toEqual({
      from: 'server',
      method: 'sampling/createMessage',
      params: asked.params,
      requestId: 'sample-1',
    });
    expect(passed.decision).toBeUndefined();
    const { params: _left, ...bare } = asked;
    const refused = { ...bare, outcome: 'refused', reason: 'it held credentials' };
    expect(detailParts(refused as AuditEvent, undefined).decision).toEqual({
      decision: 'refused',
      reason: 'it held credentials',
    });
  });

  it("shows the client's answer beside the server's request it answers, either row selected", () => {
    const at = { ts: '2026-12-06T10:00:00.000Z', server: 'fs', requestId: 's-2' };
    const method = 'elicitation/create';
    const asked = { ...at, kind: 'mcp.server-request', outcome: 'info', method, sizeBytes: 80 };
    const answer = {
      ...at,
      kind: 'mcp.client-answer',
      outcome: 'ok',
      method,
      resultSummary: 'accept: field "name"',
      durationMs: 1500.25,
      sizeBytes: 60,
    };
    for (const [row, pair] of [
      [asked, answer],
      [answer, asked],
    ]) {
      const parts = detailParts(row as AuditEvent, pair as AuditEvent);
      expect(parts.request).toEqual({ from: 'server', method, requestId: 's-2' });
      expect(parts.response).toEqual({
        from: 'client',
        result: 'accept: field "name"',
        durationMs: 1500.25,
        sizeBytes: 60,
      });
    }
  });
});
