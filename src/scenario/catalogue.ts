/**
 * The fixed catalogue of transforms and index functions a scenario can name
 * (docs/scenario-format.md, "Transforms and indexers"). The Go oracle has the same entries
 * (test/conformance/oracle/catalogue.go); both must produce the same objects byte for byte.
 */
import type { KubeObject, StoreObject } from '../engine/objects';
import type { TransformName } from './types';

export const TRANSFORM_NAMES: readonly TransformName[] = ['strip-managed-fields', 'drop-annotations', 'count-transforms'];

/** The annotation `count-transforms` increments: how often the transform ran on this object. */
export const TRANSFORM_COUNT_ANNOTATION = 'inspector.dev/transforms';

/** A copy of obj with the transform applied (the argument is never changed). */
export function transformFor(name: TransformName): (obj: KubeObject) => KubeObject {
  return (obj) => {
    const out = structuredClone(obj);
    const md = (out.metadata ??= {});
    switch (name) {
      case 'strip-managed-fields':
        delete md.managedFields;
        break;
      case 'drop-annotations':
        delete md.annotations;
        break;
      case 'count-transforms': {
        const annotations = { ...((md.annotations as Record<string, string> | undefined) ?? {}) };
        const before = annotations[TRANSFORM_COUNT_ANNOTATION];
        // Go's strconv.Atoi: anything but a plain integer counts as 0.
        const n = typeof before === 'string' && /^[+-]?\d+$/.test(before) ? Number(before) : 0;
        annotations[TRANSFORM_COUNT_ANNOTATION] = String(n + 1);
        md.annotations = annotations;
        break;
      }
    }
    return out;
  };
}

/** Whether `spec` names an index function of the catalogue. */
export function isIndexFuncSpec(spec: string): boolean {
  return spec === 'namespace' || /^label:.+$/.test(spec);
}

/** "namespace": the object's namespace; "label:<key>": that label's value, nothing when absent. */
export function indexFuncFor(spec: string): (obj: StoreObject) => string[] {
  if (spec === 'namespace') return (obj) => [String((obj as KubeObject).metadata?.namespace ?? '')];
  const key = spec.slice('label:'.length);
  return (obj) => {
    const labels = (obj as KubeObject).metadata?.labels as Record<string, unknown> | undefined;
    const v = labels?.[key];
    return typeof v === 'string' ? [v] : [];
  };
}
