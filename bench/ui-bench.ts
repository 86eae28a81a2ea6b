/// <reference lib="dom" />
/**
 * UI benchmark in Chromium: the built renderer (out/renderer) with 100,000 audit rows loaded while
 * 1,000 new events a second stream in and the list is scrolled continuously; then the servers
 * list with 200 servers whose activity strips take the same stream while the list scrolls. Prints
 * frame intervals (vsync-locked at 60 Hz, and unthrottled, where an interval is what a frame
 * really cost), per-frame rendering work, long animation frames, the renderer main thread's CPU
 * time per second from a trace (which, unlike intervals, does not grow when other processes take
 * the CPU), the paint updates per frame by the layer painted (which says what a scrolled frame
 * repaints), and the JS heap after GC as events keep arriving. Each list is first scrolled for
 * the same time with no events (the baseline, in the same browser): the ratios say what the
 * stream adds.
 * Run `node bench/run.mjs ui-bench [--seconds N] [--only audit|servers]` from the repository
 * after `npm run build` (`--only` runs one of the two lists); `UI_BENCH_TRACE=/tmp/t` also
 * writes each phase's trace, with invalidation tracking, for the Performance panel. Prints
 * figures only; no pass/fail.
 *
 * The core is replaced by a fake `window.warden` in the page (bench/ui-bench-page.ts) so that the
 * figures are the renderer's own, not the audit store's or the WebSocket's.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import config from '../playwright.config';
import { type BenchProbe, type FrameRecord, installBenchPage } from './ui-bench-page';
import { benchFlags } from './bench-flags';

const { seconds, only } = benchFlags(
  'ui-bench',
  'Frame times and heap of the audit and servers lists in Chromium under a stream of events.',
  {
    seconds: { type: 'number', fallback: 20, help: 'seconds of each scroll phase' },
    only: { type: 'string', arg: 'audit|servers', help: 'measure one of the two lists only' },
  },
);
if (only !== undefined && only !== 'audit' && only !== 'servers') {
  process.stderr.write(`ui-bench: --only takes audit or servers, not "${only}"\n`);
  process.exit(2);
}
/** UI_BENCH_TRACE=PREFIX writes each scroll phase's Chromium trace to PREFIX-base/-stream.json. */
const traceTo = process.env.UI_BENCH_TRACE;
const LOADED = 100_000;
const RATE = 1_000;
const SCROLL_PX = 84; // three rows a frame: a fast, steady scroll
const HEAP_SAMPLES = 6;
const SERVERS = 200;
const LIST_SCROLL_PX = 40;
/** The e2e suite's Chromium and flags. */
const launch = config.use?.launchOptions ?? {};
const UNTHROTTLED = ['--disable-frame-rate-limit', '--disable-gpu-vsync'];
const types: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.map': 'application/json',
};

const root = join(process.cwd(), 'out', 'renderer');
if (!existsSync(join(root, 'index.html'))) {
  throw new Error(`${root}/index.html not found: run "npm run build" in the repository first`);
}

