/**
 * What an observed request is: a list or watch of one resource collection (and which), or
 * something the reconstruction does not follow (gets, writes, discovery, subresources).
 * Parsing is by URL only, like kube-apiserver's RequestInfo for the paths client-go builds:
 *   /api/v1[/namespaces/NS]/RESOURCE            /apis/GROUP/VERSION[/namespaces/NS]/RESOURCE
 * A collection GET with watch=true (or 1) is a watch, otherwise a list.
 */
import type { ListOptions, WatchOptions } from '../engine/listWatch';

export interface CollectionRef {
  group: string;
  version: string;
  resource: string;
  /** "" = all namespaces. */
  namespace: string;
}

export interface ObservedCall {
  verb: 'list' | 'watch';
  ref: CollectionRef;
  options: ListOptions & WatchOptions;
}

/** The list or watch a GET request is, or undefined when it is not one. */
export function parseCollectionCall(method: string, rawUrl: string): ObservedCall | undefined {
  if (method !== 'GET') return undefined;
  let url: URL;
  try {
    url = new URL(rawUrl, 'http://observed.invalid');
  } catch {
    return undefined;
  }
  const segs = url.pathname.split('/').filter((s) => s !== '').map(safeDecode);
  if (segs.some((s) => s === undefined)) return undefined;
  let rest: string[];
  let group = '';
  let version: string;
  if (segs[0] === 'api' && segs.length >= 2) {
    version = segs[1] as string;
    rest = segs.slice(2) as string[];
  } else if (segs[0] === 'apis' && segs.length >= 3) {
    group = segs[1] as string;
    version = segs[2] as string;
    rest = segs.slice(3) as string[];
  } else return undefined;
  let namespace = '';
  let resource: string;
  if (rest.length === 1) resource = rest[0];
  else if (rest.length === 3 && rest[0] === 'namespaces') {
    namespace = rest[1];
    resource = rest[2];
  } else return undefined;
  if (!resource || resource === 'watch') return undefined;
  const q = url.searchParams;
  const watch = q.get('watch') === 'true' || q.get('watch') === '1';
  const options: ListOptions & WatchOptions = { resourceVersion: q.get('resourceVersion') ?? '' };
  const str = (k: string) => {
    const v = q.get(k);
    return v === null || v === '' ? undefined : v;
  };
  const rvm = str('resourceVersionMatch');
  if (rvm) options.resourceVersionMatch = rvm;
  const ls = str('labelSelector');
  if (ls) options.labelSelector = ls;
  const fs = str('fieldSelector');
  if (fs) options.fieldSelector = fs;
  const limit = Number(str('limit') ?? '0');
  if (Number.isFinite(limit) && limit > 0) options.limit = limit;
  const cont = str('continue');
  if (cont) options.continue = cont;
  if (watch) {
    const ts = Number(str('timeoutSeconds') ?? 'NaN');
    if (Number.isFinite(ts)) options.timeoutSeconds = ts;
    if (q.get('allowWatchBookmarks') === 'true') options.allowWatchBookmarks = true;
    if (q.get('sendInitialEvents') === 'true') options.sendInitialEvents = true;
  }
  return { verb: watch ? 'watch' : 'list', ref: { group, version, resource, namespace }, options };
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/**
 * The reflector a call belongs to: resource, namespace, selectors and the client's user agent.
 * (Connections are not part of it: client-go over HTTP/1.1 opens one per watch.)
 */
export function reflectorKey(call: ObservedCall, userAgent: string): string {
  const r = call.ref;
  const gr = r.group ? `${r.resource}.${r.version}.${r.group}` : `${r.resource}.${r.version}`;
  const parts = [gr, r.namespace ? `ns=${r.namespace}` : 'all-namespaces'];
  if (call.options.labelSelector) parts.push(`labels=${call.options.labelSelector}`);
  if (call.options.fieldSelector) parts.push(`fields=${call.options.fieldSelector}`);
  parts.push(`ua=${userAgent || '-'}`);
  return parts.join(' ');
}

/**
 * What the client accepts, decided from its Accept header: 'json' when JSON is acceptable (the
 * proxy then asks the server for JSON only), 'other' when it takes only other encodings (protobuf,
 * CBOR; the request passes unchanged and cannot be read), 'table' for server-side printing
 * (`as=Table`, kubectl's, passed unchanged and not followed).
 */
export function acceptKind(accept: string | undefined): 'json' | 'other' | 'table' {
  return acceptInfo(accept).kind;
}

/** acceptKind, and whether JSON (or anything) is the client's first preference. */
export function acceptInfo(accept: string | undefined): { kind: 'json' | 'other' | 'table'; jsonFirst: boolean } {
  if (accept === undefined || accept.trim() === '') return { kind: 'json', jsonFirst: true };
  const first = accept.split(',')[0].split(';')[0].trim().toLowerCase();
  return { kind: acceptKindOf(accept), jsonFirst: first === 'application/json' || first === '*/*' || first === 'application/*' };
}

function acceptKindOf(accept: string): 'json' | 'other' | 'table' {
  const ranges = accept.split(',').map((s) => s.trim().toLowerCase());
  if (ranges.some((r) => /;\s*as=/.test(r))) return 'table';
  const types = ranges.map((r) => r.split(';')[0].trim());
  if (types.some((t) => t === 'application/json' || t === '*/*' || t === 'application/*')) return 'json';
  return 'other';
}
