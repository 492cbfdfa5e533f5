import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { createTool } from '@mastra/core/tools';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { extractParamFields } = require('../../js/schema-fields.js');

const execute = async () => ({});

describe('extractParamFields', () => {
  it('reads a zod v4 object through createTool, unwrapping optional/nullable/default', () => {
    const tool = createTool({
      id: 'weather',
      description: 'Weather',
      inputSchema: z.object({
        city: z.string().describe('City name'),
        days: z.number().optional().describe('Days ahead'),
        unit: z.enum(['c', 'f']).default('c').meta({ description: 'Temperature unit' }),
        note: z.string().describe('Inner description').nullable().optional(),
        plain: z.boolean(),
      }),
      execute,
    });
    expect(extractParamFields(tool)).toEqual([
      ['city', 'City name'],
      ['days', 'Days ahead'],
      ['unit', 'Temperature unit'],
      ['note', 'Inner description'],
      ['plain', ''],
    ]);
  });

  it('reads zod v3 objects', () => {
    const tool = {
      id: 'legacy',
      inputSchema: z3.object({
        query: z3.string().describe('Search text'),
        limit: z3.number().int().optional().describe('Max results'),
        sort: z3.string().describe('Sort key').default('date'),
        tags: z3.array(z3.string()).describe('Tags').refine((t) => t.length < 5),
        bare: z3.string(),
      }),
    };
    expect(extractParamFields(tool)).toEqual([
      ['query', 'Search text'],
      ['limit', 'Max results'],
      ['sort', 'Sort key'],
      ['tags', 'Tags'],
      ['bare', ''],
    ]);
  });

  it('reads plain JSON Schema objects', () => {
    const tool = {
      id: 'json',
      inputSchema: {
        type: 'object',
        properties: {
          to: { type: 'string', description: 'Recipient address' },
          subject: { type: 'string' },
          body: true,
        },
        required: ['to'],
      },
    };
    expect(extractParamFields(tool)).toEqual([
      ['to', 'Recipient address'],
      ['subject', ''],
      ['body', ''],
    ]);
  });

  it('keeps non-English names and descriptions as they are', () => {
    const tool = createTool({
      id: 'tianqi',
      description: '天气',
      inputSchema: z.object({ 城市: z.string().describe('城市名稱'), 날짜: z.string().describe('날짜 선택') }),
      execute,
    });
    expect(extractParamFields(tool)).toEqual([
      ['城市', '城市名稱'],
      ['날짜', '날짜 선택'],
    ]);
  });

  it('returns [] for tools without a readable object schema, and never throws', () => {
    const throwing = {
      get inputSchema() {
        throw new Error('boom');
      },
    };
    const weirdShape = { _zod: { def: { type: 'object', shape: null } } };
    const throwingField = {
      inputSchema: z.object({
        ok: z.string().describe('fine'),
      }),
    };
    Object.defineProperty(throwingField.inputSchema.shape.ok, 'description', {
      get() {
        throw new Error('bad getter');
      },
    });
    for (const tool of [
      undefined,
      null,
      42,
      'tool',
      {},
      { inputSchema: undefined },
      { inputSchema: 'schema' },
      { inputSchema: z.string() },
      { inputSchema: z3.string() },
      { inputSchema: { type: 'object' } },
      { inputSchema: { properties: ['a'] } },
      { inputSchema: weirdShape },
      throwing,
      createTool({ id: 'no-schema', description: 'none', execute }),
    ]) {
      expect(extractParamFields(tool)).toEqual([]);
    }
    expect(extractParamFields(throwingField)).toEqual([['ok', '']]);
  });

  it('finds the object inside wrappers around the whole schema', () => {
    const tool = { inputSchema: z.object({ a: z.string().describe('A') }).optional() };
    expect(extractParamFields(tool)).toEqual([['a', 'A']]);
    const tool3 = { inputSchema: z3.object({ b: z3.string().describe('B') }).refine(() => true) };
    expect(extractParamFields(tool3)).toEqual([['b', 'B']]);
  });
});
