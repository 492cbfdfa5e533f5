// The MetaTool benchmark (data/metatool) as the tool-search specs read it: the tool catalog
// (id + description, file order) and every query text (file order).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dataDir = join(__dirname, '..', '..', 'data', 'metatool');

const readJsonl = (file: string): any[] =>
  readFileSync(join(dataDir, file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

export const METATOOL_TOOLS: Array<{ id: string; description: string }> = readJsonl('tools.jsonl');
export const METATOOL_QUERIES: string[] = readJsonl('queries.jsonl').map((q) => q.query);
