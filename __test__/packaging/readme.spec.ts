// The README stays a short user guide (depth lives in docs/), keeps the sections and Quick start
// commands a newcomer looks for, and no relative link in the README, CONTRIBUTING.md or docs/*.md
// points at a missing file or heading.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const README_MAX_LINES = 350;
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** Markdown outside fenced code blocks, line by line (fences hold neither headings nor links). */
function proseLines(text: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence === undefined) out.push(line);
  }
  return out;
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor a Markdown file offers (repeated headings get -1, -2, … as on GitHub). */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Inline link targets `[text](target)` in prose (code spans and fences left out). */
function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]);
  }
  return targets;
}

/** The relative links of `file` whose file or anchor does not exist, as `file: target (why)`. */
function brokenLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const broken: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    const where = `${relative(root, file)}: ${target}`;
    if (!existsSync(resolved)) {
      broken.push(`${where} (no such file)`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
      broken.push(`${where} (an anchor into something that is not a Markdown file)`);
      continue;
    }
    if (!anchorsOf(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor).toLowerCase())) broken.push(`${where} (no such heading)`);
  }
  return broken;
}

describe('README', () => {
  it(`is at most ${README_MAX_LINES} lines`, () => {
    const lines = readme.endsWith('\n') ? readme.split('\n').length - 1 : readme.split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it.each(['Install', 'Quick start', 'Usage', 'Deploying', 'Benchmarks'])('has a "%s" section', (section) => {
    const headings = proseLines(readme).filter((l) => /^##\s/.test(l)).map((l) => l.replace(/^##\s+/, '').trim());
    expect(headings).toContain(section);
  });

  it('gives the two Quick start commands for a fresh clone, verbatim', () => {
    const start = readme.indexOf('## Quick start');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    expect(section).toContain('npm ci && npm run demo');
    expect(section).toContain('npm ci && npm test');
  });
});

describe('relative links (README.md, CONTRIBUTING.md, docs/*.md)', () => {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(root, 'docs', f));
  const files = [join(root, 'README.md'), join(root, 'CONTRIBUTING.md'), ...docs];

  it.each(files.map((f) => [relative(root, f), f]))('%s: every file and #anchor exists', (_name, file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('the checker itself: GitHub anchors, and a missing file or heading is caught', () => {
    expect(slug('Supported `@mastra/core` versions')).toBe('supported-mastracore-versions');
    expect(slug("Hybrid search (`search: { mode: 'hybrid' }`)")).toBe('hybrid-search-search--mode-hybrid-');
    expect(slug('Differences from @mastra/core')).toBe('differences-from-mastracore');
    expect(anchorsOf('# A\n## A\n```\n# not a heading\n```\n')).toEqual(new Set(['a', 'a-1']));
    expect(linkTargets('[x](a.md#b) `[y](c.md)` [z](https://e.org)\n```\n[w](d.md)\n```')).toEqual(['a.md#b', 'https://e.org']);
  });
});
