/// <reference lib="dom" />
/**
 * UI benchmark in Chromium: the built renderer (out/renderer) with 100,000 audit rows loaded while
 * 1,000 new events a second stream in and the list is scrolled continuously; then the servers
 * list with 200 servers whose activity strips take the same stream while the page scrolls. Prints frame
 * intervals (vsync-locked at 60 Hz, and unthrottled, where an interval is what a frame really
 * cost), per-frame rendering work, long frames, and the JS heap after GC as events keep arriving.
 * Run `node bench/run.mjs ui-bench [SECONDS] [audit|servers]` from the repository after
 * `npm run build` (the last argument runs one of the two only). Prints
 * figures only; no pass/fail.
 *
 * The core is replaced by a fake `window.warden` in the page (bench/ui-bench-page.ts) so that the
 * figures are the renderer's own, not the audit store's or the WebSocket's.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { type Page, chromium } from 'playwright-core';
import { type BenchProbe, type FrameRecord, installBenchPage } from './ui-bench-page';

const seconds = Number(process.argv[2] ?? 20);
const LOADED = 100_000;
const RATE = 1_000;
const SCROLL_PX = 84; // three rows a frame: a fast, steady scroll
const HEAP_SAMPLES = 6;
const SERVERS = 200;
const PAGE_SCROLL_PX = 40;
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
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

async function run(label: string, extraFlags: string[], sampleHeap: boolean): Promise<void> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [...FLAGS, ...extraFlags],
  });
  const { server, url } = await serveRenderer();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.addInitScript(installBenchPage);
    await page.goto(url);
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

    // Events stream in (batches every 20 ms, like a busy core's writes) while the list scrolls.
    await page.evaluate(
      ([rate, px]) => {
        const w = window as unknown as { __bench: BenchProbe; __stopStream: () => void };
        w.__stopStream = w.__bench.stream(rate, 20);
        w.__bench.startScroll(px);
      },
      [RATE, SCROLL_PX] as const,
    );
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const rec = await page.evaluate(() => {
      const w = window as unknown as { __bench: BenchProbe };
      return { frames: w.__bench.stopScroll(), emitted: w.__bench.rowsEmitted() };
    });
    // Then the heap, as events keep arriving (each sample forces a GC, so no frames are timed).
    const heap: Array<[number, number]> = [];
    const heapStart = Date.now();
    for (let i = 0; sampleHeap && i < HEAP_SAMPLES; i++) {
      await new Promise((r) => setTimeout(r, 5000));
      heap.push([Math.round((Date.now() - heapStart) / 1000), await heapAfterGc(page)]);
    }
    const emittedEnd = await page.evaluate(() => {
      const w = window as unknown as { __bench: BenchProbe; __stopStream: () => void };
      w.__stopStream();
      return w.__bench.rowsEmitted();
    });
    const f: FrameRecord = rec.frames;
    const streamed = rec.emitted - LOADED;
    const held = await page.locator('[data-audit-count]').getAttribute('data-audit-count');
    const over = f.intervals.filter((v) => v > 16.7).length;
    // At 60 Hz an interval over 25 ms means at least one frame was missed; 16.7-25 is jitter.
    const missed = f.intervals.filter((v) => v > 25).length;
    console.log(`\n${label}`);
    console.log(
      `  loaded ${LOADED.toLocaleString()} rows in ${loadMs} ms; ${domRows} row elements in the DOM`,
    );
    console.log(
      `  streamed ${streamed.toLocaleString()} rows in ${seconds} s (${Math.round(streamed / seconds)}/s) while scrolling ${SCROLL_PX} px a frame (${f.scrolledPx.toLocaleString()} px)`,
    );
    console.log(
      `  frame interval: n=${f.intervals.length} p50 ${ms(pct(f.intervals, 50))} p95 ${ms(pct(f.intervals, 95))} p99 ${ms(pct(f.intervals, 99))} max ${ms(Math.max(...f.intervals))}; over 16.7 ms: ${over} (${((100 * over) / f.intervals.length).toFixed(1)}%), over 25 ms: ${missed} (${((100 * missed) / f.intervals.length).toFixed(1)}%)`,
    );
    console.log(
      `  rendering work per frame: p50 ${ms(pct(f.work, 50))} p95 ${ms(pct(f.work, 95))} p99 ${ms(pct(f.work, 99))}; long animation frames (> 50 ms): ${f.longFrames}`,
    );
    if (sampleHeap) {
      console.log(
        `  JS heap after GC: ${mb(heapLoaded)} with ${LOADED.toLocaleString()} rows; as ${(emittedEnd - rec.emitted).toLocaleString()} more rows arrived: ${heap.map(([t, h]) => `+${t}s ${mb(h)}`).join(', ')}; rows held: ${held}`,
      );
    }
  } finally {
    await browser.close();
    server.close();
  }
}

function report(label: string, f: FrameRecord): void {
  const over = f.intervals.filter((v) => v > 16.7).length;
  const missed = f.intervals.filter((v) => v > 25).length;
  console.log(
    `  frame interval: n=${f.intervals.length} p50 ${ms(pct(f.intervals, 50))} p95 ${ms(pct(f.intervals, 95))} p99 ${ms(pct(f.intervals, 99))} max ${ms(Math.max(...f.intervals))}; over 16.7 ms: ${over} (${((100 * over) / f.intervals.length).toFixed(1)}%), over 25 ms: ${missed} (${((100 * missed) / f.intervals.length).toFixed(1)}%)`,
  );
  console.log(
    `  rendering work per frame: p50 ${ms(pct(f.work, 50))} p95 ${ms(pct(f.work, 95))} p99 ${ms(pct(f.work, 99))}; long animation frames (> 50 ms): ${f.longFrames}`,
  );
  void label;
}

/** The servers list: 200 rows, each with its live activity strip, under the same event stream. */
async function runServers(label: string, extraFlags: string[], sampleHeap: boolean): Promise<void> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [...FLAGS, ...extraFlags],
  });
  const { server, url } = await serveRenderer();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.addInitScript(installBenchPage, { servers: SERVERS });
    await page.goto(url);
    await page
      .locator(`[data-server]`)
      .nth(SERVERS - 1)
      .waitFor({ timeout: 60_000 });
    const domNodes = await page.evaluate(() => document.querySelectorAll('*').length);
    const heapStart = sampleHeap ? await heapAfterGc(page) : 0;
    await page.evaluate(
      ([rate, px]) => {
        const w = window as unknown as { __bench: BenchProbe; __stopStream: () => void };
        w.__stopStream = w.__bench.stream(rate, 20);
        w.__bench.startScroll(px, 'document');
      },
      [RATE, PAGE_SCROLL_PX] as const,
    );
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const rec = await page.evaluate(() => {
      const w = window as unknown as { __bench: BenchProbe };
      return { frames: w.__bench.stopScroll(), emitted: w.__bench.rowsEmitted() };
    });
    const heap: Array<[number, number]> = [];
    const t0 = Date.now();
    for (let i = 0; sampleHeap && i < HEAP_SAMPLES; i++) {
      await new Promise((r) => setTimeout(r, 5000));
      heap.push([Math.round((Date.now() - t0) / 1000), await heapAfterGc(page)]);
    }
    await page.evaluate(() => (window as unknown as { __stopStream: () => void }).__stopStream());
    const shown = await page.locator('.activity-item').count();
    console.log(`\n${label}`);
    console.log(
      `  ${SERVERS} servers, ${domNodes.toLocaleString()} DOM elements; streamed ${rec.emitted.toLocaleString()} events in ${seconds} s (${Math.round(rec.emitted / seconds)}/s) over all servers while scrolling the page ${PAGE_SCROLL_PX} px a frame; ${shown} activity items shown`,
    );
    report(label, rec.frames);
    if (sampleHeap) {
      console.log(
        `  JS heap after GC: ${mb(heapStart)} at start; as events kept arriving: ${heap.map(([t, h]) => `+${t}s ${mb(h)}`).join(', ')}`,
      );
    }
  } finally {
    await browser.close();
    server.close();
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`load average at start: ${load()} on ${cpus().length} CPUs`);
if (process.argv[3] !== 'servers') {
  await run('Audit list, vsync-locked (60 Hz)', [], true);
  await run(
    'Audit list, unthrottled (--disable-frame-rate-limit --disable-gpu-vsync)',
    ['--disable-frame-rate-limit', '--disable-gpu-vsync'],
    false,
  );
}
const only = process.argv[3];
if (only !== 'audit') {
  await runServers(`Servers list, ${SERVERS} servers, vsync-locked (60 Hz)`, [], true);
  await runServers(
    `Servers list, ${SERVERS} servers, unthrottled`,
    ['--disable-frame-rate-limit', '--disable-gpu-vsync'],
    false,
  );
}
console.log(`load average at end: ${load()}`);
