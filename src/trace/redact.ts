/**
 * Redaction of trace events. Invariant: with redaction on, no Secret payload (data, stringData,
 * and the last-applied annotation that repeats them) and nothing credential-like (bearer/basic
 * tokens, Authorization headers, client keys and certificates, passwords, JWTs, PEM blocks, URL
 * user info) survives in any string or value of an event. Redaction is idempotent, so a redacted
 * trace re-exported is byte-identical.
 *
 * The event vocabulary's own top-level field names (e.g. `key`, the object's cache key) are not
 * treated as credential names; every value below them is.
 */
import type { FieldChange, TraceEvent } from '../format/events';

export const REDACTED = '[redacted]';

export interface RedactionContext {
  /** The resource the trace is about: Secret payloads are recognised by it. */
  resource: { group: string; resource: string; kind?: string };
}

/** Map keys whose value is a credential wherever they appear (kv of logs, objects in diffs). */
const CREDENTIAL_KEY =
  /^(authorization|proxy-authorization|password|passwd|token|bearer[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|client[-_]?key(-data)?|client[-_]?certificate(-data)?|tls\.key|tls\.crt|ssh-privatekey|api[-_]?key|private[-_]?key|secret)$/i;

/** Cheap pre-check: a path without any of these has no segment CREDENTIAL_KEY matches. */
const MAYBE_CREDENTIAL_KEY = /authoriz|passw|token|key|cert|crt|secret/i;

/** Cheap pre-check: a string without any of these cannot match a pattern below. */
const MAYBE_SENSITIVE = /bearer|basic|authoriz|-----begin|eyj|token|passw|key|cert|secret|:\/\/[^\s/]*@/i;

const TEXT_RULES: ReadonlyArray<readonly [RegExp, string]> = [
  [/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?-----END [A-Z0-9 ]+-----/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, REDACTED],
  [/\b(authorization|proxy-authorization)(["']?\s*[:=]\s*["']?)[^"'\n,}]+/gi, `$1$2${REDACTED}`],
  [/\b(bearer)\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  [/\b(basic)\s+(?!\[redacted\])[A-Za-z0-9+/]{8,}={0,2}/gi, `$1 ${REDACTED}`],
  [
    /\b(token|access[_-]?token|refresh[_-]?token|id[_-]?token|password|passwd|client[_-]?key[_-]?data|client[_-]?certificate[_-]?data|api[_-]?key)(["']?\s*[:=]\s*["']?)(?!\[redacted\])[^\s"',&}]+/gi,
    `$1$2${REDACTED}`,
  ],
  // Case-sensitive: "Kind=Secret: <error>" and "*v1.Secret: <error>" name the type in client-go's texts.
  [/\b(secret|SECRET)(["']?\s*[:=]\s*["']?)(?!\[redacted\])[^\s"',&}]+/g, `$1$2${REDACTED}`],
  [/\b([a-z][a-z0-9+.-]*:\/\/)(?!\[redacted\])[^\s/@:]+:[^\s/@]+@/gi, `$1${REDACTED}@`],
];

/**
 * Whether no rule in TEXT_RULES can match s, by its characters alone. Every rule needs a character
 * outside [A-Za-z0-9._/-:] (whitespace, '=', a quote, '@'), or a capital J (the JWT rule, whose
 * other characters are all in that set), or a word followed by ':' (authorization, token,
 * password, secret, ...: each has a letter other than T and Z). So a string of those characters
 * passes when it has no J and no ':' after a letter other than T and Z. Object keys, names,
 * resource versions, handler names and timestamps are such strings; this loop (one pass) is
 * cheaper than the pre-check regex.
 */
function plainText(s: string): boolean {
  let word = false; // a letter other than T and Z seen: a ':' after it may end a rule's word
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // '-', '.', '/', 0-9, '_'
    if ((c >= 45 && c <= 57) || c === 95) continue;
    if (c >= 97 && c <= 122) word = true;
    else if (c >= 65 && c <= 90) {
      if (c === 74) return false; // J
      if (c !== 84 && c !== 90) word = true;
    } else if (c !== 58 || word) return false;
  }
  return true;
}

/**
 * The last long string plainText passed: one watch event's key is in about six of its trace
 * events in a row (several copies of one text), and a copy compares natively.
 */
let lastPlain = '';

/** Whether redactText could change s (false is exact; true may be a false alarm). */
export function mayChangeText(s: string): boolean {
  if (s === lastPlain) return false;
  if (!plainText(s)) return MAYBE_SENSITIVE.test(s);
  if (s.length >= 16) lastPlain = s;
  return false;
}

/**
 * Whether plainText passes s (then redactText leaves it as it is, and it has no character JSON
 * escapes: no quote, backslash, control character or surrogate, so its JSON text is s in quotes).
 */
export function plainString(s: string): boolean {
  if (s === lastPlain) return true;
  if (!plainText(s)) return false;
  if (s.length >= 16) lastPlain = s;
  return true;
}

export function redactText(s: string): string {
  return mayChangeText(s) ? applyTextRules(s) : s;
}

/** Every rule of TEXT_RULES applied to s, without the pre-checks (redactText's exact result). */
export function applyTextRules(s: string): string {
  let out = s;
  for (const [re, replacement] of TEXT_RULES) out = out.replace(re, replacement);
  return out;
}

/** Deep copy of v with credential-named keys blanked and every string scrubbed. */
export function redactValue(v: unknown): unknown {
  if (typeof v === 'string') return redactText(v);
  if (Array.isArray(v)) return v.map(redactValue);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = CREDENTIAL_KEY.test(k) ? REDACTED : redactValue(x);
    return out;
  }
  return v;
}

