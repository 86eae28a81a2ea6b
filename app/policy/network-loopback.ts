/**
 * Which loopback a sandboxed server's `localhost` means. A server in a network namespace of its
 * own (Linux, bubblewrap) has a loopback of its own: a helper it starts there listens on it, and
 * the host's services are not on it. Its policy can still reach the host's loopback through the
 * egress proxy, by naming a loopback host (`localhost`, `127.0.0.1`, `[::1]`) or address range;
 * then the proxy variables send every loopback request through Warden, where the broker decides
 * it. Otherwise they leave loopback to the sandbox, as `NO_PROXY` does for every program that
 * honours it (and the fetch preload for Node), so that no Node version or client sends a request
 * meant for the sandbox's own loopback to the host's.
 */
import { parsePattern } from './network-patterns';
import {
  classifyAddress,
  parseIpRange,
  parseIpv4,
  parseIpv6,
  rangeContains,
} from './network-address';

const LOOPBACK = {
  4: [parseIpv4('127.0.0.1')!],
  6: [parseIpv6('::1')!, parseIpv6('::ffff:127.0.0.1')!],
};

/** What `NO_PROXY` names for the sandbox's own loopback, as curl and Node both read it. */
export const SANDBOX_LOOPBACK_NO_PROXY = 'localhost,127.0.0.1,::1';

/**
 * Whether a network policy names the host's loopback: an allowed pattern for a loopback address
 * or `localhost` (and its subdomains), or an allowed address range that holds a loopback address.
 * Unparsable entries name nothing (the schema refuses them before a launch).
 */
export function namesLoopback(network: {
  allow: readonly string[];
  allowAddresses: readonly string[];
}): boolean {
  const pattern = network.allow.some((text) => {
    const parsed = parsePattern(text);
    if (!parsed.ok) return false;
    const p = parsed.value;
    if (p.kind === 'ip') return classifyAddress(p.ip) === 'loopback';
    const name = p.kind === 'host' ? p.host : p.domain;
    return name === 'localhost' || name.endsWith('.localhost');
  });
  return (
    pattern ||
    network.allowAddresses.some((text) => {
      const range = parseIpRange(text.trim());
      if (!range) return false;
      return (
        LOOPBACK[range.family].some((ip) => rangeContains(range, ip)) ||
        classifyAddress(range) === 'loopback'
      );
    })
  );
}
