#!/usr/bin/env node
// The floor of any relay written in Node: `node bench/line-hop.mjs SERVER.js [args…]` spawns the
// server and passes newline-delimited JSON-RPC both ways, parsing each line and writing it on as
// JSON.stringify writes it, with nothing else (no checks, no audit, no limits). gateway-bench
// runs it as a side of its own (`--hop`), so that Warden's cost per call can be set against what
// one more Node process on the path costs by itself.
import { spawn } from 'node:child_process';
import { relayLines } from './line-relay.mjs';

const [script, ...args] = process.argv.slice(2);
const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'ignore'] });

relayLines(process.stdin, child.stdin);
relayLines(child.stdout, process.stdout);
process.stdin.on('end', () => child.kill());
child.on('exit', () => process.exit(0));
