/** Renderer entry: one contract client, one store bound to the core once, then the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RE2JS } from 're2js';
import { z } from 'zod';
import { setPatternEngine } from '../../app/policy/pattern-engine';
import { App } from './app';
import { connectCore } from './contract-client/connect-core';
import { desktopShell } from './contract-client/desktop-shell';
import { bindCore } from './store/bind-core';
import { bindDesktop } from './store/bind-desktop';
import { createRootStore } from './store/root-store';
import { StoreProvider } from './store/store-context';
import './styles.css';
import './styles/shell.css';
import './styles/policy.css';
import './styles/inbox-audit.css';
import './styles/lists.css';
import './styles/servers.css';
import './styles/detail.css';

// The policy forms check `match=` patterns as they are typed.
setPatternEngine(RE2JS);
// The CSP forbids eval; without this zod would probe `new Function` and log a CSP violation.
z.config({ jitless: true });

const connection = connectCore();
const store = createRootStore(connection.api);
bindCore(store, connection);
bindDesktop(store, desktopShell());

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
createRoot(container).render(
  <StrictMode>
    <StoreProvider store={store} api={connection.api}>
      <App signOut={connection.signOut} fallbackHost={connection.fallbackHost} />
    </StoreProvider>
  </StrictMode>,
);
