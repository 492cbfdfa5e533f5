'use strict';
// The host modules our meta-tools are built with: `createTool` (@mastra/core/tools) and zod's `z`.
//
// The CommonJS entry uses the copies `require` finds (the defaults below, loaded on first use).
// The ESM entry binds the copies `import` finds (`bindHostModules`), so an ESM app's meta-tools
// are instances of the very `Tool` class the app imports and Mastra's CommonJS build is never
// loaded next to its ESM build. All processor logic stays in one class either way.

const HOST_MODULES = Symbol.for('mastra-native-processors.hostModules');

let requiredModules;

/** `createTool` and `z` as CommonJS `require` resolves them (loaded lazily, once). */
function requiredHostModules() {
  if (!requiredModules) {
    requiredModules = Object.freeze({
      createTool: require('@mastra/core/tools').createTool,
      z: require('zod/v4').z,
    });
  }
  return requiredModules;
}

/** The host modules a processor instance builds its meta-tools with. */
function hostModulesOf(instance) {
  return instance.constructor[HOST_MODULES] ?? requiredHostModules();
}

/**
 * A subclass of `Base` (same name, no new logic) whose instances build their meta-tools with
 * `modules` ({ createTool, z }).
 */
function bindHostModules(Base, modules) {
  const Bound = { [Base.name]: class extends Base {} }[Base.name];
  Object.defineProperty(Bound, HOST_MODULES, { value: Object.freeze({ ...modules }) });
  return Bound;
}

/** Memoizes `build(z)` per zod instance (schemas are immutable, so one set per `z` suffices). */
function perZod(build) {
  const cache = new WeakMap();
  return (z) => {
    let value = cache.get(z);
    if (!value) {
      value = build(z);
      cache.set(z, value);
    }
    return value;
  };
}

module.exports = { hostModulesOf, bindHostModules, perZod };
