// The learning curve chart (docs/learning-curve.svg, drawn by bench/learning-curve.mjs from
// bench/results/learning-curve.json) is well-formed SVG, up to date with its JSON, and draws each of
// the JSON's points where its axes say; the XML check it relies on rejects what is not well-formed.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART, RESULTS, chartPoints, checkChart, expectedPoints, parseXml, renderSvg } from '../../bench/learning-curve.mjs';

const root = join(__dirname, '..', '..');

describe('learning curve chart', () => {
  it('exists beside its JSON and is linked from docs/learning.md', () => {
    expect(existsSync(CHART)).toBe(true);
    expect(existsSync(RESULTS)).toBe(true);
    expect(readFileSync(join(root, 'docs', 'learning.md'), 'utf8')).toContain('learning-curve.svg');
  });

  it('is well-formed SVG showing exactly the JSON points, each where its panel axes put it', () => {
    const svg = readFileSync(CHART, 'utf8');
    const data = JSON.parse(readFileSync(RESULTS, 'utf8'));
    const tree = parseXml(svg);
    expect(tree.name).toBe('svg');
    const expected = expectedPoints(data);
    // every series has a point per past-task count and metric (null values aside)
    expect(expected.length).toBeGreaterThan(0);
    expect(chartPoints(tree)).toHaveLength(expected.length);
    expect(checkChart(svg, data)).toBe(expected.length);
    expect(new Set(expected.map((p) => p.series)).size).toBe(data.series.length);
  });

  it('is the chart its JSON renders (re-render with `node bench/learning-curve.mjs --render-only`)', () => {
    const data = JSON.parse(readFileSync(RESULTS, 'utf8'));
    expect(readFileSync(CHART, 'utf8')).toBe(renderSvg(data));
  });

  it('the check fails on a chart whose point moved or whose values differ from the JSON', () => {
    const data = JSON.parse(readFileSync(RESULTS, 'utf8'));
    const svg = renderSvg(data);
    const moved = svg.replace(/(<circle cx="[^"]*" cy=")([^"]*)"/, (_, head, cy) => `${head}${Number(cy) + 5}"`);
    expect(() => checkChart(moved, data)).toThrow(/drawn at/);
    const changed = structuredClone(data);
    changed.series[0].points[0].solved += 0.01;
    expect(() => checkChart(svg, changed)).toThrow(/not the JSON's/);
  });

  it('the XML check rejects what is not well-formed', () => {
    expect(parseXml('<?xml version="1.0"?><!-- c --><a x="1"><b/>t &amp; u</a>').children).toHaveLength(1);
    for (const bad of ['<a><b></a></b>', '<a>', '<a/><b/>', '<a x="1" x="2"/>', '<a x=1/>', '<a>x & y</a>', '<a y="<"/>', 'text<a/>', '<a></b>', '']) {
      expect(() => parseXml(bad), bad).toThrow(SyntaxError);
    }
  });
});
