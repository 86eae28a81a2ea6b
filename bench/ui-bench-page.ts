/// <reference lib="dom" />
/**
 * The page side of the UI benchmark, injected before the renderer loads: a fake `window.warden`
 * (the Electron preload's shape) that answers the contract with empty lists and pushes
 * synthetic audit batches on demand, plus the frame and scroll probes. Self-contained: Playwright
 * serializes `installBenchPage` into the page, so it may not refer to anything outside itself.
 */

export interface BenchProbe {
  /** Pushes `count` audit rows (oldest first) in one `audit.batch`. */
  emit(count: number): void;
  /** Streams `perSecond` rows in batches every `everyMs`; returns a stop function. */
  stream(perSecond: number, everyMs: number): () => void;
  /**
   * Scrolls `selector` (the audit list by default; `document` for the page) by `px` every frame
   * and records frame intervals until `stopScroll`.
   */
  startScroll(px: number, selector?: string): void;
  stopScroll(): FrameRecord;
  rowsEmitted(): number;
}

export interface FrameRecord {
  /** Time between consecutive animation frames, ms. */
  intervals: number[];
  /** From a frame's rAF callback to the first task after that frame's rendering, ms. */
  work: number[];
  /** Long animation frames (> 50 ms) reported by the browser. */
  longFrames: number;
  scrolledPx: number;
}

/**
 * Installs the fake core. With `servers`, the servers list has that many sandboxed servers, each
 * with a ready instance, and the synthetic events are spread over all of them.
 */
