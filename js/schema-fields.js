'use strict';
// Parameter names and descriptions of a tool's input schema, for enhanced search.
// Supports zod v4 and v3 objects, plain JSON Schema and schemas that give their JSON Schema
// through Standard JSON Schema (`~standard.jsonSchema.input`: @mastra/core's createTool wraps a
// plain JSON Schema, such as an MCP server's tool's, in one); anything else yields [].

const MAX_UNWRAP = 16;

function nonEmptyString(value) {
  return typeof value === 'string' && value.length > 0 ? value : '';
}

/** Description of one zod (v3 or v4) field, looking through optional/nullable/default/... wrappers. */
function zodFieldDescription(field) {
  let current = field;
  for (let depth = 0; depth < MAX_UNWRAP && current && typeof current === 'object'; depth++) {
    // v4: `.description` reads the registry; `.meta()` holds `.meta({ description })`.
    const direct = nonEmptyString(current.description);
    if (direct) return direct;
    if (typeof current.meta === 'function') {
      const meta = current.meta();
      const fromMeta = meta && typeof meta === 'object' ? nonEmptyString(meta.description) : '';
      if (fromMeta) return fromMeta;
    }
    // v3 keeps it on the definition.
    const v3 = current._def && nonEmptyString(current._def.description);
    if (v3) return v3;
    current = innerSchema(current);
  }
  return '';
}

/** The schema inside an optional/nullable/default/catch/readonly/effects/pipe wrapper, if any. */
function innerSchema(schema) {
  const v4 = schema._zod && schema._zod.def;
  if (v4) {
    if (v4.innerType) return v4.innerType;
    if (v4.type === 'pipe' && v4.in) return v4.in;
    return undefined;
  }
  const v3 = schema._def;
  if (v3) {
    if (v3.innerType) return v3.innerType; // optional, nullable, default, catch, readonly
    if (v3.schema) return v3.schema; // effects (refine, transform)
    if (v3.typeName === 'ZodPipeline' && v3.in) return v3.in;
  }
  return undefined;
}

/** Field map of a zod object (v4 `.shape`, v3 `._def.shape()`), unwrapping wrappers around the object. */
function zodShape(schema) {
  let current = schema;
  for (let depth = 0; depth < MAX_UNWRAP && current && typeof current === 'object'; depth++) {
    const v4 = current._zod && current._zod.def;
    if (v4 && v4.type === 'object' && v4.shape && typeof v4.shape === 'object') return v4.shape;
    const v3 = current._def;
    if (v3 && v3.typeName === 'ZodObject') {
      const shape = typeof v3.shape === 'function' ? v3.shape() : v3.shape;
      if (shape && typeof shape === 'object') return shape;
    }
    current = innerSchema(current);
  }
  return undefined;
}

/**
 * The JSON Schema a Standard JSON Schema gives for its input (`~standard.jsonSchema.input`),
 * or undefined.
 */
function standardJsonSchema(schema) {
  const standard = schema['~standard'];
  const jsonSchema = standard && typeof standard === 'object' ? standard.jsonSchema : undefined;
  if (!jsonSchema || typeof jsonSchema.input !== 'function') return undefined;
  const out = safe(() => jsonSchema.input({ target: 'draft-07' }));
  return out && typeof out === 'object' ? out : undefined;
}

function isZod(schema) {
  return Boolean(schema && typeof schema === 'object' && (schema._zod || (schema._def && schema._def.typeName)));
}

/**
 * `[name, description]` for each top-level input parameter of `tool`, in schema order.
 * Never throws: schemas it cannot read give `[]`.
 * @param {unknown} tool
 * @returns {Array<[string, string]>}
 */
function extractParamFields(tool) {
  try {
    if (!tool || typeof tool !== 'object') return [];
    let schema = tool.inputSchema;
    if (!schema || typeof schema !== 'object') return [];
    if (isZod(schema)) {
      const shape = zodShape(schema);
      if (!shape) return [];
      return Object.keys(shape).map((name) => [name, safe(() => zodFieldDescription(shape[name]))]);
    }
    if (!schema.properties) schema = standardJsonSchema(schema) ?? schema;
    const properties = schema.properties;
    if (properties && typeof properties === 'object' && !Array.isArray(properties)) {
      return Object.keys(properties).map((name) => {
        const prop = properties[name];
        return [name, prop && typeof prop === 'object' ? nonEmptyString(prop.description) : ''];
      });
    }
    return [];
  } catch {
    return [];
  }
}

function safe(read) {
  try {
    return read();
  } catch {
    return '';
  }
}

module.exports = { extractParamFields };
