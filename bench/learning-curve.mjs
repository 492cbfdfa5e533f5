// Learning from use as a curve: what a solved task costs in model calls, the solved share and
// preload's precision after N past tasks, N = 0 … 3,000, on MetaTool (odd lines counted) and the
// multilingual set (test split counted, every language in one processor), with the oracle model.
//
// bench/agent-steps.mjs's machinery (its Agent, oracle, sets and past traffic) runs every point: past
// traffic comes from the dev lines (spread round-robin over the tools, from 100 users), the counted
// tasks from the test lines (`--split dev`: both from disjoint halves of the dev lines, for tuning).
// N = 0 is the row without `learn` ('<mode> + preload'); every other point is the same processor with
// `learn: { scope: 'global' }` after N past tasks (the counted tasks keep teaching it as they run).
// Per point: solved share, model calls per solved task, the share solved at the first call, preload
// precision (the user message's preloads), and per request language on the multilingual set. One
// more run per series (--unseen-check N, 0 to skip) keeps a tenth of the tools (--unseen-tools) out of
// past traffic and sets the tasks whose tool it never saw beside the same tasks without learn.
//
// Results go to bench/results/learning-curve.json; the chart, a hand-written SVG, to
// docs/learning-curve.svg (checked to be well-formed XML and to show the JSON's points, here and in
// __test__/packaging/learning-curve.spec.ts). --render-only re-draws the chart from the JSON.
//
//   node bench/learning-curve.mjs [--points 0,250,500,1000,2000,3000] [--sets metatool,multilingual]
//     [--modes hybrid,enhanced] [--tasks 300] [--split test|dev] [--learn '{...}']
//     [--unseen-check 2000] [--unseen-tools 0.1] [--out <json>] [--svg <svg>] [--render-only]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
export const RESULTS = join(repo, 'bench', 'results', 'learning-curve.json');
export const CHART = join(repo, 'docs', 'learning-curve.svg');

const SET_NAMES = { metatool: 'MetaTool', multilingual: 'multilingual', mcp: 'real MCP servers' };
const round = (x) => (Number.isFinite(x) ? Math.round(x * 10_000) / 10_000 : null);
const ratio = (x, n) => (n ? round(x / n) : null);

/** A point's figures from agent-steps' summary of some counted tasks. */
function figures(s) {
  return { tasks: s.tasks, solvedTasks: s.solved, solved: ratio(s.solved, s.tasks), callsPerSolved: ratio(s.callsSolved, s.solved), preloadPrecision: ratio(s.preloadedRelevant, s.preloaded), preloaded: s.preloaded, wrongCallsPerTask: ratio(s.wrongCalls, s.tasks) };
}

