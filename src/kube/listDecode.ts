/**
 * A LIST response body decoded as the dynamic client decodes it: from its whole text
 * (decodeList), or from what listStream.ts read as the body streamed in (listOfItems).
 */
import { ObjectList, StatusError, TransportError } from '../engine/listWatch';
import type { KubeObject } from '../engine/objects';
import { detached, lazyObject } from '../engine/lazyObject';
import { scanList, type ScannedFields } from './jsonScan';

/** A LIST response body as the dynamic client decodes it (items get the list's apiVersion/kind). */
export function decodeList(body: Buffer | string): ObjectList {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const lazy = lazyList(text);
  if (lazy !== undefined) return lazy;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    // V8 quotes the text around the error, line breaks included: keep the message on one line.
    throw new TransportError('other', `couldn't decode the list response: ${oneLine((e as Error).message)}`);
  }
  const l = parsed as Partial<ObjectList> | null;
  if (!l || typeof l !== 'object' || !Array.isArray(l.items)) {
    if (l && (l as { kind?: string }).kind === 'Status') throw new StatusError(l as never);
    throw new TransportError('other', 'the list response has no items array');
  }
  // Like the unstructured list decoder (decodeToList): the apiserver leaves apiVersion/kind out
  // of a typed list's items, and the dynamic client fills them in from the list. Without this a
  // relisted object would differ from the same object received by watch (which carries both).
  // An item must decode into a map: null becomes an empty one, anything else fails the list.
  const itemKind = typeof l.kind === 'string' ? l.kind.replace(/List$/, '') : '';
  const items = l.items.map((o: unknown) => {
    if (o === null) return { apiVersion: l.apiVersion, kind: itemKind };
    if (typeof o !== 'object' || Array.isArray(o)) {
      throw new TransportError('other', `couldn't decode the list response: json: cannot unmarshal ${goJsonKind(o)} into Go value of type map[string]interface {}`);
    }
    const item = o as KubeObject;
    return !item.kind && !item.apiVersion ? { apiVersion: l.apiVersion, kind: itemKind, ...item } : item;
  });
  return { apiVersion: l.apiVersion, kind: l.kind, metadata: l.metadata ?? {}, items };
}

/**
 * decodeList for a body the scanner reads whole (jsonScan.ts scanList) with items that are
 * objects or nulls: the same list, with each object item a lazy object (lazyObject.ts) that
 * carries the apiVersion/kind decodeList fills in. Undefined for anything else (decodeList then
 * parses the body and gives the same list or error).
 */
function lazyList(text: string): ObjectList | undefined {
  const scanned = scanList(text);
  if (scanned === undefined) return undefined;
  const items = scanned.items;
  return listOfItems(
    (key) => {
      const span = scanned.members.get(key);
      return span === undefined ? undefined : text.slice(span[0], span[1]);
    },
    items.length,
    // The fields are the item's own, and none of their strings is a slice of the body (jsonScan's
    // stringValue and shared copy them): only the item's text is copied out of the body.
    (k) => (items[k].fields === undefined ? undefined : detached(text.slice(items[k].start, items[k].end))),
    (k) => items[k].fields,
  );
}

/**
 * The list of a body the scanner read (members besides items by their JSON text; each item's
 * text, a copy of its own, and fields; a null item has neither): what decodeList gives for it.
 */
export function listOfItems(
  memberText: (key: string) => string | undefined,
  count: number,
  rawAt: (k: number) => string | undefined,
  fieldsAt: (k: number) => ScannedFields | undefined,
): ObjectList {
  const member = (key: string): unknown => {
    const text = memberText(key);
    return text === undefined ? undefined : JSON.parse(text);
  };
  const apiVersion = member('apiVersion') as string | undefined;
  const kind = member('kind') as string | undefined;
  const metadata = member('metadata') as ObjectList['metadata'] | undefined;
  const itemKind = typeof kind === 'string' ? kind.replace(/List$/, '') : '';
  const defaults = { apiVersion, kind: itemKind };
  const items = new Array<KubeObject>(count);
  for (let k = 0; k < count; k++) {
    const fields = fieldsAt(k);
    const raw = rawAt(k);
    if (fields === undefined || raw === undefined) {
      items[k] = { apiVersion, kind: itemKind };
      continue;
    }
    if (fields.kind || fields.apiVersion) {
      items[k] = lazyObject(raw, fields);
      continue;
    }
    // The item gets the list's apiVersion and kind unless it has its own (empty) ones.
    if (fields.apiVersion === undefined && apiVersion !== undefined && typeof apiVersion !== 'string') {
      items[k] = { apiVersion, kind: itemKind, ...(JSON.parse(raw) as KubeObject) };
      continue;
    }
    fields.apiVersion ??= apiVersion;
    fields.kind ??= itemKind;
    items[k] = lazyObject(raw, fields, defaults);
  }
  return { apiVersion, kind, metadata: metadata ?? {}, items };
}

function oneLine(s: string): string {
  return s.replace(/[\r\n\u2028\u2029]+/g, ' ');
}

/** The JSON kind encoding/json names in an UnmarshalTypeError. */
function goJsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'number' ? 'number' : 'string';
}
