/**
 * The npm registry's addresses on this host that are not public. The egress broker refuses such
 * an address unless the policy lists it (`--allow-address`); a host whose resolver answers the
 * registry's name with one (a local mirror, a test network) needs it listed for an npx server to
 * reach the registry, and the bench that lists it says so.
 */
import { lookup } from 'node:dns/promises';
import { classifyAddress, parseIp } from '../app/policy/network-address';

export const REGISTRY = 'registry.npmjs.org';

/** The registry's non-public addresses here (empty where it resolves to public ones only). */
export async function reservedRegistryAddresses(): Promise<string[]> {
  const addresses = (await lookup(REGISTRY, { all: true })).map((a) => a.address);
  const reserved = addresses.filter((a) => {
    const ip = parseIp(a);
    return ip !== undefined && classifyAddress(ip) !== 'public';
  });
  if (reserved.length > 0)
    console.log(
      `note: this host resolves ${REGISTRY} to ${reserved.join(', ')}, not a public address: ` +
        'the broker refuses it unless listed, so this bench lists it (--allow-address)',
    );
  return reserved;
}