/** Runs every series and point; returns the JSON written to RESULTS. */
export async function measure({ points = [0, 250, 500, 1000, 2000, 3000], sets = ['metatool', 'multilingual'], modes = ['hybrid', 'enhanced'], taskCount = 300, split = 'test', learnOverride = {}, unseenCheck = 2000, unseenTools = 0.1, log = () => {} } = {}) {
  const steps = await import('./agent-steps.mjs');
  const { hybridModelOption } = await import('./util.mjs');
  const hybrid = hybridModelOption();
  const configs = steps.configsFor({ hybrid, warmup: 1 });
  const started = performance.now();
  const series = [];
  for (const set of sets) {
    for (const mode of modes) {
      const base = configs.find((c) => c[0] === `ours, ${mode} + preload`);
      const learner = configs.find((c) => c[0] === `ours, ${mode} + preload${steps.LEARN_SUFFIX}`);
      if (!base || !learner) {
        log(`(no '${mode}' rows here: ${mode === 'hybrid' ? 'no model found' : 'unknown mode'}; skipped)`);
        continue;
      }
      const entry = { set, mode, label: learner[0], points: [] };
      let baseRow;
      let counted;
      for (const past of [...new Set([0, ...points])].sort((a, b) => a - b)) {
        const [s] = steps.buildSets({ which: set, split, taskCount, warmup: past, languages: 'together' });
        const t0 = performance.now();
        const row = await steps.runSet(s.tasks, s.catalog, past === 0 ? base : learner, { past: s.past, model: 'oracle', learnOverride });
        const seconds = (performance.now() - t0) / 1000;
        if (past === 0) [baseRow, counted, entry.setName, entry.tasks] = [row, s.tasks, s.name, s.tasks.length];
        const point = { past, learn: past > 0, ...figures(steps.summarize(row.outcomes)), firstCall: ratio(row.firstCall, row.tasks), seconds: round(seconds) };
        if (row.learned) point.learned = row.learned;
        if (row.pastRun) point.pastRelevantCalls = row.pastRun.relevantCalls;
        const languages = [...new Set(s.tasks.map((q) => q.lang).filter(Boolean))];
        if (languages.length > 1) point.languages = Object.fromEntries(languages.map((lang) => [lang, figures(steps.summarize(row.outcomes, (i) => s.tasks[i].lang === lang))]));
        entry.points.push(point);
        log(`${set} ${mode} N=${past}: solved ${point.solved}, calls per solved ${point.callsPerSolved}, precision ${point.preloadPrecision} (${seconds.toFixed(1)} s)`);
      }
      if (unseenCheck > 0) {
        const [s] = steps.buildSets({ which: set, split, taskCount, warmup: unseenCheck, unseenTools, languages: 'together' });
        const row = await steps.runSet(s.tasks, s.catalog, learner, { past: s.past, model: 'oracle', learnOverride });
        const parts = steps.compareWithBase(row, baseRow, counted, s.past);
        entry.unseenCheck = { past: unseenCheck, unseenTools, parts: Object.fromEntries(Object.entries(parts).map(([name, p]) => [name, { learn: figures(p.learn), without: figures(p.without) }])) };
        const u = entry.unseenCheck.parts.unseen;
        log(`${set} ${mode} unseen check (N=${unseenCheck}, ${unseenTools} of the tools held out): unseen tasks ${u.learn.tasks}, solved ${u.learn.solved} vs ${u.without.solved}, calls per solved ${u.learn.callsPerSolved} vs ${u.without.callsPerSolved}`);
      }
      series.push(entry);
    }
  }
  return { generated: new Date().toISOString(), node: process.version, split, model: 'oracle', users: steps.USERS, learn: { scope: 'global', ...learnOverride }, seconds: round((performance.now() - started) / 1000), series };
}

// ---- the chart ---------------------------------------------------------------------------------

export const METRICS = [
  { key: 'callsPerSolved', title: 'Model calls per solved task', format: (v) => v.toFixed(2) },
  { key: 'solved', title: 'Solved share', format: (v) => `${Math.round(v * 100)}%` },
  { key: 'preloadPrecision', title: 'Preload precision (tools)', format: (v) => v.toFixed(2) },
];
const COLOURS = { metatool: '#1f6feb', multilingual: '#d1242f', mcp: '#1a7f37' };
const DASHES = { hybrid: '', enhanced: '6 4' };
const PANEL = { width: 290, height: 220, left: 48, top: 56, gap: 70 };

const escapeXml = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const fixed = (x) => (Math.round(x * 100) / 100).toString();

/** Round tick steps covering [lo, hi] (about five). */
function ticks(lo, hi) {
  const raw = (hi - lo) / 5 || 0.1;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + 1e-9; v += step) out.push(Math.round(v * 1e6) / 1e6);
  return out;
}

/** A metric's y range over every series, padded and rounded outward. */
function yRange(data, key) {
  const values = data.series.flatMap((s) => s.points.map((p) => p[key])).filter((v) => v !== null && v !== undefined);
  if (values.length === 0) return [0, 1];
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const pad = Math.max((hi - lo) * 0.15, 0.02);
  return [Math.floor((lo - pad) * 20) / 20, Math.ceil((hi + pad) * 20) / 20];
}

const seriesId = (s) => `${s.set}/${s.mode}`;
const seriesName = (s) => `${SET_NAMES[s.set] ?? s.set}, ${s.mode} + preload + learn`;

