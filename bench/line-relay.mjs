// The relay of the bare Node hops (line-hop.mjs, fifo-hop.mjs): the floor of any relay written in
// Node, with no checks, no audit and no limits.

/** Passes each complete line read from `input` to `output`, re-serialised, one write per chunk. */
export function relayLines(input, output) {
  let rest = '';
  input.setEncoding('utf8');
  input.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    let out = '';
    for (const line of lines)
      if (line.trim() !== '') out += `${JSON.stringify(JSON.parse(line))}\n`;
    if (out !== '') output.write(out);
  });
}
