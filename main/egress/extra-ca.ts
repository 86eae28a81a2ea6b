/**
 * The certificates of NODE_EXTRA_CA_CERTS for a `warden connect` that started without them.
 *
 * Node reads that file as it starts, before any code runs: 38 ms for a system bundle of 144
 * certificates on a 2-vCPU machine, on the way to the server's launch. The connect process opens
 * TLS itself only for an absolute-form https:// request through the egress proxy and for a remote
 * server's upstream. So the shell front (`warden_certs` in bin/warden-door.sh) moves the variable
 * aside for a plain `warden connect`, as WARDEN_EXTRA_CA_CERTS=PID:FILE, PID being the Node
 * process it goes on to exec (an unset NODE_OPTIONS only: an option there may choose another trust
 * store). That process puts NODE_EXTRA_CA_CERTS back for whatever it starts (`restoreExtraCa`),
 * and each place where it opens TLS takes `extraCaContext()`: one secure context whose store is
 * the runtime's default one with the file's certificates added, as Node would have made it, built
 * at its first use. A file that cannot be read is warned about, as Node warns, and left out: TLS
 * then trusts the default store alone (a private CA's server is refused, never trusted more).
 */
import { readFileSync } from 'node:fs';
import tls from 'node:tls';

const ASIDE = 'WARDEN_EXTRA_CA_CERTS';

/** The file the shell front moved aside for this process, if it did. */
export function extraCaFileAside(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const aside = env[ASIDE];
  const colon = aside?.indexOf(':') ?? -1;
  if (!aside || colon < 1 || aside.slice(0, colon) !== String(process.pid)) return undefined;
  return aside.slice(colon + 1) || undefined;
}

/** Gives NODE_EXTRA_CA_CERTS back to `env`, for the processes this one starts. */
export function restoreExtraCa(env: NodeJS.ProcessEnv = process.env): void {
  const file = extraCaFileAside(env);
  if (file !== undefined && env.NODE_EXTRA_CA_CERTS === undefined) env.NODE_EXTRA_CA_CERTS = file;
}

let built: { file: string; context: tls.SecureContext | undefined } | undefined;

/**
 * The secure context to open TLS with when this process started without its extra certificates;
 * undefined when Node's default already trusts what it should (or the file could not be used).
 */
export function extraCaContext(
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = (line) => process.stderr.write(line),
): tls.SecureContext | undefined {
  const file = extraCaFileAside(env);
  if (file === undefined) return undefined;
  if (built?.file === file) return built.context;
  let context: tls.SecureContext | undefined;
  try {
    context = trustingAlso(readFileSync(file));
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    warn(`warden: Ignoring extra certs from \`${file}\`, load failed: ${reason}\n`);
  }
  built = { file, context };
  return context;
}

/**
 * A secure context that trusts what Node trusts by default and the certificates in `pem` too: they
 * are added as Node adds NODE_EXTRA_CA_CERTS, to the store it trusts by default (its bundled roots,
 * or the system's where it is built or told to use those), not to a list of Warden's choosing.
 * Throws when the runtime cannot add certificates to a context.
 */
export function trustingAlso(pem: Buffer | string): tls.SecureContext {
  const context = tls.createSecureContext();
  const native = (context as { context?: { addCACert?: (pem: Buffer | string) => void } }).context;
  if (typeof native?.addCACert !== 'function')
    throw new Error('this runtime cannot add certificates to its trust store');
  native.addCACert(pem);
  return context;
}
