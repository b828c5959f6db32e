// Where a wasm module's bytes go, function by function: the code and data
// section sizes, then the largest function bodies by name (and, with a
// pattern, the total of the functions whose name contains it). Needs a
// module that keeps its name section, e.g. after
//   wasm-opt -Os -g --low-memory-unused pkg/tabteam_bg.wasm -o /tmp/named.wasm
// (the shipped module has no names). Reads only; no dependencies.
// Usage: node scripts/wasm-funcs.mjs FILE.wasm [PATTERN] [TOP=60]
import fs from 'fs';
const b = fs.readFileSync(process.argv[2]);
let p = 8;
function leb() { let r = 0, s = 0, x; do { x = b[p++]; r |= (x & 0x7f) << s; s += 7; } while (x & 0x80); return r >>> 0; }
let nimp = 0, bodies = [], names = new Map(), data = 0;
while (p < b.length) {
  const id = b[p++]; const len = leb(); const end = p + len;
  if (id === 2) { const n = leb(); for (let i = 0; i < n; i++) { let l = leb(); p += l; l = leb(); p += l; const k = b[p++]; if (k === 0) { leb(); nimp++; } else if (k === 1) { p++; const f = b[p++]; leb(); if (f & 1) leb(); } else if (k === 2) { const f = b[p++]; leb(); if (f & 1) leb(); } else if (k === 3) { p += 2; } } }
  else if (id === 10) { const n = leb(); for (let i = 0; i < n; i++) { const l = leb(); bodies.push(l); p += l; } }
  else if (id === 11) { data = len; }
  else if (id === 0) { const nl = leb(); const nm = b.slice(p, p + nl).toString(); p += nl; if (nm === 'name') { while (p < end) { const sid = b[p++]; const sl = leb(); const se = p + sl; if (sid === 1) { const n = leb(); for (let i = 0; i < n; i++) { const idx = leb(); const l = leb(); names.set(idx, b.slice(p, p + l).toString()); p += l; } } p = se; } } }
  p = end;
}
const rows = bodies.map((s, i) => [s, names.get(i + nimp) || ('f' + (i + nimp))]);
rows.sort((a, b) => b[0] - a[0]);
console.log('data', data, 'code', bodies.reduce((a, c) => a + c, 0), 'nfuncs', bodies.length);
const pat = process.argv[3];
if (pat) { let t = 0, c = 0; for (const [s, n] of rows) if (n.includes(pat)) { t += s; c++; } console.log(pat, t, c); }
for (const [s, n] of rows.slice(0, +process.argv[4] || 60)) console.log(s, n.slice(0, 160));
