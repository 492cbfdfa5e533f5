// The static embedding model package (packages/model-multilingual): model.bin parses per the
// format (scripts/model/README.md), matches model.json, and the npm package ships what it lists.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = join(__dirname, '..', '..', 'packages', 'model-multilingual');
// model.bin is committed to git and published: keep the unpacked package under 48 MiB (44 MiB
// since the English tail: 256 e5 + 128 English dimensions per piece).
const MAX_UNPACKED_BYTES = 48 * 1024 * 1024;

interface Parsed {
  dim: number;
  vocab: number;
  unkId: number;
  flags: number;
  pieces: string[];
  scores: Float32Array;
  scales: Float32Array;
  vectors: Int8Array;
  /** flags bit3: per-script mean sentence vectors after the rows */
  means: Map<string, Float32Array>;
  /** flags bit4: how many trailing dimensions are for Latin-script text only */
  latinTail: number;
}

function parse(buf: Buffer): Parsed {
  expect(buf.subarray(0, 8).toString('latin1')).toBe('MNPSEMB1');
  const dim = buf.readUInt32LE(8);
  const vocab = buf.readUInt32LE(12);
  const unkId = buf.readUInt32LE(16);
  const flags = buf.readUInt32LE(20);
  let pos = 24;
  const pieces: string[] = [];
  const scores = new Float32Array(vocab);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let i = 0; i < vocab; i++) {
    const len = buf.readUInt16LE(pos);
    pieces.push(decoder.decode(buf.subarray(pos + 2, pos + 2 + len)));
    scores[i] = buf.readFloatLE(pos + 2 + len);
    pos += 2 + len + 4;
  }
  const scales = new Float32Array(vocab);
  for (let i = 0; i < vocab; i++) scales[i] = buf.readFloatLE(pos + 4 * i);
  pos += 4 * vocab;
  const vectors = new Int8Array(buf.buffer, buf.byteOffset + pos, vocab * dim);
  pos += vocab * dim;
  const means = new Map<string, Float32Array>();
  if (flags & 8) {
    const count = buf.readUInt32LE(pos);
    pos += 4;
    for (let k = 0; k < count; k++) {
      const len = buf.readUInt8(pos);
      const name = decoder.decode(buf.subarray(pos + 1, pos + 1 + len));
      pos += 1 + len;
      const mean = new Float32Array(dim);
      for (let d = 0; d < dim; d++) mean[d] = buf.readFloatLE(pos + 4 * d);
      pos += 4 * dim;
      means.set(name, mean);
    }
  }
  let latinTail = 0;
  if (flags & 16) {
    latinTail = buf.readUInt32LE(pos);
    pos += 4;
  }
  expect(pos).toBe(buf.length); // nothing after the last section
  return { dim, vocab, unkId, flags, pieces, scores, scales, vectors, means, latinTail };
}

const meta = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'));
const bin = readFileSync(join(dir, 'model.bin'));
const model = parse(bin);

