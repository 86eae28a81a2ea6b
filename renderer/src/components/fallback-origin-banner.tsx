/**
 * Says, in web mode on 127.0.0.1, that the panel is on the port's own address rather than this
 * run's: a service worker left there while Warden was stopped would see the page (README,
 * Security). It stays: the risk lasts as long as the page does.
 */

export function FallbackOriginBanner({ host }: { host: string }) {
  return (
    <div className="notice notice-warn banner" role="note" aria-label="Fallback address">
      <p>
        <strong>Fallback address.</strong> This page is at {host}, which belongs to the port, not to
        this run of Warden: a program another user ran on this port while Warden was stopped could
        have left a service worker here that sees this page, your session and what you type.
      </p>
      <p>
        Where your browser can, use the address <code>warden serve</code> printed, a{' '}
        <code>.localhost</code> name new at each start (Chrome, Edge and Firefox open it; Safari may
        not).
      </p>
    </div>
  );
}