export function isSecretResource(ctx: RedactionContext): boolean {
  const r = ctx.resource;
  return (r.group === '' || r.group === 'core') && (r.resource === 'secrets' || r.kind === 'Secret');
}

/** Where a Secret's payload lives, as path segments: everything at or below them is payload. */
const SECRET_PAYLOAD_LOCATIONS: readonly (readonly string[])[] = [
  ['data'],
  ['stringData'],
  ['metadata', 'annotations', 'kubectl.kubernetes.io/last-applied-configuration'],
];

/**
 * The segments of a diff path in diff.ts's notation (`metadata.annotations["a.b/c"]`, `x[0]`);
 * undefined when the path is not in that notation (an imported trace), which callers treat as payload.
 */
function pathSegments(path: string): string[] | undefined {
  const segment = /\.?([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d+|"(?:[^"\\]|\\.)*")\]/y;
  const out: string[] = [];
  while (segment.lastIndex < path.length) {
    const m = segment.exec(path);
    if (!m) return undefined;
    out.push(m[1] ?? (m[2].startsWith('"') ? (JSON.parse(m[2]) as string) : m[2]));
  }
  return out;
}

const startsWith = (a: readonly string[], prefix: readonly string[]): boolean => prefix.length <= a.length && prefix.every((s, i) => a[i] === s);

/** v with the value at `rest` (below it) replaced by REDACTED, if present. */
function blankAt(v: unknown, rest: readonly string[]): unknown {
  if (rest.length === 0) return REDACTED;
  if (v === null || typeof v !== 'object' || Array.isArray(v) || !(rest[0] in v)) return v;
  const o = v as Record<string, unknown>;
  return { ...o, [rest[0]]: blankAt(o[rest[0]], rest.slice(1)) };
}

/**
 * A Secret's change with its payload removed: blank when the path is at or below a payload
 * location (or unreadable); when it is above one (the whole annotations map was added, say),
 * the payload inside the value is blanked.
 */
function redactSecretChange(path: string, v: unknown): unknown {
  const segs = pathSegments(path);
  if (!segs || SECRET_PAYLOAD_LOCATIONS.some((loc) => startsWith(segs, loc))) return REDACTED;
  let out = v;
  for (const loc of SECRET_PAYLOAD_LOCATIONS) if (startsWith(loc, segs)) out = blankAt(out, loc.slice(segs.length));
  return out;
}

/** pathHasCredential's answers for the paths seen last (an update's paths repeat: see src/engine/diffPaths.ts). */
const credentialPaths = new Map<string, boolean>();
const MAX_REMEMBERED_PATHS = 4096;
const MAX_REMEMBERED_PATH = 256;

export function pathHasCredential(path: string): boolean {
  const known = credentialPaths.get(path);
  if (known !== undefined) return known;
  const answer = MAYBE_CREDENTIAL_KEY.test(path) && path.split(/[.[\]]/).some((seg) => seg !== '' && CREDENTIAL_KEY.test(seg));
  if (path.length <= MAX_REMEMBERED_PATH) {
    if (credentialPaths.size >= MAX_REMEMBERED_PATHS) credentialPaths.clear();
    credentialPaths.set(path, answer);
  }
  return answer;
}

function redactChange(c: FieldChange, ctx: RedactionContext): FieldChange {
  const secret = isSecretResource(ctx);
  const blank = pathHasCredential(c.path);
  const out: FieldChange = { path: c.path };
  for (const side of ['old', 'new'] as const) {
    if (!(side in c)) continue;
    if (blank) out[side] = REDACTED;
    else out[side] = redactValue(secret ? redactSecretChange(c.path, c[side]) : c[side]);
  }
  return out;
}

