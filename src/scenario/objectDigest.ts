/**
 * The stable digest of an object as a handler receives it (docs/notification-log-v2.md): the
 * first 16 hex digits of the SHA-256 of its canonical JSON. Canonical JSON: object keys sorted
 * by their UTF-8 bytes, numbers as IEEE doubles in ECMAScript's shortest form, strings escaped as
 * JSON.stringify does plus U+2028/U+2029 as \u2028/\u2029, no insignificant space. Go's
 * encoding/json with SetEscapeHTML(false) and float64 numbers writes the same bytes
 * (test/conformance/oracle/log.go, Digest).
 */
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
    case 'number':
      if (Object.is(value, -0)) return '-0'; // Go writes float64 -0 as -0
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      const o = value as Record<string, unknown>;
      const keys = Object.keys(o)
        .filter((k) => o[k] !== undefined)
        .sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
      return `{${keys.map((k) => `${canonicalJson(k)}:${canonicalJson(o[k])}`).join(',')}}`;
    }
    default:
      return 'null';
  }
}

/** "" for null/undefined (a tombstone without an object). */
export function objectDigest(obj: unknown): string {
  if (obj === null || obj === undefined) return '';
  return createHash('sha256').update(canonicalJson(obj), 'utf8').digest('hex').slice(0, 16);
}
