// Minimal ELF64 little-endian reader: machine, interpreter-free facts we check on release binaries
// (NEEDED libraries and the GLIBC_x.y symbol versions they require), with no binutils needed.
import { readFileSync } from 'node:fs';

const SHT_DYNAMIC = 6;
const SHT_GNU_VERNEED = 0x6ffffffe;
const DT_NEEDED = 1;
const MACHINES = { 62: 'x86_64', 183: 'aarch64' };

export function readElf(path) {
  const b = readFileSync(path);
  if (b.readUInt32BE(0) !== 0x7f454c46) throw new Error(`${path} is not an ELF file`);
  if (b[4] !== 2 || b[5] !== 1) throw new Error(`${path}: only 64-bit little-endian ELF is supported`);
  const machine = MACHINES[b.readUInt16LE(18)] ?? `e_machine ${b.readUInt16LE(18)}`;
  const shoff = Number(b.readBigUInt64LE(40));
  const shentsize = b.readUInt16LE(58);
  const shnum = b.readUInt16LE(60);
  const sections = [];
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * shentsize;
    sections.push({
      type: b.readUInt32LE(o + 4),
      offset: Number(b.readBigUInt64LE(o + 24)),
      size: Number(b.readBigUInt64LE(o + 32)),
      link: b.readUInt32LE(o + 40),
      info: b.readUInt32LE(o + 44),
    });
  }
  const str = (sec, off) => {
    const start = sections[sec.link].offset + off;
    return b.toString('latin1', start, b.indexOf(0, start));
  };
  const needed = [];
  const versions = [];
  for (const sec of sections) {
    if (sec.type === SHT_DYNAMIC) {
      for (let o = sec.offset; o < sec.offset + sec.size; o += 16) {
        const tag = Number(b.readBigInt64LE(o));
        if (tag === 0) break;
        if (tag === DT_NEEDED) needed.push(str(sec, Number(b.readBigUInt64LE(o + 8))));
      }
    } else if (sec.type === SHT_GNU_VERNEED) {
      let o = sec.offset;
      for (let n = 0; n < sec.info; n++) {
        const file = str(sec, b.readUInt32LE(o + 4));
        let a = o + b.readUInt32LE(o + 8);
        for (let k = 0; k < b.readUInt16LE(o + 2); k++) {
          versions.push({ file, name: str(sec, b.readUInt32LE(a + 8)) });
          a += b.readUInt32LE(a + 12);
        }
        o += b.readUInt32LE(o + 12);
      }
    }
  }
  return { machine, needed, versions };
}

/** Highest GLIBC_x.y version the file requires ('none' when it requires no glibc version). */
export function glibcRequirement(path) {
  const { versions } = readElf(path);
  const glibc = versions
    .map((v) => /^GLIBC_(\d+(?:\.\d+)*)$/.exec(v.name)?.[1])
    .filter(Boolean)
    .sort((x, y) => {
      const a = x.split('.').map(Number);
      const c = y.split('.').map(Number);
      for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (c[i] ?? 0)) return (a[i] ?? 0) - (c[i] ?? 0);
      return 0;
    });
  return glibc.length ? glibc[glibc.length - 1] : 'none';
}
