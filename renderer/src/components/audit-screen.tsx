/**
 * The audit log: filters, the live list, the detail of the selected event, export of the current
 * filter to JSON Lines, and "verify integrity" with its result.
 */
import { useEffect, useState } from 'react';
import { desktopShell } from '../contract-client/desktop-shell';
import { auditSelectors } from '../store/audit/audit-selectors';
import { useRoot, useWardenApi } from '../store/store-context';
import { AuditDetail } from './audit-detail';
import { AuditFilters } from './audit-filters';
import { AuditList } from './audit-list';
import { AuditRetention } from './audit-retention';
import { AuditTelemetry } from './audit-telemetry';
import { countText } from './display-format';
import { showUntrusted } from '../../../app/text/untrusted-text';

function VerifyResult() {
  const v = useRoot(auditSelectors.verify);
  switch (v.kind) {
    case 'idle':
      return null;
    case 'running':
      return <span role="status">Verifying…</span>;
    case 'failed':
      return (
        <span role="alert" className="field-error">
          Could not verify: {showUntrusted(v.error.message)}
        </span>
      );
    case 'done':
      return v.result.ok ? (
        <span role="status" className="verify-ok" data-verify="ok">
          Intact: {v.result.rows} rows, chain head {v.result.headHash.slice(0, 12)}…
        </span>
      ) : (
        <span role="alert" className="verify-broken" data-verify="broken">
          Broken at row {v.result.firstBrokenId} ({v.result.problem}): {v.result.reason}
        </span>
      );
  }
}

export function AuditScreen() {
  const count = useRoot(auditSelectors.count);
  const loading = useRoot(auditSelectors.loading);
  const error = useRoot(auditSelectors.error);
  const exportAudit = useRoot((s) => s.exportAudit);
  const verify = useRoot((s) => s.verifyAudit);
  const openAudit = useRoot((s) => s.openAudit);
  const closeAudit = useRoot((s) => s.closeAudit);
  const [exportStatus, setExportStatus] = useState('');
  const api = useWardenApi();

  // The rows are loaded while the screen is shown, and let go when it is not.
  useEffect(() => {
    void openAudit();
    return closeAudit;
  }, [openAudit, closeAudit]);

  const onExport = async () => {
    setExportStatus('Exporting…');
    try {
      const { text, rows } = await exportAudit();
      const suggestedName = `warden-audit-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`;
      const shell = desktopShell();
      if (shell.saveFile) {
        const path = await shell.saveFile({ suggestedName, text });
        setExportStatus(path ? `Exported ${rows} rows to ${path}.` : 'Export cancelled.');
        return;
      }
      const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = suggestedName;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setExportStatus(`Exported ${rows} rows.`);
    } catch (e) {
      setExportStatus(`Export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  return (
    <section className="panel audit-screen" aria-labelledby="audit-heading">
      <div className="audit-head">
        <h2 id="audit-heading">Audit log</h2>
        <span className="muted" data-audit-count={count}>
          {countText(count)} events loaded{loading ? ', loading…' : ''} · live
        </span>
        <button type="button" onClick={() => void onExport()}>
          Export JSON Lines
        </button>
        <button type="button" onClick={() => void verify()}>
          Verify integrity
        </button>
        <VerifyResult />
        <span role="status" className="muted">
          {exportStatus}
        </span>
      </div>
      <AuditFilters />
      <AuditRetention api={api} />
      <AuditTelemetry api={api} />
      {error && (
        <p className="notice notice-error" role="alert">
          Could not load the log: {showUntrusted(`${error.message} ${error.remedy ?? ''}`)}
        </p>
      )}
      <div className="audit-body">
        <AuditList />
        <AuditDetail />
      </div>
    </section>
  );
}
