/** The control panel's shell: header, connection state and the servers screen. */
import { AddServerForm } from './components/add-server-form';
import { ConnectionBanner } from './components/connection-banner';
import { ServerList } from './components/server-list';

export function App() {
  return (
    <>
      <header className="app-header">
        <h1>MCP Warden</h1>
      </header>
      <main className="app-main">
        <ConnectionBanner />
        <ServerList />
        <AddServerForm />
      </main>
    </>
  );
}