/**
 * Whether scrubbing could change anything in v: a string the pre-check flags or, below the top
 * level, a credential-named key. Allocates nothing; a false answer is exact (redactValue would
 * return an equal value), a true one may be a false alarm that the copy path then leaves alone.
 */
function mayChange(v: unknown): boolean {
  if (typeof v === 'string') return mayChangeText(v);
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(mayChange);
  const record = v as Record<string, unknown>;
  for (const k in record) if (CREDENTIAL_KEY.test(k) || mayChange(record[k])) return true;
  return false;
}

/** changeShape's bits: the change has `old`, has `new`. */
export const HAS_OLD = 1;
export const HAS_NEW = 2;

/**
 * Whether a change is exactly { path, old?, new? } in that order (redactChange's own shape; the
 * value of `path` not checked): HAS_OLD | HAS_NEW as it has them, -1 for any other shape.
 * Allocates nothing.
 */
export function changeShape(change: Record<string, unknown>): number {
  let at = 0; // 0: expecting path, 1: after path, 2: after old, 3: after new
  let bits = 0;
  for (const k in change) {
    if (k === 'path' && at === 0) at = 1;
    else if (k === 'old' && at === 1) (at = 2), (bits |= HAS_OLD);
    else if (k === 'new' && (at === 1 || at === 2)) (at = 3), (bits |= HAS_NEW);
    else return -1;
  }
  return at === 0 ? -1 : bits;
}

/** Whether redaction would copy a change's value: a part of a cluster object, or a string scrubbing could change. */
function valueNeedsCopy(v: unknown): boolean {
  return (v !== null && typeof v === 'object') || (typeof v === 'string' && mayChangeText(v));
}

/**
 * Whether redactChange could give anything but an equal copy of c, or c holds an object (a part
 * of a cluster object, which the copy keeps the trace from aliasing): a Secret's change always;
 * else c must have changeShape's shape, its path name no credential and its values primitives
 * that scrubbing leaves alone. Allocates nothing.
 */
function changeNeedsCopy(c: unknown, secret: boolean): boolean {
  if (secret || c === null || typeof c !== 'object' || Array.isArray(c)) return true;
  const change = c as Record<string, unknown>;
  const shape = changeShape(change);
  if (shape < 0) return true;
  if ((shape & HAS_OLD) !== 0 && valueNeedsCopy(change.old)) return true;
  if ((shape & HAS_NEW) !== 0 && valueNeedsCopy(change.new)) return true;
  return typeof change.path !== 'string' || pathHasCredential(change.path);
}

/** Whether redactEvent copies an event for this update diff (see changeNeedsCopy). */
export function diffNeedsCopy(diff: readonly FieldChange[], ctx: RedactionContext): boolean {
  if (diff.length === 0) return false;
  const secret = isSecretResource(ctx);
  for (let i = 0; i < diff.length; i++) if (changeNeedsCopy(diff[i], secret)) return true;
  return false;
}

/**
 * Whether an event must go through the copying path: when a value could change (mayChange), and
 * for a diff when one of its changes could (changeNeedsCopy: always for a Secret's, and for any
 * that holds a part of a cluster object).
 */
function needsCopy(e: TraceEvent, ctx: RedactionContext): boolean {
  // for-in over an event (a plain object literal) allocates nothing, unlike Object.entries.
  const fields = e as unknown as Record<string, unknown>;
  for (const k in fields) {
    if (k === 'type' || k === 't') continue; // the vocabulary's own name and the clock time
    const v = fields[k];
    if (k === 'diff' && Array.isArray(v)) {
      if (diffNeedsCopy(v, ctx)) return true;
    } else if (mayChange(v)) return true;
  }
  return false;
}

/**
 * The event with everything sensitive replaced by REDACTED; never mutates its argument. When
 * nothing in it could change, that is the argument itself (most events: keys, RVs, counts), so
 * callers must treat the result as read-only; otherwise a scrubbed deep copy.
 */
export function redactEvent<E extends TraceEvent>(e: E, ctx: RedactionContext): E {
  if (!needsCopy(e, ctx)) return e;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) {
    if (k === 'diff' && Array.isArray(v)) out[k] = (v as FieldChange[]).map((c) => redactChange(c, ctx));
    else if (typeof v === 'string') out[k] = redactText(v);
    else out[k] = redactValue(v);
  }
  return out as E;
}
