/** The question before a server's sandbox is turned off: what it loses, Cancel focused. */
import { showUntrusted } from '../../../app/text/untrusted-text';
import { ConfirmDialog } from './confirm-dialog';

export function SandboxOffDialog(props: {
  open: boolean;
  server: string;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <ConfirmDialog
      open={props.open}
      title={`Turn off the sandbox for "${showUntrusted(props.server)}"?`}
      confirmLabel="Turn off sandbox"
      danger
      onCancel={props.onCancel}
      onConfirm={props.onConfirm}
    >
      <p>
        Without the sandbox the server runs as a plain process with your whole identity: every file,
        every secret in your environment, the whole network. Its folder, network and environment
        rules are no longer enforced.
      </p>
    </ConfirmDialog>
  );
}