/** The chart of `data` (measure()'s result) as SVG text: one panel per metric, one line per series. */
export function renderSvg(data) {
  const pasts = [...new Set(data.series.flatMap((s) => s.points.map((p) => p.past)))].sort((a, b) => a - b);
  const xMax = Math.max(1, ...pasts);
  const width = PANEL.left + METRICS.length * (PANEL.width + PANEL.gap) + 10;
  const legendTop = PANEL.top + PANEL.height + 50;
  const height = legendTop + 20 * data.series.length + 24;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`);
  out.push(`<title>Learning from use: ${escapeXml(data.model)} model, ${escapeXml(data.split)} tasks, by past tasks</title>`);
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="8" y="20" font-size="13" font-weight="bold">Learning from use (learn: { scope: 'global' }), oracle model, counted on the ${escapeXml(data.split)} half, by past tasks N</text>`);
  METRICS.forEach((metric, m) => {
    const x0 = PANEL.left + m * (PANEL.width + PANEL.gap);
    const [yMin, yMax] = yRange(data, metric.key);
    const top = PANEL.top;
    const bottom = PANEL.top + PANEL.height;
    const xAt = (past) => x0 + (past / xMax) * PANEL.width;
    const yAt = (v) => bottom - ((v - yMin) / (yMax - yMin)) * PANEL.height;
    out.push(`<g data-metric="${metric.key}" data-y-min="${yMin}" data-y-max="${yMax}" data-top="${top}" data-bottom="${bottom}" data-left="${x0}" data-width="${PANEL.width}" data-x-max="${xMax}">`);
    out.push(`<text x="${x0 - 40}" y="${top - 12}" font-size="12" font-weight="bold">${escapeXml(metric.title)}</text>`);
    for (const v of ticks(yMin, yMax)) {
      const y = fixed(yAt(v));
      out.push(`<line x1="${x0}" y1="${y}" x2="${x0 + PANEL.width}" y2="${y}" stroke="#e5e5e5"/>`);
      out.push(`<text x="${x0 - 4}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(metric.format(v))}</text>`);
    }
    let lastLabel = -Infinity;
    for (const past of pasts) {
      const x = xAt(past);
      out.push(`<line x1="${fixed(x)}" y1="${bottom}" x2="${fixed(x)}" y2="${bottom + 4}" stroke="#555555"/>`);
      // (a label only where it has room: N = 250 and 500 sit close on a 0 … 3,000 axis)
      if (x - lastLabel < 30) continue;
      lastLabel = x;
      out.push(`<text x="${fixed(x)}" y="${bottom + 16}" text-anchor="middle">${past.toLocaleString('en-US')}</text>`);
    }
    out.push(`<line x1="${x0}" y1="${top}" x2="${x0}" y2="${bottom}" stroke="#555555"/>`);
    out.push(`<line x1="${x0}" y1="${bottom}" x2="${x0 + PANEL.width}" y2="${bottom}" stroke="#555555"/>`);
    out.push(`<text x="${x0 + PANEL.width / 2}" y="${bottom + 32}" text-anchor="middle">past tasks N</text>`);
    for (const s of data.series) {
      const shown = s.points.filter((p) => p[metric.key] !== null && p[metric.key] !== undefined);
      const colour = COLOURS[s.set] ?? '#6e7781';
      const line = shown.map((p) => `${fixed(xAt(p.past))},${fixed(yAt(p[metric.key]))}`).join(' ');
      out.push(`<polyline points="${line}" fill="none" stroke="${colour}" stroke-width="2"${DASHES[s.mode] ? ` stroke-dasharray="${DASHES[s.mode]}"` : ''}/>`);
      for (const p of shown) {
        out.push(`<circle cx="${fixed(xAt(p.past))}" cy="${fixed(yAt(p[metric.key]))}" r="3" fill="${colour}" data-series="${escapeXml(seriesId(s))}" data-past="${p.past}" data-value="${p[metric.key]}"><title>${escapeXml(`${seriesName(s)}, N = ${p.past}: ${metric.format(p[metric.key])}`)}</title></circle>`);
      }
    }
    out.push('</g>');
  });
  data.series.forEach((s, i) => {
    const y = legendTop + 20 * i;
    const colour = COLOURS[s.set] ?? '#6e7781';
    out.push(`<line x1="${PANEL.left}" y1="${y}" x2="${PANEL.left + 30}" y2="${y}" stroke="${colour}" stroke-width="2"${DASHES[s.mode] ? ` stroke-dasharray="${DASHES[s.mode]}"` : ''}/>`);
    out.push(`<text x="${PANEL.left + 38}" y="${y}" dominant-baseline="middle">${escapeXml(`${seriesName(s)} (${s.tasks} counted tasks; N = 0: no learn)`)}</text>`);
  });
  out.push(`<text x="${PANEL.left}" y="${height - 8}" fill="#555555">${escapeXml(`${data.generated.slice(0, 10)}, node ${data.node}; bench/learning-curve.mjs, data in bench/results/learning-curve.json`)}</text>`);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** The points the chart must show: one per series, metric and past-task count with a value. */
