/**
 * An update diff's JSON text for the recorder's window, built from its changes (JSON.stringify of
 * the diff costs about 0.8 µs for a diff of three changes, most of the recorder's packing of a
 * distribute event), in the same walk that decides whether redaction would copy the diff.
 */
import type { FieldChange } from '../format/events';
import { isSecretResource, mayChangeText, pathHasCredential, plainString, type RedactionContext } from './redact';

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

/** The JSON text of a value of a change that is not an object or a string: null, a boolean or a finite number; undefined for any other. */
function scalarText(v: unknown): string | undefined {
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  return typeof v === 'number' && Number.isFinite(v) ? JSON.stringify(v) : undefined;
}

/**
 * For a diff redactEvent would keep as it is (diffNeedsCopy(diff, ctx) false): its JSON text,
 * exactly JSON.stringify(diff), or null when a value is of a kind this does not spell (undefined,
 * NaN, a bigint, a function: the caller then stringifies). Undefined exactly when diffNeedsCopy
 * is true (the checks are changeNeedsCopy's, in redact.ts, made on the way). The text's pieces
 * are joined once (one flat string, no concatenations in between).
 */
export function plainDiffJson(diff: readonly FieldChange[], ctx: RedactionContext): string | null | undefined {
  const n = diff.length;
  if (n === 0) return '[]';
  if (isSecretResource(ctx)) return undefined;
  const pieces: string[] = [];
  let spelled = true;
  for (let i = 0; i < n; i++) {
    const c = diff[i] as unknown;
    if (c === null || typeof c !== 'object' || Array.isArray(c)) return undefined;
    const change = c as Record<string, unknown>;
    pieces.push(i === 0 ? '[' : ',', '');
    const pathAt = pieces.length - 1;
    let at = 0; // 0: expecting path, 1: after path, 2: after old, 3: after new
    for (const k in change) {
      if (k === 'path' && at === 0) at = 1;
      else if (k === 'old' && at === 1) at = 2;
      else if (k === 'new' && (at === 1 || at === 2)) at = 3;
      else return undefined;
      if (at === 1) continue;
      const v = change[k];
      if (v !== null && typeof v === 'object') return undefined;
      if (typeof v === 'string') {
        if (plainString(v)) pieces.push(at === 2 ? ',"old":"' : ',"new":"', v, '"');
        else if (mayChangeText(v)) return undefined;
        else pieces.push(at === 2 ? ',"old":' : ',"new":', JSON.stringify(v));
        continue;
      }
      const text = scalarText(v);
      if (text === undefined) spelled = false;
      else pieces.push(at === 2 ? ',"old":' : ',"new":', text);
    }
    const path = change.path;
    if (at === 0 || typeof path !== 'string' || pathHasCredential(path)) return undefined;
    pieces[pathAt] = pathText(path);
    pieces.push('}');
  }
  pieces.push(']');
  return spelled ? pieces.join('') : null;
}
