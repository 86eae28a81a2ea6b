/** The control panel's shell: header, navigation, connection state and the open screen. */
import { AppNav } from './components/app-nav';
import { AuditScreen } from './components/audit-screen';
import { ClientsScreen } from './components/clients-screen';
import { ConfigProblemsBanner } from './components/config-problems-banner';
import { GatewayBanner } from './components/gateway-banner';
import { ConnectionBanner } from './components/connection-banner';
import { FallbackOriginBanner } from './components/fallback-origin-banner';
import { HostScreen } from './components/host-screen';
import { ImportScreen } from './components/import-screen';
import { InboxScreen } from './components/inbox-screen';
import { ManagedProblemBanner } from './components/managed-layer-view';
import { ParentPolicyScreen } from './components/parent-policy-screen';
import { PolicyEditor } from './components/policy-editor';
import { ServerDetail } from './components/server-detail';
import { ServersScreen } from './components/servers-screen';
import { SignOutButton } from './components/sign-out-button';
import { ToastView } from './components/toast-view';
import { navSelectors } from './store/nav/nav-slice';
import { useRoot, useWardenApi } from './store/store-context';

function CurrentScreen() {
  const screen = useRoot(navSelectors.screen);
  const api = useWardenApi();
  switch (screen.kind) {
    case 'servers':
      return <ServersScreen />;
    case 'policy':
      return <PolicyEditor key={screen.server} name={screen.server} />;
    case 'server':
      return <ServerDetail key={screen.server} name={screen.server} />;
    case 'inbox':
      return <InboxScreen focus={screen.focus} />;
    case 'audit':
      return <AuditScreen />;
    case 'host':
      return <HostScreen />;
    case 'parent-policy':
      return <ParentPolicyScreen />;
    case 'import':
      return <ImportScreen api={api} />;
    case 'clients':
      return <ClientsScreen key={screen.client ?? ''} api={api} initialClient={screen.client} />;
  }
}

/**
 * `signOut` is given in a browser signed in with a session (web mode) only; `fallbackHost` in
 * web mode on 127.0.0.1, the port's own address (page-origin.ts).
 */
export function App({
  signOut,
  fallbackHost,
}: {
  signOut?: () => Promise<void>;
  fallbackHost?: string;
}) {
  return (
    <>
      <header className="app-header">
        <h1>MCP Warden</h1>
        <AppNav />
        {signOut && <SignOutButton signOut={signOut} />}
      </header>
      <main className="app-main">
        {fallbackHost !== undefined && <FallbackOriginBanner host={fallbackHost} />}
        <ConnectionBanner />
        <ConfigProblemsBanner />
        <ManagedProblemBanner />
        <GatewayBanner />
        <CurrentScreen />
      </main>
      <ToastView />
    </>
  );
}
