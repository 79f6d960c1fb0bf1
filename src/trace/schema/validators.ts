/**
 * The trace schema's checks: the whole schema (informer-trace-v1.schema.json), and one check per
 * event type — what the schema's event definition requires of every event (seq, t, type) and the
 * `event.<type>` definition its if/then picks for that type, which accepts exactly the events of
 * that type the whole schema accepts.
 *
 * Here they are compiled at run time, once, on first use (tests under tsx). Every bundle gets
 * them generated ahead of time instead (scripts/traceValidators.cjs, which esbuild.mjs puts in
 * place of this module): nothing is compiled when a trace is opened.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import schema from './informer-trace-v1.schema.json';

let ajv: Ajv2020 | undefined;
let full: ValidateFunction | undefined;
const byType = new Map<string, ValidateFunction | undefined>();

/** The whole schema's check. */
export function fullValidator(): ValidateFunction {
  if (!full) {
    ajv = new Ajv2020({ allErrors: false, strict: true });
    ajv.addSchema(schema);
    full = ajv.getSchema(schema.$id)!;
  }
  return full;
}

/** The check of one event type; undefined for a type the schema does not have. */
export function eventValidator(type: string): ValidateFunction | undefined {
  if (byType.has(type)) return byType.get(type);
  fullValidator();
  const def = `event.${type}`;
  let v: ValidateFunction | undefined;
  if (Object.prototype.hasOwnProperty.call(schema.$defs, def)) {
    const base = schema.$defs.event;
    v = ajv!.compile({ type: 'object', required: base.required, properties: base.properties, allOf: [{ $ref: `${schema.$id}#/$defs/${def}` }] });
  }
  byType.set(type, v);
  return v;
}