async function serveRenderer(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const file = join(root, path === '/' ? 'index.html' : path);
    if (!file.startsWith(root)) return void res.writeHead(403).end();
    readFile(file).then(
      (body) =>
        res
          .writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' })
          .end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/` };
}

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;
const mb = (v: number) => `${(v / 1024 / 1024).toFixed(1)} MB`;

async function heapAfterGc(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  return usedSize;
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  /** Thread clock: start and duration of CPU time on that thread, µs. */
  tts?: number;
  tdur?: number;
  args?: { name?: string; data?: { nodeName?: string } };
}

/** Total length of the union of `spans` ([start, end] pairs). */
function unionLength(spans: Array<[number, number]>): number {
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of spans.sort((x, y) => x[0] - y[0])) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

/**
 * CPU time (thread time, so it does not grow when other processes take the CPU) from a trace, in
 * ms: the renderer main thread's (every event on it, nested ones counted once), its style and
 * layout, its paint, and the raster threads' work.
 */
function traceCpu(events: TraceEvent[]): Record<'main' | 'layout' | 'paint' | 'raster', number> & {
  paints: Map<string, number>;
} {
  const names = new Map<string, string>();
  for (const e of events)
    if (e.ph === 'M' && e.name === 'thread_name')
      names.set(`${e.pid}:${e.tid}`, e.args?.name ?? '');
  const spans: Record<'main' | 'layout' | 'paint' | 'raster', Array<[number, number]>> = {
    main: [],
    layout: [],
    paint: [],
    raster: [],
  };
  const kinds: Record<string, 'layout' | 'paint'> = {
    Layout: 'layout',
    UpdateLayoutTree: 'layout',
    Paint: 'paint',
    PrePaint: 'paint',
  };
  // Paint updates by the element that owns the painted layer (the page or a scroller).
  const paints = new Map<string, number>();
  for (const e of events) {
    if (e.ph !== 'X' || e.tdur === undefined || e.tts === undefined) continue;
    if (e.name === 'Paint') {
      const owner = e.args?.data?.nodeName ?? '?';
      paints.set(owner, (paints.get(owner) ?? 0) + 1);
    }
    const span: [number, number] = [e.tts, e.tts + e.tdur];
    const thread = names.get(`${e.pid}:${e.tid}`);
    if (thread === 'CrRendererMain') {
      spans.main.push(span);
      const kind = kinds[e.name];
      if (kind) spans[kind].push(span);
    } else if (e.name === 'RasterTask') spans.raster.push(span);
  }
  return {
    main: unionLength(spans.main) / 1000,
    layout: unionLength(spans.layout) / 1000,
    paint: unionLength(spans.paint) / 1000,
    // Raster threads run side by side: their spans are summed, not merged.
    raster: spans.raster.reduce((t, [a, b]) => t + b - a, 0) / 1000,
    paints,
  };
}

interface Phase {
  frames: FrameRecord;
  /** CPU ms per second: the renderer main thread's, its parts, and raster. */
  cpu: Record<'main' | 'layout' | 'paint' | 'raster', number>;
  /** Paint updates per frame, by the element owning the painted layer. */
  paints: Map<string, number>;
  /** Events streamed per second while timed. */
  rate: number;
}

/** Scrolls `selector` by `px` a frame for the bench's time (streaming events if `stream`). */
async function scrollPhase(page: Page, selector: string, px: number, stream: boolean) {
  await page.evaluate(
    ([sel, step, rate]) => {
      const w = window as unknown as { __bench: BenchProbe; __stopStream?: () => void };
      if (rate > 0) w.__stopStream = w.__bench.stream(rate, 20);
      w.__bench.startScroll(step, sel);
    },
    [selector, px, stream ? RATE : 0] as const,
  );
  const browser = page.context().browser();
  await browser?.startTracing(page, {
    categories: [
      'toplevel',
      'devtools.timeline',
      'disabled-by-default-devtools.timeline',
      // With a trace file asked for: what invalidated style, layout and paint, and from where.
      ...(traceTo
        ? [
            'disabled-by-default-devtools.timeline.stack',
            'disabled-by-default-devtools.timeline.invalidationTracking',
          ]
        : []),
    ],
  });
  const t0 = Date.now();
  const emitted0 = await page.evaluate(() =>
    (window as unknown as { __bench: BenchProbe }).__bench.rowsEmitted(),
  );
  await new Promise((r) => setTimeout(r, seconds * 1000));
  // The stream stops with the scroll: collecting the trace takes a while.
  const { frames, emitted } = await page.evaluate(() => {
    const w = window as unknown as { __bench: BenchProbe; __stopStream?: () => void };
    w.__stopStream?.();
    return { frames: w.__bench.stopScroll(), emitted: w.__bench.rowsEmitted() };
  });
  const elapsed = (Date.now() - t0) / 1000;
  const trace = await browser?.stopTracing();
  if (traceTo && trace) await writeFile(`${traceTo}-${stream ? 'stream' : 'base'}.json`, trace);
  const events = trace
    ? (JSON.parse(trace.toString()) as { traceEvents: TraceEvent[] }).traceEvents
    : [];
  const total = traceCpu(events);
  const cpu = {
    main: total.main / elapsed,
    layout: total.layout / elapsed,
    paint: total.paint / elapsed,
    raster: total.raster / elapsed,
  };
  const perFrame = new Map(
    [...total.paints].map(([owner, n]) => [owner, n / Math.max(1, frames.intervals.length)]),
  );
  return { frames, cpu, paints: perFrame, rate: (emitted - emitted0) / elapsed } satisfies Phase;
}

function report(p: Phase, base: Phase): void {
  const f = p.frames;
  const over = f.intervals.filter((v) => v > 16.7).length;
  // At 60 Hz an interval over 25 ms means at least one frame was missed; 16.7-25 is jitter.
  const missed = f.intervals.filter((v) => v > 25).length;
  const share = (n: number) => `${((100 * n) / (f.intervals.length || 1)).toFixed(1)}%`;
  const ratio = (a: number, b: number) => (b > 0 ? `×${(a / b).toFixed(2)}` : 'n/a');
  console.log(
    `  frame interval: n=${f.intervals.length} p50 ${ms(pct(f.intervals, 50))} p95 ${ms(pct(f.intervals, 95))} p99 ${ms(pct(f.intervals, 99))} max ${ms(Math.max(...f.intervals))}; over 16.7 ms: ${over} (${share(over)}), over 25 ms: ${missed} (${share(missed)})`,
  );
  console.log(
    `  rendering work per frame: p50 ${ms(pct(f.work, 50))} p95 ${ms(pct(f.work, 95))} p99 ${ms(pct(f.work, 99))}; long animation frames (> 50 ms): ${f.longFrames}`,
  );
  const c = p.cpu;
  console.log(
    `  CPU time per second (thread time): renderer main thread ${ms(c.main)} = ${ms(c.main / 60)} a 60 Hz frame (style and layout ${ms(c.layout)}, paint ${ms(c.paint)}); raster ${ms(c.raster)}`,
  );
  // On a loaded machine fewer frames are shown; the work per frame shown stays comparable.
  const fps = f.intervals.length / seconds;
  console.log(
    `  per frame shown (${fps.toFixed(1)} a second): renderer main thread ${ms(c.main / fps)}, raster ${ms(c.raster / fps)}`,
  );
  const painted = [...p.paints]
    .sort((a, b) => b[1] - a[1])
    .map(([owner, n]) => `${owner} ${n.toFixed(2)}`)
    .join(', ');
  console.log(`  paint updates per frame, by the layer's element: ${painted || 'none'}`);
  console.log(
    `  baseline, same scroll without events: interval p95 ${ms(pct(base.frames.intervals, 95))}, long frames ${base.frames.longFrames}, main thread ${ms(base.cpu.main)} CPU a second; with events: p95 ${ratio(pct(f.intervals, 95), pct(base.frames.intervals, 95))}, main thread ${ratio(c.main, base.cpu.main)}`,
  );
}

/** Samples the heap after GC every 5 s while events keep arriving (no frames timed then). */
async function heapWhileStreaming(page: Page): Promise<string> {
  await page.evaluate((rate) => {
    const w = window as unknown as { __bench: BenchProbe; __stopStream?: () => void };
    w.__stopStream = w.__bench.stream(rate, 20);
  }, RATE);
  const heap: string[] = [];
  const t0 = Date.now();
  for (let i = 0; i < HEAP_SAMPLES; i++) {
    await new Promise((r) => setTimeout(r, 5000));
    const h = await heapAfterGc(page);
    heap.push(`+${Math.round((Date.now() - t0) / 1000)}s ${mb(h)}`);
  }
  await stopStream(page);
  return heap.join(', ');
}

const stopStream = (page: Page) =>
  page.evaluate(() => (window as unknown as { __stopStream?: () => void }).__stopStream?.());

/** The baseline scroll, the scroll under the stream, then (if asked) the heap as it goes on. */
async function measure(page: Page, selector: string, px: number, sampleHeap: boolean) {
  const base = await scrollPhase(page, selector, px, false);
  const p = await scrollPhase(page, selector, px, true);
  const heap = sampleHeap ? await heapWhileStreaming(page) : '';
  return { base, p, heap };
}

async function withPage(
  flags: string[],
  servers: number | undefined,
  body: (page: Page) => Promise<void>,
): Promise<void> {
  const browser: Browser = await chromium.launch({
    executablePath: launch.executablePath ?? '/usr/bin/chromium',
    args: [...(launch.args ?? []), ...flags],
  });
  const { server, url } = await serveRenderer();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.addInitScript(installBenchPage, servers === undefined ? undefined : { servers });
    await page.goto(url);
    await body(page);
  } finally {
    await browser.close();
    server.close();
  }
}

