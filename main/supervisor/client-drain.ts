/**
 * A client may close its input and still read its answers (`echo REQUEST | warden connect NAME`):
 * a server run bare answers what it was sent before it exits, and so does a session. The session
 * ends once everything the client sent is handled and answered, or after `CLIENT_DRAIN_MS` (a
 * call the server never answers must not hold the session open).
 */
export const CLIENT_DRAIN_MS = 30_000;
const POLL_MS = 10;

/** Resolves once `settled()` or `over()` holds, or `ms` passed. */
export async function drainClient(
  settled: () => boolean,
  over: () => boolean,
  ms = CLIENT_DRAIN_MS,
): Promise<void> {
  const until = Date.now() + ms;
  while (!settled() && !over() && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
}
