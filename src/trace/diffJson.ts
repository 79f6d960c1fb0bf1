/**
 * An update diff's JSON text for the recorder's window, built from its changes (JSON.stringify of
 * the diff costs about 0.8 µs for a diff of three changes, most of the recorder's packing of a
 * distribute event), in the same walk that decides whether redaction would copy the diff.
 */
import type { FieldChange } from '../format/events';
import { HAS_NEW, HAS_OLD, changeShape, isSecretResource, mayChangeText, pathHasCredential, plainString, type RedactionContext } from './redact';

/** `{"path":<the path's JSON text>` of the paths seen last (an update's paths repeat: src/engine/diffPaths.ts). */
const pathTexts = new Map<string, string>();
const MAX_PATH_TEXTS = 4096;
const MAX_PATH_TEXT = 256;

function pathText(path: string): string {
  const known = pathTexts.get(path);
  if (known !== undefined) return known;
  const text = '{"path":' + JSON.stringify(path);
  if (path.length <= MAX_PATH_TEXT) {
    if (pathTexts.size >= MAX_PATH_TEXTS) pathTexts.clear();
    pathTexts.set(path, text);
  }
  return text;
}

/**
 * The pieces of the text being spelled, one array for every call (an array per diff, grown by
 * push, was ~600 bytes of garbage per update): pieces[0, used) are this diff's; entries up to
 * `written` may hold an earlier diff's and are emptied before the join.
 */
const pieces: string[] = [];
let used = 0;
let written = 0;

function put(a: string, b: string): void {
  pieces[used++] = a;
  pieces[used++] = b;
}

/**
 * Puts `label` and the JSON text of a change's value: true when spelled, false for a kind this
 * does not spell (undefined, NaN, a bigint, a function), undefined when redaction would copy it
 * (an object, or a string scrubbing could change).
 */
function putValue(label: string, v: unknown): boolean | undefined {
  if (typeof v === 'string') {
    if (plainString(v)) {
      put(label, '"');
      put(v, '"');
    } else if (mayChangeText(v)) return undefined;
    else put(label, JSON.stringify(v));
    return true;
  }
  if (v === null) put(label, 'null');
  else if (typeof v === 'object') return undefined;
  else if (typeof v === 'boolean') put(label, v ? 'true' : 'false');
  else if (typeof v === 'number' && Number.isFinite(v)) put(label, JSON.stringify(v) as string);
  else return false;
  return true;
}

/** The pieces put since spell() began, joined (the entries after them emptied first). */
function joined(): string {
  for (let i = used; i < written; i++) pieces[i] = '';
  written = used;
  return pieces.join('');
}

/**
 * For a diff redactEvent would keep as it is (diffNeedsCopy(diff, ctx) false): its JSON text,
 * exactly JSON.stringify(diff), or null when a value is of a kind this does not spell (undefined,
 * NaN, a bigint, a function: the caller then stringifies). Undefined exactly when diffNeedsCopy
 * is true (its checks, redact.ts changeShape and the rest, made on the way). The text's pieces
 * are joined once (one flat string, no concatenations in between).
 */
export function plainDiffJson(diff: readonly FieldChange[], ctx: RedactionContext): string | null | undefined {
  const n = diff.length;
  if (n === 0) return '[]';
  if (isSecretResource(ctx)) return undefined;
  const text = spell(diff);
  if (used > written) written = used;
  return text;
}

/** plainDiffJson of a diff with changes, not of a Secret, into `pieces`. */
function spell(diff: readonly FieldChange[]): string | null | undefined {
  const n = diff.length;
  used = 0;
  let spelled = true;
  for (let i = 0; i < n; i++) {
    const c = diff[i] as unknown;
    if (c === null || typeof c !== 'object' || Array.isArray(c)) return undefined;
    const change = c as Record<string, unknown>;
    const shape = changeShape(change);
    const path = change.path;
    if (shape < 0 || typeof path !== 'string' || pathHasCredential(path)) return undefined;
    put(i === 0 ? '[' : ',', pathText(path));
    const old = (shape & HAS_OLD) === 0 ? true : putValue(',"old":', change.old);
    const now = (shape & HAS_NEW) === 0 ? true : putValue(',"new":', change.new);
    if (old === undefined || now === undefined) return undefined;
    if (!old || !now) spelled = false;
    pieces[used++] = '}';
  }
  pieces[used++] = ']';
  return spelled ? joined() : null;
}

