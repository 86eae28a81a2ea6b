#!/usr/bin/env node
// The relay of `shell-launch.ts`'s script: `node bench/fifo-hop.mjs DIR PID [CGROUP…]` passes
// newline-delimited JSON-RPC between this process's stdio and the FIFOs DIR/in and DIR/out of the
// sandbox the script started (PID), parsing each line and writing it on as line-hop.mjs does.
// When the client closes stdin it kills the sandbox, removes its cgroups and DIR, and exits.
import { createReadStream, createWriteStream, rmSync, rmdirSync } from 'node:fs';
import { relayLines } from './line-relay.mjs';

const [dir, pid, ...cgroups] = process.argv.slice(2);
const toServer = createWriteStream(`${dir}/in`);
const fromServer = createReadStream(`${dir}/out`);

relayLines(process.stdin, toServer);
relayLines(fromServer, process.stdout);
process.stdin.on('end', () => {
  try {
    process.kill(Number(pid), 'SIGKILL');
  } catch {}
  rmSync(dir, { recursive: true, force: true });
  // A cgroup goes once its last process is reaped; the next launch makes it again if it stays.
  setTimeout(() => {
    for (const c of cgroups) {
      try {
        rmdirSync(c);
      } catch {}
    }
    process.exit(0);
  }, 50);
});
