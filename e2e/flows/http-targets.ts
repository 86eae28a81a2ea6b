/** HTTP servers on 127.0.0.1 that a sandboxed server is made to reach during a flow. */
import { type Server, createServer } from 'node:http';

export interface HttpTarget {
  port: number;
  /** Paths requested so far, in order. */
  hits: string[];
  close(): Promise<void>;
}

/** Starts a server that answers every request with `hello from PATH`. */
export async function startHttpTarget(): Promise<HttpTarget> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.end(`hello from ${req.url ?? ''}`);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    hits,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
