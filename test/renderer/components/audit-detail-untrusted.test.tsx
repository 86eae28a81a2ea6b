// @vitest-environment jsdom
/**
 * The audit detail shows what a server named (a form's field, a tool) as escapes, never obeyed:
 * a bidi override in a field name must not make its summary or its stored event read otherwise.
 */
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { AuditDetail } from '../../../renderer/src/components/audit-detail';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { StoreProvider } from '../../../renderer/src/store/store-context';
import { auditRow, fakeApi, manualFrames } from '../store/fake-api';

afterEach(cleanup);

it("shows a bidi override in a server's names as an escape, in the summary and the event", async () => {
  const frames = manualFrames();
  const store = createRootStore(fakeApi().api, { frame: frames.schedule });
  await store.getState().openAudit();
  const field = 'name\u202eexe.txt';
  const event = {
    kind: 'mcp.client-answer' as const,
    ts: 't',
    server: 'fs\u202e',
    instance: 'i-1',
    outcome: 'ok' as const,
    requestId: 4,
    method: 'elicitation/create',
    resultSummary: `accept: field ${JSON.stringify(field)}`,
    durationMs: 2,
    sizeBytes: 1,
  };
  store
    .getState()
    .auditBatch([auditRow(12, { kind: event.kind, outcome: 'ok', server: event.server, event })]);
  frames.runFrame();
  store.getState().selectAuditRow(12);
  render(
    <StoreProvider store={store}>
      <AuditDetail />
    </StoreProvider>,
  );
  const detail = await screen.findByRole('complementary', { name: 'Event detail' });
  expect(detail.textContent).not.toContain('\u202e');
  expect(detail.textContent).toContain('name\\u202eexe.txt');
  expect(detail.textContent).toContain('fs\\u202e');
});
