/**
 * LIST semantics of the API server for the sandbox's storage:
 * - resourceVersion "" → a consistent read at the current revision, paginated by `limit`;
 * - "0" → "any": served from the watch cache, which ignores `limit` (computeListLimit);
 * - N with resourceVersionMatch NotOlderThan, or N without a limit → the current state;
 * - N with resourceVersionMatch Exact, or N with a limit (the legacy exact read) → the snapshot
 *   at N, 410 Expired once N fell out of the window;
 * - N above the current revision → 504 Timeout "Too large resource version" (Retry-After 1);
 * - continue tokens carry the snapshot revision and the last key; once that revision fell out
 *   of the window the token is expired (410).
 */
import type { KubeObject } from '../../engine/objects';
import type { ObjectList } from '../../engine/listWatch';
import { apiVersionOf, resourceId, type SandboxResource } from './resources';
import { type Selector, SelectorError, parseFieldSelector, parseLabelSelector } from './selectors';
import type { SandboxStorage } from './storage';
import {
  EXPIRED_CONTINUE_MESSAGE,
  EXPIRED_LIST_MESSAGE,
  type Failure,
  badRequest,
  expired,
  invalidOption,
  tooLargeResourceVersion,
} from './status';

export interface Selection {
  namespace?: string;
  label: Selector;
  field: Selector;
  /** Whether any selector was given (remainingItemCount is only reported without one). */
  filtered: boolean;
}

/** Parses labelSelector/fieldSelector; a parse error is the server's 400. */
export function parseSelection(query: URLSearchParams, namespace: string | undefined): Selection | Failure {
  try {
    const labelText = query.get('labelSelector');
    const fieldText = query.get('fieldSelector');
    return {
      namespace,
      label: parseLabelSelector(labelText),
      field: parseFieldSelector(fieldText),
      filtered: !!labelText || !!fieldText,
    };
  } catch (e) {
    if (e instanceof SelectorError) return badRequest(e.message);
    throw e;
  }
}

export function selects(sel: Selection, obj: KubeObject): boolean {
  if (sel.namespace !== undefined && obj.metadata?.namespace !== sel.namespace) return false;
  return sel.label(obj) && sel.field(obj);
}

export function isFailure(x: unknown): x is Failure {
  return typeof x === 'object' && x !== null && 'status' in x && !('items' in x);
}

interface ContinueToken {
  rv: number;
  start: string;
}

/** The real server's token shape: base64 of {"v":"meta.k8s.io/v1","rv":N,"start":"<key>\u0000"}. */
function encodeContinue(rv: number, lastKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `${lastKey}\u0000` })).toString('base64');
}

function decodeContinue(token: string): ContinueToken | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { v, rv, start } = parsed as Record<string, unknown>;
    if (v !== 'meta.k8s.io/v1' || typeof rv !== 'number' || typeof start !== 'string') return undefined;
    return { rv, start };
  } catch {
    return undefined;
  }
}

export function parseRV(text: string): number | undefined {
  return /^[0-9]+$/.test(text) ? Number(text) : undefined;
}

/** Where a list reads from: a revision, whether `limit` applies, and the key to start after. */
interface ReadPlan {
  rv: number;
  paginate: boolean;
  after?: string;
}

function planRead(storage: SandboxStorage, query: URLSearchParams, kind: string): ReadPlan | Failure {
  const rvText = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const limited = Number(query.get('limit') ?? '0') > 0;
  const token = query.get('continue');
  if (token) {
    if (rvText !== '') return badRequest('specifying resource version is not allowed when using continue');
    const parsed = decodeContinue(token);
    if (!parsed) return badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
    if (parsed.rv < storage.windowStartRV) return expired(EXPIRED_CONTINUE_MESSAGE);
    return { rv: parsed.rv, paginate: true, after: parsed.start.replace(/\u0000$/, '') };
  }
  if (match !== '' && match !== 'Exact' && match !== 'NotOlderThan') {
    return invalidOption('resourceVersionMatch', `Unsupported value: "${match}": supported values: "Exact", "NotOlderThan", ""`, kind);
  }
  if (match !== '' && rvText === '') {
    return invalidOption('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided', kind);
  }
  if (rvText === '') return { rv: storage.currentRV, paginate: true };
  const rv = parseRV(rvText);
  if (rv === undefined) return badRequest(`invalid resource version: ${rvText}`);
  if (rv === 0) {
    if (match === 'Exact') return invalidOption('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"', kind);
    return { rv: storage.currentRV, paginate: false };
  }
  if (rv > storage.currentRV) return tooLargeResourceVersion(rv, storage.currentRV);
  const exact = match === 'Exact' || (match === '' && limited);
  if (!exact) return { rv: storage.currentRV, paginate: match === 'NotOlderThan' };
  if (rv < storage.windowStartRV) return expired(EXPIRED_LIST_MESSAGE);
  return { rv, paginate: true };
}

/** Answers a LIST; the result is the list body or a Failure. */
export function listResource(storage: SandboxStorage, r: SandboxResource, query: URLSearchParams, namespace?: string): ObjectList | Failure {
  const sel = parseSelection(query, namespace);
  if (isFailure(sel)) return sel;
  const plan = planRead(storage, query, r.kind);
  if (isFailure(plan)) return plan;
  const id = resourceId(r);
  const all = plan.rv === storage.currentRV ? storage.list(id) : storage.snapshot(id, plan.rv);
  const keyOf = (o: KubeObject) => (o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : `${o.metadata?.name}`);
  const candidates = all.filter((o) => (plan.after === undefined || keyOf(o) > plan.after) && selects(sel, o));
  const limit = Number(query.get('limit') ?? '0');
  const page = plan.paginate && limit > 0 ? candidates.slice(0, limit) : candidates;
  const more = page.length < candidates.length;
  const metadata: ObjectList['metadata'] = { resourceVersion: String(plan.rv) };
  if (more) {
    metadata.continue = encodeContinue(plan.rv, keyOf(page[page.length - 1]));
    if (!sel.filtered) metadata.remainingItemCount = candidates.length - page.length;
  }
  return {
    kind: `${r.kind}List`,
    apiVersion: apiVersionOf(r),
    metadata,
    // Typed lists drop each item's apiVersion/kind; custom resources are unstructured and keep them.
    items: r.custom ? page : page.map(({ apiVersion: _a, kind: _k, ...rest }) => rest),
  };
}