export function expectedPoints(data) {
  return data.series.flatMap((s) => METRICS.flatMap((metric) => s.points.filter((p) => p[metric.key] !== null && p[metric.key] !== undefined).map((p) => ({ metric: metric.key, series: seriesId(s), past: p.past, value: p[metric.key] }))));
}

/** The points a parsed chart shows, with where they are drawn and the axes of their panel. */
export function chartPoints(root) {
  const out = [];
  for (const panel of root.children.filter((c) => c.name === 'g' && c.attributes['data-metric'])) {
    for (const circle of panel.children.filter((c) => c.name === 'circle')) {
      const a = circle.attributes;
      out.push({ metric: panel.attributes['data-metric'], series: a['data-series'], past: Number(a['data-past']), value: Number(a['data-value']), cx: Number(a.cx), cy: Number(a.cy), panel: Object.fromEntries(Object.entries(panel.attributes).map(([k, v]) => [k.replace(/^data-/, ''), Number(v)])) });
    }
  }
  return out;
}

// ---- a small XML well-formedness check (no dependency) ---------------------------------------------

const NAME = /^[A-Za-z_:][\w.:-]*/;
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9A-Fa-f]+);/y;

function checkText(text, where) {
  if (text.includes('<')) throw new SyntaxError(`XML: '<' in ${where}`);
  for (let i = text.indexOf('&'); i >= 0; i = text.indexOf('&', i + 1)) {
    ENTITY.lastIndex = i;
    if (!ENTITY.test(text)) throw new SyntaxError(`XML: bad entity reference in ${where}: ${JSON.stringify(text.slice(i, i + 12))}`);
  }
}

/**
 * Parses `text` as XML (elements, attributes, text, comments, an optional declaration) and returns
 * its root `{ name, attributes, children }`; throws a SyntaxError where it is not well-formed.
 */
