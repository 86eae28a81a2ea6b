/**
 * The hostile client of the audit-flood test and benchmark: a Node script that opens CONNECTs to
 * a proxy as fast as it can and prints how many it attempted and how many were refused (403).
 */

/**
 * Source for `node -e`: 4 parallel loops open CONNECTs to `target(i)` (one name, or a new name
 * each time when `distinct`) through the proxy on 127.0.0.1:`port` for `seconds`, then print
 * `attempts answered`.
 */
export function connectFloodScript(port: number, seconds: number, distinct: boolean): string {
  return `
    const net = require('net');
    const end = Date.now() + ${seconds * 1000};
    let attempts = 0, answered = 0;
    const target = (i) => ${distinct ? '`h${i}.flood.test:443`' : "'evil.test:443'"};
    function loop() {
      if (Date.now() >= end) return done();
      const i = attempts++;
      const s = net.connect(${port}, '127.0.0.1', () => s.write('CONNECT ' + target(i) + ' HTTP/1.1\\r\\n\\r\\n'));
      let got = false;
      s.on('data', (d) => { if (!got && /^HTTP\\/1\\.1 403/.test(String(d))) { got = true; answered++; } });
      s.on('error', () => {});
      s.on('close', loop);
    }
    let running = 4;
    function done() { if (--running === 0) console.log(attempts + ' ' + answered); }
    for (let k = 0; k < 4; k++) loop();`;
}
