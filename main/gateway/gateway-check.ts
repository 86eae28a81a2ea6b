/**
 * Whether the program on the gateway port is Warden's own gateway: it must answer a fresh nonce
 * with the proof, for that port, that only a holder of this Warden home's owner key can compute.
 * Anything else on the port (another user's listener, another program, one that passes the
 * challenge on to Warden's gateway on another port) is named with its owner when it can be found.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { isOwnerProof } from './client-tokens';
import { type PortOwner, describePortOwner, findPortOwner } from './port-owner';

/** The path on which the gateway proves it is Warden's. */
export const OWNER_PATH = '/.well-known/warden-owner';

export type GatewayCheck =
  | { kind: 'warden'; port: number }
  | { kind: 'not-running'; port: number }
  | { kind: 'foreign'; port: number; owner?: PortOwner };

/** Asks whatever listens on 127.0.0.1:`port` to prove it is Warden with `ownerKey`. */
export async function checkGateway(
  port: number,
  ownerKey: string,
  timeoutMs = 3000,
): Promise<GatewayCheck> {
  const nonce = randomBytes(16).toString('hex');
  const answer = await new Promise<{ status: number; body: string } | 'refused' | 'failed'>(
    (resolve) => {
      const req = request(
        { host: '127.0.0.1', port, path: `${OWNER_PATH}?nonce=${nonce}`, timeout: timeoutMs },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            body += c;
            if (body.length > 4096) req.destroy();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          res.on('error', () => resolve('failed'));
        },
      );
      req.on('timeout', () => req.destroy());
      req.on('error', (error: NodeJS.ErrnoException) =>
        resolve(error.code === 'ECONNREFUSED' ? 'refused' : 'failed'),
      );
      req.end();
    },
  );
  if (answer === 'refused') return { kind: 'not-running', port };
  if (answer !== 'failed' && answer.status === 200) {
    let proof = '';
    try {
      const said = (JSON.parse(answer.body) as { proof?: unknown }).proof;
      if (typeof said === 'string') proof = said;
    } catch {
      // not a proof
    }
    if (isOwnerProof(ownerKey, port, nonce, proof)) return { kind: 'warden', port };
  }
  const owner = await findPortOwner(port);
  return owner ? { kind: 'foreign', port, owner } : { kind: 'foreign', port };
}

/** One sentence saying why the gateway at `check.port` is not Warden's, for errors. */
export function describeGatewayProblem(check: Exclude<GatewayCheck, { kind: 'warden' }>): string {
  return check.kind === 'not-running'
    ? `Warden's MCP gateway is not running on 127.0.0.1:${check.port}, so nothing proves that the port is Warden's`
    : `127.0.0.1:${check.port} is held by ${describePortOwner(check.owner)}, not by Warden's gateway`;
}
