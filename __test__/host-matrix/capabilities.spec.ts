// The capability table (js/host.js): versions between and beyond the matrix hosts get the
// rules of the last row at or below them; an unreadable version gets the newest rules.
import { describe, expect, it } from 'vitest';

import { capabilitiesFor, host } from '../../js/host.js';

describe('host capabilities', () => {
  it('reads the installed @mastra/core once (the repo has 1.59.0)', () => {
    expect(host.version).toBe('1.59.0');
    expect(host.capabilities).toEqual(capabilitiesFor('1.59.0'));
    expect(Object.isFrozen(host.capabilities)).toBe(true);
  });

  it('an intermediate release gets the rules of the last boundary at or below it', () => {
    expect(capabilitiesFor('1.64.0')).toEqual(capabilitiesFor('1.60.0'));
    expect(capabilitiesFor('1.69.0')).toEqual(capabilitiesFor('1.68.0'));
    expect(capabilitiesFor('1.67.0')).toEqual({ ...capabilitiesFor('1.66.0'), injectCatalog: true });
    expect(capabilitiesFor('1.59.9')).toEqual(capabilitiesFor('1.58.0'));
  });

  it('a prerelease counts as its release; a later 1.x as the newest known host', () => {
    expect(capabilitiesFor('1.68.0-alpha.3')).toEqual(capabilitiesFor('1.68.0'));
    expect(capabilitiesFor('1.99.0')).toEqual(capabilitiesFor('1.71.0'));
  });

  it('an unreadable version gets the newest rules (never the history-rewriting filter)', () => {
    expect(capabilitiesFor(undefined)).toEqual(capabilitiesFor('1.71.0'));
    expect(capabilitiesFor('not a version').toolCallFilterStage).toBe('prompt');
  });
});
