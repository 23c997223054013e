#!/usr/bin/env node
// @ts-check
/**
 * The project's logo, drawn once as a few shapes: written as the SVG the package schema's `logoUrl`
 * names (assets/logo.svg) and rasterized to the PNG the .NET package carries as its icon (NuGet
 * takes PNG or JPEG only; tools/generate-sdks.js writes it to sdk/dotnet/logo.png). Both outputs are
 * the same bytes on every run and Node.js release: the PNG's pixels come from exact coverage
 * sampling and its zlib stream uses stored blocks, so no compressor version changes them.
 * test/languages/registry.test.ts holds the committed files to this.
 * Usage: node tools/logo.js   (writes assets/logo.svg)
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { LOGO_FILE, ROOT } = require("./lib/project-identity.js");

/** The logo's width and height, in SVG user units. */
const SIZE = 100;

/** @typedef {{ x: number, y: number, width: number, height: number, radius: number, fill: string }} Shape */

/** The logo, painted in order: a rounded indigo square and three rising white bars, a bar chart. @type {Shape[]} */
const SHAPES = [
  { x: 0, y: 0, width: 100, height: 100, radius: 18, fill: "#3730A3" },
  { x: 20, y: 56, width: 16, height: 24, radius: 3, fill: "#FFFFFF" },
  { x: 42, y: 40, width: 16, height: 40, radius: 3, fill: "#FFFFFF" },
  { x: 64, y: 22, width: 16, height: 58, radius: 3, fill: "#FFFFFF" },
];

/** The shapes, the one painted last first: the first that covers a point is the one seen there. */
const TOP_FIRST = [...SHAPES].reverse();

/** The logo as SVG text. */
function logoSvg() {
  const rects = SHAPES.map((s) => `  <rect x="${s.x}" y="${s.y}" width="${s.width}" height="${s.height}" rx="${s.radius}" fill="${s.fill}"/>`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">`,
    "  <title>analytics</title>",
    ...rects,
    "</svg>",
    "",
  ].join("\n");
}

/** Whether the point (x, y), in user units, is inside a rounded rectangle. @param {Shape} shape @param {number} x @param {number} y */
function inside(shape, x, y) {
  const { x: left, y: top, width, height, radius } = shape;
  if (x < left || y < top || x >= left + width || y >= top + height) return false;
  const dx = Math.max(left + radius - x, 0, x - (left + width - radius));
  const dy = Math.max(top + radius - y, 0, y - (top + height - radius));
  return dx * dx + dy * dy <= radius * radius;
}

/** A `#RRGGBB` colour's channels. @type {(hex: string) => number[]} */
const channels = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

/**
 * One pixel's RGBA: the topmost shape at each of 8x8 sample points, averaged (premultiplied, then divided).
 * @param {number} px @param {number} py @param {number} scale
 * @returns {number[]}
 */
function pixel(px, py, scale) {
  const samples = 8;
  const sum = [0, 0, 0, 0];
  for (let sy = 0; sy < samples; sy++) {
    for (let sx = 0; sx < samples; sx++) {
      const x = (px + (sx + 0.5) / samples) * scale;
      const y = (py + (sy + 0.5) / samples) * scale;
      const top = TOP_FIRST.find((shape) => inside(shape, x, y));
      if (!top) continue;
      channels(top.fill).forEach((c, i) => (sum[i] += c));
      sum[3] += 255;
    }
  }
  const alpha = sum[3] / (samples * samples);
  return [...sum.slice(0, 3).map((c) => (sum[3] === 0 ? 0 : Math.round((c * 255) / sum[3]))), Math.round(alpha)];
}

/** CRC-32 of a buffer, as PNG chunks need. @param {Buffer} buffer */
function crc32(buffer) {
  let crc = ~0;
  for (const byte of buffer) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A zlib stream of `data` in stored (uncompressed) blocks, with its Adler-32. @param {Buffer} data */
function storedZlib(data) {
  /** @type {Buffer[]} */
  const parts = [Buffer.from([0x78, 0x01])];
  for (let offset = 0; offset < data.length || offset === 0; offset += 65535) {
    const block = data.subarray(offset, offset + 65535);
    const last = offset + 65535 >= data.length ? 1 : 0;
    const header = Buffer.alloc(5);
    header.writeUInt8(last, 0);
    header.writeUInt16LE(block.length, 1);
    header.writeUInt16LE(~block.length & 0xffff, 3);
    parts.push(header, block);
  }
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((b << 16) | a) >>> 0);
  return Buffer.concat([...parts, adler]);
}

/** A PNG chunk: length, type, data, CRC. @param {string} type @param {Buffer} data */
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** The logo as a `size`×`size` RGBA PNG. @param {number} size @returns {Buffer} */
function logoPng(size) {
  /** @type {Buffer[]} */
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = [0]; // filter: none
    for (let x = 0; x < size; x++) row.push(...pixel(x, y, SIZE / size));
    rows.push(Buffer.from(row));
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits per channel, RGBA, deflate, no filter method variants, no interlace
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", storedZlib(Buffer.concat(rows))), chunk("IEND", Buffer.alloc(0))]);
}

/** The .NET package icon's size: NuGet recommends 128x128. */
const DOTNET_ICON_SIZE = 128;

module.exports = { DOTNET_ICON_SIZE, LOGO_FILE, logoPng, logoSvg };

if (require.main === module) {
  fs.mkdirSync(path.dirname(path.join(ROOT, LOGO_FILE)), { recursive: true });
  fs.writeFileSync(path.join(ROOT, LOGO_FILE), logoSvg());
  process.stdout.write(`wrote ${LOGO_FILE}\n`);
}
