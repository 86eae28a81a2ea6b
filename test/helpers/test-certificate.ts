/** A self-signed certificate for local TLS servers in tests, made with `openssl`. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The key and certificate (PEM files in `dir`, made on the first call) of a CA-less certificate for
 * `api.test`, `other.test`, `loop.test`, 127.0.0.1 and 127.0.0.2, valid two days: trusted only
 * where a test says so.
 */
export async function testCertificate(dir: string): Promise<{ key: string; cert: string }> {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  if (!existsSync(cert)) {
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=api.test',
      '-addext',
      'subjectAltName=DNS:api.test,DNS:other.test,DNS:loop.test,IP:127.0.0.1,IP:127.0.0.2',
    ]);
  }
  return { key, cert };
}