export function parseXml(text) {
  let at = 0;
  const stack = [{ name: '#document', attributes: {}, children: [] }];
  const skipMisc = () => {
    for (;;) {
      if (text.startsWith('<!--', at)) {
        const end = text.indexOf('-->', at + 4);
        if (end < 0) throw new SyntaxError('XML: unterminated comment');
        at = end + 3;
      } else if (text.startsWith('<?', at)) {
        const end = text.indexOf('?>', at + 2);
        if (end < 0) throw new SyntaxError('XML: unterminated declaration');
        at = end + 2;
      } else return;
    }
  };
  while (at < text.length) {
    skipMisc();
    if (at >= text.length) break;
    const open = text.indexOf('<', at);
    const chunk = text.slice(at, open < 0 ? text.length : open);
    const parent = stack[stack.length - 1];
    if (chunk.trim()) {
      if (stack.length === 1) throw new SyntaxError('XML: text outside the root element');
      checkText(chunk, `<${parent.name}>`);
    }
    if (open < 0) break;
    at = open;
    if (text.startsWith('<!--', at) || text.startsWith('<?', at)) continue;
    if (text.startsWith('</', at)) {
      const name = NAME.exec(text.slice(at + 2))?.[0];
      const end = text.indexOf('>', at);
      if (!name || end < 0 || text.slice(at + 2 + name.length, end).trim()) throw new SyntaxError(`XML: bad end tag at ${at}`);
      if (stack.length === 1 || parent.name !== name) throw new SyntaxError(`XML: </${name}> does not close <${parent.name}>`);
      stack.pop();
      at = end + 1;
      continue;
    }
    const name = NAME.exec(text.slice(at + 1))?.[0];
    if (!name) throw new SyntaxError(`XML: bad tag at ${at}`);
    if (stack.length === 1 && parent.children.length > 0) throw new SyntaxError('XML: more than one root element');
    at += 1 + name.length;
    const element = { name, attributes: {}, children: [] };
    for (;;) {
      const space = /^\s*/.exec(text.slice(at))[0].length;
      at += space;
      if (text.startsWith('/>', at) || text.startsWith('>', at)) break;
      if (!space) throw new SyntaxError(`XML: no space before an attribute of <${name}>`);
      const attr = /^([A-Za-z_:][\w.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(text.slice(at));
      if (!attr) throw new SyntaxError(`XML: bad attribute in <${name}> at ${at}`);
      if (attr[1] in element.attributes) throw new SyntaxError(`XML: attribute ${attr[1]} repeated in <${name}>`);
      const value = attr[3] ?? attr[4];
      checkText(value, `an attribute of <${name}>`);
      element.attributes[attr[1]] = value.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
      at += attr[0].length;
    }
    parent.children.push(element);
    if (text.startsWith('/>', at)) at += 2;
    else {
      at += 1;
      stack.push(element);
    }
  }
  if (stack.length > 1) throw new SyntaxError(`XML: <${stack[stack.length - 1].name}> is not closed`);
  if (stack[0].children.length !== 1) throw new SyntaxError('XML: no root element');
  return stack[0].children[0];
}

/** Checks `svg` is well-formed and shows exactly `data`'s points where its axes put them; throws if not. */
export function checkChart(svg, data) {
  const root = parseXml(svg);
  if (root.name !== 'svg' || root.attributes.xmlns !== 'http://www.w3.org/2000/svg') throw new Error('chart: the root is not an SVG element');
  const shown = chartPoints(root);
  const key = (p) => `${p.metric} ${p.series} ${p.past} ${p.value}`;
  const expected = expectedPoints(data).map(key).sort();
  const actual = shown.map(key).sort();
  if (JSON.stringify(expected) !== JSON.stringify(actual)) throw new Error(`chart: its points are not the JSON's (${actual.length} shown, ${expected.length} expected)`);
  for (const p of shown) {
    const { 'y-min': yMin, 'y-max': yMax, top, bottom, left, width, 'x-max': xMax } = p.panel;
    const cy = bottom - ((p.value - yMin) / (yMax - yMin)) * (bottom - top);
    const cx = left + (p.past / xMax) * width;
    if (Math.abs(cy - p.cy) > 0.01 || Math.abs(cx - p.cx) > 0.01 || p.cy < top - 0.01 || p.cy > bottom + 0.01) throw new Error(`chart: ${key(p)} is drawn at (${p.cx}, ${p.cy}), not (${cx}, ${cy})`);
  }
  return shown.length;
}

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = option('out', RESULTS);
  const chart = option('svg', CHART);
  let data;
  if (process.argv.includes('--render-only')) data = JSON.parse(readFileSync(out, 'utf8'));
  else {
    const list = (name, fallback) => option(name, fallback).split(',').map((x) => x.trim()).filter(Boolean);
    data = await measure({
      points: list('points', '0,250,500,1000,2000,3000').map(Number),
      sets: list('sets', 'metatool,multilingual'),
      modes: list('modes', 'hybrid,enhanced'),
      taskCount: Number(option('tasks', 300)),
      split: option('split', 'test'),
      learnOverride: JSON.parse(option('learn', '{}')),
      unseenCheck: Number(option('unseen-check', 2000)),
      unseenTools: Number(option('unseen-tools', 0.1)),
      log: (line) => console.log(line),
    });
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(data, null, 2)}\n`);
    console.log(`${out} (${data.seconds} s)`);
  }
  const svg = renderSvg(data);
  const points = checkChart(svg, data);
  writeFileSync(chart, svg);
  console.log(`${chart}: well-formed, ${points} points`);
}
