/**
 * Which of `warden serve`'s two addresses the page is on: the per-run `<32 hex>.localhost` name,
 * whose origin no page had before this run, or the fallback 127.0.0.1, whose origin belongs to
 * the port, so that a service worker another user's program left there earlier controls it.
 */

const perRunName = /^[0-9a-f]{32}\.localhost$/;

/** True when the page is not on the per-run name: the panel must say what that means. */
export function onFallbackOrigin(location: { hostname: string }): boolean {
  return !perRunName.test(location.hostname);
}
