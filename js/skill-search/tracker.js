'use strict';
// Change tracking of Mastra's own skills objects, so that an index re-check can skip reading
// the skills when nothing changed (see catalog.js and the processor's #sync).

/**
 * Change tracking for Mastra's own skills objects (`WorkspaceSkillsImpl`, every host 1.58–1.71).
 *
 * Mastra offers no public change signal (no version counter, event or timestamp: its discovery
 * time and catalog are private fields), but its catalog changes only inside its own public
 * methods: `refresh()` (also what `maybeRefresh()` calls when the skills folders are stale or
 * the resolved paths changed), `addSkill()` and `removeSkill()`; the first discovery runs inside
 * whichever call comes first. So each method of such an object is wrapped (own, non-enumerable
 * properties that call the prototype's method, return its result and rethrow its errors):
 * a call of a method that may change the catalog counts as a change when it starts and again
 * when it settles. A re-check that finds the count unchanged since its last full read knows no
 * skill was added, removed or re-parsed (get() and list() would answer as then), so it makes
 * no skills call at all; a changed count makes it read fully (list(), get() per skill).
 * (Verified against every host's sources 1.58–1.71: the catalog map and its entries are
 * written only by the first discovery, refresh, addSkill and removeSkill.)
 *
 * Calls that only read count as changes too while a change is in flight: on 1.58/1.59
 * `refresh()` clears the catalog first, and a read arriving meanwhile starts its own discovery,
 * which may finish after the refresh. A rejected `refresh()` (1.58/1.59 then rediscover lazily
 * at some later read) or a rejected unknown method stops trusting the count until a
 * `refresh()` succeeds. Objects of any other class (custom skills objects, subclasses, a
 * bundled renamed copy), objects with own methods already (spied or patched), and objects whose
 * wrappers were later replaced, are not tracked: those keep the interval-based full check.
 */
const CATALOG_READS = new Set([
  'getScoped',
  'list',
  'get',
  'has',
  'maybeRefresh',
  'search',
  'getReference',
  'getScript',
  'getAsset',
  'listReferences',
  'listScripts',
  'listAssets',
  'registerLocationAlias',
  'releaseSearchIndex',
]);
/** Known methods whose rejection leaves the catalog as it settled (others stop the trust). */
const SETTLING_CHANGES = new Set(['addSkill', 'removeSkill']);
/** The methods a skills object needs for its changes to be tracked. */
const REQUIRED_METHODS = ['list', 'get', 'refresh', 'maybeRefresh', 'addSkill', 'removeSkill'];

/** skills object -> its tracker, or null when it cannot be tracked. Shared by all processors. */
const trackers = new WeakMap();

/** The change tracker of a skills object (installed on first sight), or null. */
function trackerOf(skills) {
  let tracker = trackers.get(skills);
  if (tracker === undefined) {
    tracker = instrumentSkills(skills);
    trackers.set(skills, tracker);
  }
  return tracker;
}

function instrumentSkills(skills) {
  const proto = Object.getPrototypeOf(skills);
  if (
    !proto ||
    Object.getPrototypeOf(proto) !== Object.prototype ||
    !Object.prototype.hasOwnProperty.call(proto, 'constructor') ||
    proto.constructor.name !== 'WorkspaceSkillsImpl' ||
    !Object.isExtensible(skills)
  ) {
    return null;
  }
  const names = Object.getOwnPropertyNames(proto).filter(name => {
    if (name === 'constructor') return false;
    return typeof Object.getOwnPropertyDescriptor(proto, name).value === 'function';
  });
  if (REQUIRED_METHODS.some(name => !names.includes(name))) return null;
  if (names.some(name => Object.prototype.hasOwnProperty.call(skills, name))) return null;

  const tracker = { changes: 0, pending: 0, failed: false, wrappers: [] };
  for (const name of names) {
    const reads = CATALOG_READS.has(name);
    const settle = ok => {
      tracker.pending--;
      tracker.changes++;
      if (name === 'refresh') {
        if (ok) tracker.failed = false;
        else tracker.failed = true;
      } else if (!ok && !reads && !SETTLING_CHANGES.has(name)) {
        tracker.failed = true;
      }
    };
    const wrapper = {
      [name](...args) {
        const method = proto[name];
        if (reads && tracker.pending === 0) return method.apply(this, args);
        tracker.pending++;
        tracker.changes++;
        let result;
        try {
          result = method.apply(this, args);
        } catch (error) {
          settle(reads);
          throw error;
        }
        if (result === null || (typeof result !== 'object' && typeof result !== 'function') || typeof result.then !== 'function') {
          settle(true);
          return result;
        }
        // A chained promise: an ignored rejection stays unhandled for the caller, as without us.
        return result.then(
          value => {
            settle(true);
            return value;
          },
          error => {
            settle(reads);
            throw error;
          },
        );
      },
    }[name];
    Object.defineProperty(skills, name, { value: wrapper, writable: true, configurable: true, enumerable: false });
    tracker.wrappers.push([name, wrapper]);
  }
  return tracker;
}

/** Whether a tracker's count can be trusted now: no failed refresh, every wrapper still in place. */
function trackerTrusted(skills, tracker) {
  if (tracker === null || tracker.failed) return false;
  for (const [name, wrapper] of tracker.wrappers) {
    if (skills[name] !== wrapper) return false;
  }
  return true;
}

module.exports = { trackerOf, trackerTrusted };
