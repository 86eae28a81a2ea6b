// Draws the MCP Warden icons (a white shield with a keyhole on a rounded indigo square, and a
// monochrome shield for the tray) and writes them as PNG using only Node: zlib for the image data,
// a table CRC-32 for the chunks. Run `node resources/packaging/generate-icons.mjs` after a change.
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const here = join(dirname(fileURLToPath(import.meta.url)), '..', 'icons');

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
/** Encodes RGBA pixels (Uint8Array, width*height*4) as a PNG file. */
function encodePng(width, height, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc(height * (width * 4 + 1));
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, y * width * 4, width * 4).copy(raw, y * (width * 4 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// Shapes in unit coordinates (0..1, y down).
function roundedSquare(x, y, r = 0.2) {
  const dx = Math.max(Math.abs(x - 0.5) - (0.5 - r), 0);
  const dy = Math.max(Math.abs(y - 0.5) - (0.5 - r), 0);
  return dx * dx + dy * dy <= r * r;
}
function shield(x, y, scale = 1) {
  const u = (x - 0.5) / scale + 0.5;
  const v = (y - 0.5) / scale + 0.5;
  if (v < 0.2 || v > 0.86) return false;
  const top = 0.2 + 0.05 * Math.cos(((u - 0.5) / 0.3) * Math.PI); // a shallow dip at the top
  if (v < top - 0.05 && Math.abs(u - 0.5) < 0.3) return false;
  const half = v < 0.5 ? 0.3 : 0.3 * Math.sqrt(Math.max(0, 1 - ((v - 0.5) / 0.36) ** 2));
  return Math.abs(u - 0.5) <= half;
}
function keyhole(x, y) {
  const circle = (x - 0.5) ** 2 + (y - 0.45) ** 2 <= 0.065 ** 2;
  const stem = Math.abs(x - 0.5) <= 0.03 + (y - 0.45) * 0.12 && y >= 0.45 && y <= 0.64;
  return circle || stem;
}

/** Renders `paint(x, y) -> [r, g, b, a] | null` with 4x4 supersampling. */
function render(size, paint) {
  const out = new Uint8Array(size * size * 4);
  const s = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < s; sy++) {
        for (let sx = 0; sx < s; sx++) {
          const c = paint((px + (sx + 0.5) / s) / size, (py + (sy + 0.5) / s) / size);
          if (!c) continue;
          const alpha = c[3] / 255;
          r += c[0] * alpha;
          g += c[1] * alpha;
          b += c[2] * alpha;
          a += alpha;
        }
      }
      const i = (py * size + px) * 4;
      if (a > 0) {
        out[i] = Math.round(r / a);
        out[i + 1] = Math.round(g / a);
        out[i + 2] = Math.round(b / a);
      }
      out[i + 3] = Math.round((a / (s * s)) * 255);
    }
  }
  return out;
}

const appIcon = (x, y) => {
  if (!roundedSquare(x, y)) return null;
  if (shield(x, y) && !keyhole(x, y)) return [255, 255, 255, 255];
  return [67, 56, 202, 255]; // indigo
};
const trayIcon = (x, y) => (shield(x, y, 1.25) && !keyhole(x, y) ? [0, 0, 0, 255] : null);

const files = [
  ['512x512.png', 512, appIcon],
  ['256x256.png', 256, appIcon],
  ['tray/tray-16.png', 16, appIcon],
  ['tray/tray-32.png', 32, appIcon],
  // macOS menu-bar template images: black with alpha, adapted by the system to the theme.
  ['tray/trayTemplate.png', 16, trayIcon],
  ['tray/trayTemplate@2x.png', 32, trayIcon],
];
for (const [name, size, paint] of files) {
  const path = join(here, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, encodePng(size, size, render(size, paint)));
  console.log(`${name} ${size}x${size}`);
}
