import { describe, expect, it } from 'vitest';
import { readRequestHead } from './request-head';

const read = (text: string) => readRequestHead(Buffer.from(text, 'latin1'));

describe('readRequestHead', () => {
  it.each([
    [
      'curl through a proxy',
      'GET http://a.test:8080/x?y=1 HTTP/1.1\r\nHost: a.test:8080\r\nUser-Agent: curl/8\r\nAccept: */*\r\nProxy-Connection: Keep-Alive\r\n\r\n',
    ],
    ['a Host without the default port', 'GET http://a.test/ HTTP/1.1\r\nHost: a.test:80\r\n\r\n'],
    ['an upper-case Host and scheme', 'GET HTTP://A.Test/ HTTP/1.1\r\nHost: A.TEST\r\n\r\n'],
    [
      'Node http.get through the proxy (Host: the proxy)',
      'GET http://a.test/ HTTP/1.1\r\nHost: 127.0.0.1:8877\r\nConnection: keep-alive\r\n\r\n',
    ],
    ['an IPv6 literal', 'GET http://[::1]:81/ HTTP/1.1\r\nHost: [::1]:81\r\n\r\n'],
    [
      'tabs and spaces around a value, obs-text in it',
      'GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nX-A:\t caf\xc3\xa9 \t\r\n\r\n',
    ],
    ['HTTP/1.0 without Host', 'GET http://a.test/ HTTP/1.0\r\n\r\n'],
    ['CONNECT without Host', 'CONNECT a.test:443 HTTP/1.1\r\n\r\n'],
    [
      'Transfer-Encoding in another case',
      'POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: Chunked\r\n\r\n',
    ],
    [
      'Expect in another case',
      'PUT http://a.test/ HTTP/1.1\r\nHost: a.test\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\n',
    ],
    ['https://, for Node to relay', 'GET https://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n'],
  ])('takes %s', (_, text) => {
    const r = read(text);
    expect(r.kind).toBe('head');
    if (r.kind === 'head') expect(r.size).toBe(text.length);
  });

  it('reads the framing, the URL and where the head ends', () => {
    const head =
      'POST http://a.test:81/p?q HTTP/1.1\r\nHost: a.test:81\r\nContent-Length: 12\r\n\r\n';
    const r = read(`${head}body…`);
    expect(r.kind).toBe('head');
    if (r.kind !== 'head') return;
    expect(r.head).toMatchObject({ method: 'POST', version: '1.1', length: 12, chunked: false });
    expect(r.head.url?.href).toBe('http://a.test:81/p?q');
    expect(r.size).toBe(head.length);
  });

  it('waits for the rest of a head that is not yet wrong, and refuses one as soon as it is', () => {
    expect(read('GET http://a.test/ HTTP/1.1\r\nHost: a.test\r').kind).toBe('incomplete');
    expect(read('GET http://a.test/ HTTP/1.1\nHost').kind).toBe('bad');
    expect(read('GET http://a.test/ HTTP/1.1\r\nX: a\rb').kind).toBe('bad');
  });

  it('read a byte at a time, each call scanning only what is new, gives the same verdicts', () => {
    const feed = (text: string) => {
      const bytes = Buffer.from(text, 'latin1');
      for (let n = 1; n <= bytes.length; n++) {
        const r = readRequestHead(bytes.subarray(0, n), n - 1);
        if (r.kind !== 'incomplete') return [r.kind, n];
      }
      return ['incomplete', bytes.length];
    };
    const good = 'GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n';
    expect(feed(good)).toEqual(['head', good.length]);
    expect(feed('GET http://a.test/ HTTP/1.1\r\nX: a\rb: c\r\n\r\n')).toEqual(['bad', 35]);
    expect(feed('GET http://a.test/ HTTP/1.1\r\nX: a\nb\r\n\r\n')).toEqual(['bad', 34]);
    expect(feed('GET http://a.test/ HTTP/1.1\r\nX: a\r\r\n\r\n')).toEqual(['bad', 35]);
  });
});
