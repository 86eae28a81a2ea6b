/**
 * The Content-Security-Policy of the app window: only the app's own scripts, styles and images,
 * no inline script, no eval, no framing, no plugins, no form posts. The same policy is in
 * renderer/index.html's meta tag (which is what applies to a page loaded from a file); the
 * session adds it as a header to every response as well.
 */

export const appContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** Response headers with the policy set (replacing any the response carried). */
export function withContentSecurityPolicy(
  headers: Record<string, string[]> | undefined,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') out[name] = value;
  }
  out['Content-Security-Policy'] = [appContentSecurityPolicy];
  return out;
}
