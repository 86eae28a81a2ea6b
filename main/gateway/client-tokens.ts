/**
 * The bearer tokens Warden writes into AI clients' configs for the HTTP gateway: one per client
 * file, kept only as digests in `$WARDEN_HOME/gateway-tokens.json` (0600), revocable one by one,
 * and revoked all at once, to be replaced, when Warden finds another program on its port (which
 * may have received them). The file also holds the key with which the gateway proves to the CLI
 * that a port is Warden's own.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../config/atomic-write';
import { withLockFile } from '../core/core-lock';

const tokenRecordSchema = z.object({
  id: z.string(),
  client: z.string(),
  file: z.string(),
  digest: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().optional(),
  revokedWhy: z.string().optional(),
  /** Revoked because the port was taken: a new token goes into the client's file later. */
  rotate: z.boolean().optional(),
});
const tokenFileSchema = z.object({
  version: z.literal(1),
  ownerKey: z.string().min(32),
  tokens: z.array(tokenRecordSchema),
});

export type ClientTokenRecord = z.infer<typeof tokenFileSchema>['tokens'][number];
type TokenFile = z.infer<typeof tokenFileSchema>;

const digestOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * The proof the gateway bound to `port` gives for `nonce`: only a holder of the owner key can
 * compute it. It names the port, so a listener on another port that passes the challenge on to
 * Warden's gateway gets a proof for the gateway's port, not for its own.
 */
export function ownerProof(ownerKey: string, port: number, nonce: string): string {
  return createHmac('sha256', ownerKey)
    .update(`warden-owner ${port} ${nonce}`, 'utf8')
    .digest('hex');
}

/** True when `proof` is the owner key's proof for `nonce` on `port` (constant time). */
export function isOwnerProof(
  ownerKey: string,
  port: number,
  nonce: string,
  proof: string,
): boolean {
  const want = Buffer.from(ownerProof(ownerKey, port, nonce), 'hex');
  const got = Buffer.from(/^[0-9a-f]{64}$/.test(proof) ? proof : '', 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}

/** The client token store of one Warden home. */
export class ClientTokens {
  private readonly path: string;
  private queue: Promise<unknown> = Promise.resolve();
  private cache: { mtimeMs: number; digests: Set<string> } | undefined;

  constructor(wardenHome: string) {
    this.path = join(wardenHome, 'gateway-tokens.json');
  }

  /** Every token record, active and revoked. */
  async list(): Promise<ClientTokenRecord[]> {
    return (await this.read()).tokens;
  }

  /** The key the gateway proves its ownership of the port with. */
  async ownerKey(): Promise<string> {
    return (await this.read()).ownerKey;
  }

  /** A new token for `client`'s `file`; earlier tokens of that file are revoked. */
  async issue(client: string, file: string, now = new Date()): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.update((f) => {
      for (const t of f.tokens)
        if (t.client === client && t.file === file && !t.revokedAt) {
          t.revokedAt = now.toISOString();
          t.revokedWhy = 'replaced by a new token';
        }
      f.tokens.push({
        id: randomBytes(6).toString('hex'),
        client,
        file,
        digest: digestOf(token),
        createdAt: now.toISOString(),
      });
    });
    return token;
  }

  /** Revokes the active tokens of `client` (of one file when given); returns them. */
  async revoke(
    client: string,
    why: string,
    file?: string,
    now = new Date(),
  ): Promise<ClientTokenRecord[]> {
    return this.revokeWhere(
      (t) => t.client === client && (!file || t.file === file),
      why,
      false,
      now,
    );
  }

  /** Revokes the active tokens of every client `known` does not know; returns them. */
  async revokeUnknown(
    known: (client: string) => boolean,
    why: string,
    now = new Date(),
  ): Promise<ClientTokenRecord[]> {
    const unknown = (t: ClientTokenRecord) => !t.revokedAt && !known(t.client);
    // Written only when there is one: this runs at every start of the gateway.
    if (!(await this.load())?.tokens.some(unknown)) return [];
    return this.revokeWhere(unknown, why, false, now);
  }

  /** Revokes every active token, marked to be replaced in its client's file later. */
  async revokeAll(why: string, now = new Date()): Promise<ClientTokenRecord[]> {
    return this.revokeWhere(() => true, why, true, now);
  }

  /** Clears the rotation mark of the tokens with these ids (their files got new tokens). */
  async rotated(ids: readonly string[]): Promise<void> {
    await this.update((f) => {
      for (const t of f.tokens) if (ids.includes(t.id)) delete t.rotate;
    });
  }

  /** True when `offered` is an active token. Re-reads the file when another process changed it. */
  async check(offered: string): Promise<boolean> {
    if (offered.length < 16 || offered.length > 256) return false;
    const mtimeMs = (await stat(this.path).catch(() => undefined))?.mtimeMs ?? -1;
    if (this.cache?.mtimeMs !== mtimeMs) {
      const f = await this.read();
      this.cache = {
        mtimeMs,
        digests: new Set(f.tokens.filter((t) => !t.revokedAt).map((t) => t.digest)),
      };
    }
    return this.cache.digests.has(digestOf(offered));
  }

  private async revokeWhere(
    match: (t: ClientTokenRecord) => boolean,
    why: string,
    rotate: boolean,
    now: Date,
  ): Promise<ClientTokenRecord[]> {
    const revoked: ClientTokenRecord[] = [];
    await this.update((f) => {
      for (const t of f.tokens)
        if (!t.revokedAt && match(t)) {
          t.revokedAt = now.toISOString();
          t.revokedWhy = why;
          if (rotate) t.rotate = true;
          revoked.push({ ...t });
        }
    });
    return revoked;
  }

  /** The file, written first when it does not exist yet (so the owner key stays the same). */
  private async read(): Promise<TokenFile> {
    const loaded = await this.load();
    if (loaded) return loaded;
    await this.update(() => undefined);
    return (await this.load())!;
  }

  private async load(): Promise<TokenFile | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch {
      return undefined;
    }
    return tokenFileSchema.parse(JSON.parse(text));
  }

  /**
   * Reads, changes and writes the file whole: one change at a time in this process, and under
   * the file's lock across this user's Warden processes, so that a token revoked by one (`warden
   * clients revoke-token`) is never made valid again by another's change written over it.
   */
  private update(change: (f: TokenFile) => void): Promise<void> {
    const next = this.queue.then(() =>
      withLockFile(this.path, 'a change to the gateway tokens', async () => {
        const f = (await this.load()) ?? {
          version: 1 as const,
          ownerKey: randomBytes(32).toString('base64url'),
          tokens: [],
        };
        change(f);
        await writeFileAtomic(this.path, `${JSON.stringify(f, null, 2)}\n`);
      }),
    );
    this.queue = next.catch(() => undefined);
    return next;
  }
}
