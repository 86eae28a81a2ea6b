/**
 * The network policy a remote server starts with: its URL's host and port allowed, since that is
 * the one destination it needs. The managed and global allowlists and the address guard still
 * apply on top (a private or loopback address needs `allowAddresses`).
 */
import { patternForDestination } from './network-patterns';
import type { Policy } from './policy-schema';
import { urlDestination } from './url-destination';

/**
 * `policy` with the host of `url` allowed. A policy without network becomes an allowlist; a
 * policy in `ask` mode keeps asking for other destinations.
 */
export function remotePolicy(policy: Policy, url: string): Policy {
  const dest = urlDestination(url);
  if (!dest.ok) return policy;
  const pattern = patternForDestination(dest.value);
  const network = { ...policy.network };
  if (network.mode === 'none') network.mode = 'allowlist';
  if (!network.allow.includes(pattern)) network.allow = [...network.allow, pattern];
  return { ...policy, network };
}