describe('model.bin', () => {
  it('header agrees with model.json and sets the NFKC, lowercase, U+2581, script-means and English-tail flags', () => {
    expect(meta.format).toBe('mnp-static-embedding');
    expect(meta.version).toBe(1);
    expect(model.dim).toBe(meta.dim);
    expect(model.vocab).toBe(meta.vocabSize);
    expect([128, 256, 384]).toContain(model.dim);
    expect(model.flags).toBe(0b11111);
    expect(meta.normalization).toBe('nfkc-lower');
  });

  it('has a finite mean sentence vector per script (language-mean removal), as model.json says', () => {
    expect([...model.means.keys()]).toEqual(['latin', 'zh-Hans', 'zh-Hant', 'ja', 'ko']);
    expect(Object.keys(meta.scriptMeans.texts)).toEqual([...model.means.keys()]);
    for (const [name, mean] of model.means) {
      const norm = Math.hypot(...mean);
      // a mean of unit vectors that share a language component: well inside the unit ball
      expect(norm, name).toBeGreaterThan(0.2);
      expect(norm, name).toBeLessThan(1);
      expect(meta.scriptMeans.texts[name], name).toBeGreaterThan(5000);
    }
  });

  it('the English tail is as long as model.json says and only Latin-script pieces carry it', () => {
    const { dim, vectors, latinTail } = model;
    expect(latinTail).toBe(meta.englishTail.dims);
    expect(latinTail).toBeGreaterThan(0);
    expect(latinTail).toBeLessThan(dim);
    const tailOf = (piece: string) => {
      const i = model.pieces.indexOf(piece);
      expect(i, piece).toBeGreaterThan(0);
      return Array.from(vectors.subarray(i * dim + dim - latinTail, (i + 1) * dim));
    };
    for (const p of ['的', '東京', 'を', '▁검색', '天気']) expect(tailOf(p).every((x) => x === 0), p).toBe(true);
    for (const p of ['▁search', '▁weather', '▁email']) expect(tailOf(p).some((x) => x !== 0), p).toBe(true);
    // the Latin-only tail of every non-Latin script's mean is zero (those texts lose it)
    for (const [name, mean] of model.means) {
      const tail = Array.from(mean.subarray(dim - latinTail));
      expect(tail.every((x) => x === 0), name).toBe(name !== 'latin');
    }
  });

  it('sha256 of model.bin is the one model.json records', () => {
    expect(createHash('sha256').update(bin).digest('hex')).toBe(meta.sha256);
  });

  it('pieces are distinct, non-empty, already NFKC-normalized and lowercase (else no input reaches them)', () => {
    expect(new Set(model.pieces).size).toBe(model.vocab);
    const unreachable = model.pieces.filter((p) => p === '' || (p !== '<unk>' && p.normalize('NFKC').toLowerCase() !== p));
    expect(unreachable).toEqual([]);
    // the languages the model is for have word pieces
    const has = new Set(model.pieces);
    for (const p of ['▁the', '▁search', '的', '東京', 'を', '▁검색']) expect(has.has(p), p).toBe(true);
  });

  it('scores and scales are finite; unk and the bare word-start marker are ignored (scale 0)', () => {
    expect(model.unkId).toBeLessThan(model.vocab);
    expect(model.scales[model.unkId]).toBe(0);
    expect(model.scales[model.pieces.indexOf('▁')]).toBe(0);
    let positive = 0;
    const bad: number[] = [];
    for (let i = 0; i < model.vocab; i++) {
      // scores are log-probabilities; scales are finite and non-negative
      const ok = Number.isFinite(model.scores[i]) && model.scores[i] <= 0 && Number.isFinite(model.scales[i]) && model.scales[i] >= 0;
      if (!ok) bad.push(i);
      if (model.scales[i] > 0) positive++;
    }
    expect(bad).toEqual([]);
    // every real piece carries a vector
    expect(positive).toBe(model.vocab - 2);
  });

  it('rows use the int8 range (per-row scale = max |value| / 127) and are not all alike', () => {
    const { dim, vectors, scales } = model;
    let checked = 0;
    for (let i = 0; i < model.vocab; i += 997) {
      if (scales[i] === 0) continue;
      let amax = 0;
      for (let d = 0; d < dim; d++) amax = Math.max(amax, Math.abs(vectors[i * dim + d]));
      expect(amax).toBe(127);
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
    const row = (i: number) => Array.from(vectors.subarray(i * dim, (i + 1) * dim));
    const a = model.pieces.indexOf('▁search');
    const b = model.pieces.indexOf('的');
    expect(row(a)).not.toEqual(row(b));
  });
});

describe('model package', () => {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

  it('package.json names the package, MIT, and lists only files that exist', () => {
    expect(pkg.name).toBe('mastra-native-processors-model-multilingual');
    expect(pkg.version).toBe('0.3.0');
    expect(pkg.license).toBe('MIT');
    expect(pkg.main).toBe('index.js');
    for (const f of ['model.bin', 'model.json', 'LICENSE', 'NOTICE.md', 'README.md']) expect(pkg.files).toContain(f);
    for (const f of pkg.files) expect(existsSync(join(dir, f)), f).toBe(true);
  });

  it("index.js's modelPath is the absolute directory holding model.bin", () => {
    const r = spawnSync(process.execPath, ['-e', `console.log(require(${JSON.stringify(dir)}).modelPath)`], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(dir);
    expect(existsSync(join(r.stdout.trim(), 'model.bin'))).toBe(true);
  });

  it(`npm pack ships the listed files, unpacked under ${MAX_UNPACKED_BYTES / 1024 / 1024} MiB`, () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const [info] = JSON.parse(r.stdout);
    const shipped = info.files.map((f: { path: string }) => f.path).sort();
    expect(shipped).toEqual([...pkg.files, 'package.json'].sort());
    expect(info.unpackedSize).toBeLessThan(MAX_UNPACKED_BYTES);
  });
});