/** The audit list: 100,000 rows loaded, then scrolled while 1,000 rows a second arrive. */
async function runAudit(label: string, flags: string[], sampleHeap: boolean): Promise<void> {
  await withPage(flags, undefined, async (page) => {
    await page.getByRole('button', { name: 'Audit log' }).click();
    await page.locator('.audit-scroll').waitFor();
    const t0 = Date.now();
    for (let i = 0; i < LOADED / 5000; i++) {
      await page.evaluate(() => (window as unknown as { __bench: BenchProbe }).__bench.emit(5000));
    }
    await page.locator(`[data-audit-count="${LOADED}"]`).waitFor({ timeout: 60_000 });
    const loadMs = Date.now() - t0;
    const heapLoaded = sampleHeap ? await heapAfterGc(page) : 0;
    const domRows = await page.locator('.audit-row').count();
    const { base, p, heap } = await measure(page, '.audit-scroll', SCROLL_PX, sampleHeap);
    const held = await page.locator('[data-audit-count]').getAttribute('data-audit-count');
    console.log(`\n${label}`);
    console.log(
      `  loaded ${LOADED.toLocaleString()} rows in ${loadMs} ms; ${domRows} row elements in the DOM`,
    );
    console.log(
      `  streamed ${Math.round(p.rate)} rows/s for ${seconds} s while scrolling ${SCROLL_PX} px a frame (${p.frames.scrolledPx.toLocaleString()} px)`,
    );
    report(p, base);
    if (sampleHeap) {
      console.log(
        `  JS heap after GC: ${mb(heapLoaded)} with ${LOADED.toLocaleString()} rows; as more rows arrived: ${heap}; rows held: ${held}`,
      );
    }
  });
}