export function installBenchPage(options?: { servers?: number }): void {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  let nextId = 1;
  const serverCount = options?.servers ?? 0;
  const servers =
    serverCount > 0
      ? Array.from({ length: serverCount }, (_, i) => `server-${String(i).padStart(3, '0')}`)
      : ['github', 'filesystem', 'memory', 'search', 'fetch'];
  const tools = ['search_issues', 'read_file', 'create_entities', 'web_search', 'fetch'];
  const hex = (n: number) =>
    (n.toString(16).padStart(8, '0') + 'a1b2c3d4e5f60718').repeat(3).slice(0, 64);

  const row = (id: number) => {
    const s = id % servers.length;
    const server = servers[s]!;
    const tool = tools[s % tools.length];
    const instance = `${server}-inst-${(id >> 10) % 4}`;
    const ts = new Date(1_700_000_000_000 + id * 10).toISOString();
    const slot = id % 10;
    let event: Record<string, unknown>;
    let outcome = 'ok';
    if (slot < 4) {
      outcome = 'info';
      event = {
        kind: 'mcp.request',
        requestId: id,
        method: 'tools/call',
        tool,
        args: { query: `issue ${id}`, path: `/home/u/p/file-${id % 5000}.ts` },
        sizeBytes: 180,
      };
    } else if (slot < 8) {
      outcome = slot === 7 ? 'error' : 'ok';
      event = {
        kind: 'mcp.response',
        requestId: id - 4,
        method: 'tools/call',
        tool,
        resultSummary: '2 content blocks, 1.4 kB',
        durationMs: 12 + (id % 90),
        sizeBytes: 1400,
      };
    } else {
      outcome = slot === 9 ? 'refused' : 'ok';
      event = {
        kind: 'network.decision',
        host: `api${id % 7}.example.com`,
        port: 443,
        decision: slot === 9 ? 'deny' : 'allow',
        by: 'rule',
        rule: 'allow *.example.com',
        bytesUp: 300,
        bytesDown: 5000,
        durationMs: 40,
      };
    }
    return {
      id,
      ts,
      kind: event.kind,
      server,
      instance,
      outcome,
      event: { ...event, ts, server, instance, outcome },
      hash: hex(id),
      prevHash: hex(id - 1),
    };
  };

  const emit = (count: number) => {
    const batch = [];
    for (let i = 0; i < count; i++) batch.push(row(nextId++));
    for (const l of listeners.get('audit.batch') ?? []) l(batch);
  };

  const policy = (i: number) => ({
    isolation: 'sandbox',
    filesystem: { roots: [{ path: `/home/u/projects/p${i}`, access: i % 3 ? 'read' : 'write' }] },
    network: {
      mode: 'allowlist',
      allow: ['*.example.com', `api${i % 7}.example.com`],
      deny: ['tracker.example.net'],
      allowAddresses: [],
      askTimeoutSeconds: 60,
    },
    env: { pass: [], set: {} },
    limits: { bestEffort: [] },
    tools: { disabled: [], approval: [], pinned: {} },
    idleTimeoutSeconds: 600,
  });
  const views = Array.from({ length: serverCount }, (_, i) => ({
    server: {
      name: servers[i],
      launch: { command: 'npx', args: ['-y', `@example/mcp-server-${i}`] },
      policy: policy(i),
      revision: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      acknowledged: true,
    },
    commandLine: `npx -y @example/mcp-server-${i}`,
    isolation: { kind: 'sandboxed', backend: 'bwrap' },
  }));
  const instances = servers.slice(0, serverCount).map((name, i) => ({
    id: `inst-${i}`,
    server: name,
    client: 'stdio',
    revision: 1,
    backend: 'bwrap',
    state: { kind: 'running', since: '2026-01-01T00:00:00.000Z' },
    restarts: 0,
    stderrTail: [],
    ready: true,
  }));
  const empty: Record<string, unknown> = {
    'audit.query': { rows: [] },
    'audit.verify': { ok: true, rows: 0, headHash: '0'.repeat(64) },
    'servers.list': views,
    'instances.list': instances,
    'policy.get': {
      stored: null,
      applied: {},
      managed: { path: '/etc/mcp-warden/managed-policy.json', policy: null },
    },
  };
  (window as unknown as { warden: unknown }).warden = {
    call: (op: string) =>
      Promise.resolve(op in empty ? empty[op] : op === 'host.doctor' ? undefined : []),
    on: (event: string, listener: (payload: unknown) => void) => {
      const set = listeners.get(event) ?? new Set();
      set.add(listener);
      listeners.set(event, set);
      return () => set.delete(listener);
    },
  };

  let stop: () => FrameRecord = () => ({ intervals: [], work: [], longFrames: 0, scrolledPx: 0 });
  const probe: BenchProbe = {
    emit,
    rowsEmitted: () => nextId - 1,
    stream: (perSecond, everyMs) => {
      const per = Math.max(1, Math.round((perSecond * everyMs) / 1000));
      const started = performance.now();
      let sent = 0;
      const timer = setInterval(() => {
        // Catch up if a tick was late, so the rate holds at `perSecond`.
        const due = Math.floor(((performance.now() - started) / 1000) * perSecond) - sent;
        const n = Math.max(per, due);
        emit(n);
        sent += n;
      }, everyMs);
      return () => clearInterval(timer);
    },
    startScroll: (px, selector = '.audit-scroll') => {
      const el =
        selector === 'document'
          ? (document.scrollingElement as HTMLElement | null)
          : document.querySelector<HTMLElement>(selector);
      if (!el) throw new Error(`nothing to scroll: ${selector}`);
      const intervals: number[] = [];
      const work: number[] = [];
      let longFrames = 0;
      const po = new PerformanceObserver((list) => (longFrames += list.getEntries().length));
      try {
        po.observe({ type: 'long-animation-frame', buffered: false });
      } catch {
        /* not supported: counted as 0 */
      }
      let last = 0;
      let running = true;
      let scrolledPx = 0;
      const channel = new MessageChannel();
      let frameStart = 0;
      // The message posted from a rAF callback runs once that frame's rendering is done.
      channel.port1.onmessage = () => work.push(performance.now() - frameStart);
      const tick = (t: number) => {
        if (!running) return;
        if (last) intervals.push(t - last);
        last = t;
        frameStart = performance.now();
        const max = el.scrollHeight - el.clientHeight;
        el.scrollTop = el.scrollTop + px >= max ? 0 : el.scrollTop + px;
        scrolledPx += px;
        channel.port2.postMessage(0);
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      stop = () => {
        running = false;
        po.disconnect();
        return { intervals, work, longFrames, scrolledPx };
      };
    },
    stopScroll: () => stop(),
  };
  (window as unknown as { __bench: BenchProbe }).__bench = probe;
}
