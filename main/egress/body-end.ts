/**
 * Where an HTTP/1.1 response body ends, found while the body streams past: a count for
 * `Content-Length`, the chunk sizes for `Transfer-Encoding: chunked` (data bytes are skipped,
 * not scanned), nothing for a body the upstream ends by closing. The proxy ends the client's
 * connection there, whatever the upstream does with its own.
 */

/** Tracks one response body; `feed` says where in a chunk the body ended, or -1. */
export interface BodyEnd {
  feed(chunk: Buffer): number;
}

/** Longest chunk-size line (with extensions) or trailer line taken. */
const MAX_LINE = 4096;

class LengthEnd implements BodyEnd {
  constructor(private left: number) {}
  feed(chunk: Buffer): number {
    if (chunk.length < this.left) {
      this.left -= chunk.length;
      return -1;
    }
    const at = this.left;
    this.left = 0;
    return at;
  }
}

class ChunkedEnd implements BodyEnd {
  private state: 'size' | 'data' | 'data-crlf' | 'trailer' | 'bad' = 'size';
  private line = '';
  private left = 0;

  feed(chunk: Buffer): number {
    let i = 0;
    while (i < chunk.length) {
      if (this.state === 'data') {
        const take = Math.min(this.left, chunk.length - i);
        this.left -= take;
        i += take;
        if (this.left === 0) {
          this.state = 'data-crlf';
          this.left = 2;
        }
        continue;
      }
      if (this.state === 'data-crlf') {
        this.left--;
        i++;
        if (this.left === 0) this.state = 'size';
        continue;
      }
      if (this.state === 'bad') return -1;
      const nl = chunk.indexOf(10, i);
      const end = nl < 0 ? chunk.length : nl;
      this.line += chunk.toString('latin1', i, end);
      i = end;
      if (this.line.length > MAX_LINE) this.state = 'bad';
      if (nl < 0) continue;
      i++;
      const line = this.line.replace(/\r$/, '');
      this.line = '';
      if (this.state === 'trailer') {
        if (line === '') return i;
        continue;
      }
      const m = /^([0-9a-fA-F]{1,12})[\t ;]?/.exec(line);
      if (!m) {
        this.state = 'bad';
        continue;
      }
      this.left = parseInt(m[1]!, 16);
      this.state = this.left === 0 ? 'trailer' : 'data';
    }
    return -1;
  }
}

const NEVER: BodyEnd = { feed: () => -1 };
const EMPTY: BodyEnd = { feed: () => 0 };

/**
 * The body framing of a response to `method` with `status` and its `headers` (name, value…): an
 * unreadable framing is treated as a body the upstream ends by closing (`NEVER`), so the proxy
 * never ends an answer early.
 */
export function bodyEnd(method: string, status: number, headers: readonly string[]): BodyEnd {
  if (method === 'HEAD' || status === 204 || status === 304) return EMPTY;
  let length: string | undefined;
  let lengths = 0;
  let coding: string | undefined;
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = headers[i]!.toLowerCase();
    if (name === 'content-length') {
      length = headers[i + 1]!;
      lengths++;
    } else if (name === 'transfer-encoding') {
      coding = `${coding ? `${coding},` : ''}${headers[i + 1]}`;
    }
  }
  if (coding !== undefined) {
    const last = coding.split(',').pop()!.trim().toLowerCase();
    return last === 'chunked' ? new ChunkedEnd() : NEVER;
  }
  if (lengths === 1 && /^[0-9]{1,15}$/.test(length!)) {
    const n = Number(length);
    return n === 0 ? EMPTY : new LengthEnd(n);
  }
  return NEVER;
}