/** The servers list: 200 rows, each with its live activity strip, under the same event stream. */
async function runServers(label: string, flags: string[], sampleHeap: boolean): Promise<void> {
  await withPage(flags, SERVERS, async (page) => {
    await page.locator('[data-server="server-000"]').waitFor({ timeout: 60_000 });
    // The list renders the rows near the viewport; the rest stand as their height.
    await page.waitForFunction(
      (n) =>
        document.querySelector('[data-server]')?.getAttribute('aria-setsize') === String(n) ||
        document.querySelectorAll('[data-server]').length === n,
      SERVERS,
    );
    const domRows = await page.locator('[data-server]').count();
    const domNodes = await page.evaluate(() => document.querySelectorAll('*').length);
    const heapStart = sampleHeap ? await heapAfterGc(page) : 0;
    const { base, p, heap } = await measure(page, '.server-scroll', LIST_SCROLL_PX, sampleHeap);
    const shown = await page.locator('.activity-item').count();
    console.log(`\n${label}`);
    console.log(
      `  ${SERVERS} servers (${domRows} rows in the DOM), ${domNodes.toLocaleString()} DOM elements; streamed ${Math.round(p.rate)} events/s for ${seconds} s over all servers while scrolling the list ${LIST_SCROLL_PX} px a frame; ${shown} activity items shown`,
    );
    report(p, base);
    if (sampleHeap) console.log(`  JS heap after GC: ${mb(heapStart)} at start; then ${heap}`);
  });
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`load average at start: ${load()} on ${cpus().length} CPUs`);
if (only !== 'servers') {
  await runAudit('Audit list, vsync-locked (60 Hz)', [], true);
  await runAudit(`Audit list, unthrottled (${UNTHROTTLED.join(' ')})`, UNTHROTTLED, false);
}
if (only !== 'audit') {
  await runServers(`Servers list, ${SERVERS} servers, vsync-locked (60 Hz)`, [], true);
  await runServers(`Servers list, ${SERVERS} servers, unthrottled`, UNTHROTTLED, false);
}
console.log(`load average at end: ${load()}`);
