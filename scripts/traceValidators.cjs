// The trace schema's checks (src/trace/schema/informer-trace-v1.schema.json) as code generated
// ahead of time with ajv's standalone mode: the whole schema, and one check per event type (the
// base event's fields and that type's definition). esbuild.mjs puts this code in place of
// src/trace/schema/validators.ts in every bundle, so no bundle compiles the schema when a trace is
// opened; under tsx (tests) validators.ts compiles the same checks at run time.
// The unit test test/unit/trace/validators.test.ts checks both give the same answers and errors.
'use strict';
const Ajv2020 = require('ajv/dist/2020').default;
const standaloneCode = require('ajv/dist/standalone').default;
const schema = require('../src/trace/schema/informer-trace-v1.schema.json');

/** The same options and event checks as src/trace/schema/validators.ts. */
function generate() {
  const ajv = new Ajv2020({ allErrors: false, strict: true, code: { source: true } });
  ajv.addSchema(schema);
  const refs = { full: schema.$id };
  const types = [];
  const base = schema.$defs.event;
  for (const def of Object.keys(schema.$defs)) {
    if (!def.startsWith('event.')) continue;
    const name = `event${types.length}`;
    const $id = `${schema.$id}/checks/${def}`;
    types.push([def.slice('event.'.length), name]);
    ajv.addSchema({ $id, type: 'object', required: base.required, properties: base.properties, allOf: [{ $ref: `${schema.$id}#/$defs/${def}` }] });
    refs[name] = $id;
  }
  const code = standaloneCode(ajv, refs);
  const byType = types.map(([type, name]) => `${JSON.stringify(type)}: checks.${name}`).join(', ');
  // The generated module runs on first use (a bundle that never checks a trace, like the engine
  // worker's, only carries its text).
  return `let checks;
let byType;
function load() {
  if (!checks) {
    checks = {};
    (function (exports) {
${code}
    })(checks);
    byType = { ${byType} };
  }
}
exports.fullValidator = () => {
  load();
  return checks.full;
};
exports.eventValidator = (type) => {
  load();
  return Object.prototype.hasOwnProperty.call(byType, type) ? byType[type] : undefined;
};
`;
}

module.exports = { generate };
