/** The words of the isolation badge, kept apart from the component so they can be tested alone. */
import type { ServerView } from '../../../app/contract/servers';

/** The badge text for an isolation state, exactly as shown. */
export function isolationLabel(isolation: ServerView['isolation']): string {
  switch (isolation.kind) {
    case 'sandboxed':
      // Landlock sandboxes without namespaces: the Host screen lists what that leaves out.
      return isolation.backend === 'landlock' ? 'Sandboxed (Landlock)' : 'Sandboxed';
    case 'off':
      return 'Not sandboxed';
    case 'remote':
      return 'Remote';
    case 'unavailable':
      return `Cannot sandbox here: ${isolation.reason}`;
  }
}
