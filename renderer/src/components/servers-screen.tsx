/** The servers screen: every configured server with its state, then the form to add one. */
import { AddServerForm } from './add-server-form';
import { ServerList } from './server-list';

export function ServersScreen() {
  return (
    <>
      <ServerList />
      <AddServerForm />
    </>
  );
}
