/**
 * Access problems: the server answered a LIST or WATCH with 401 Unauthorized, 403 Forbidden or
 * 404 NotFound. client-go logs the error and keeps backing off and retrying, so an informer that
 * may not read its resource never syncs and looks idle. One error finding per status code, with
 * the server's own message and the command that shows or fixes the cause.
 */
import type { Finding } from '../../format/trace';
import { evidence, plural, type TraceView } from './types';

const LINKS = {
  401: 'https://kubernetes.io/docs/reference/access-authn-authz/authentication/',
  403: 'https://kubernetes.io/docs/reference/access-authn-authz/rbac/',
  404: 'https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/',
} as const;

type DeniedCode = keyof typeof LINKS;

/** The ids this rule produces: a run with one of them could not read its resource at all. */
export const ACCESS_FINDING_IDS: readonly string[] = ['access-forbidden', 'access-unauthorized', 'resource-not-found'];

interface Refusal {
  seq: number;
  verb: 'list' | 'watch';
  text: string;
}

/** The server's message: client-go's "failed to list <GVK>: " wrapper removed. */
function serverMessage(text: string): string {
  return text.replace(/^failed to (list|watch) [^:]*: /, '');
}

export function accessDenied(trace: TraceView): Finding[] {
  const byCode = new Map<DeniedCode, Refusal[]>();
  const add = (code: number | undefined, r: Refusal) => {
    if (code !== 401 && code !== 403 && code !== 404) return;
    const list = byCode.get(code) ?? [];
    list.push(r);
    byCode.set(code, list);
  };
  for (const e of trace.of('list.error')) add(e.code, { seq: e.seq, verb: 'list', text: e.text });
  for (const e of trace.of('watch.end')) add(e.code, { seq: e.seq, verb: 'watch', text: e.error ?? '' });
  if (byCode.size === 0) return [];

  const h = trace.header;
  const resource = h.resource.group ? `${h.resource.resource}.${h.resource.group}` : h.resource.resource;
  const ns = h.namespace ? `-n ${h.namespace}` : '--all-namespaces';
  const synced = trace.of('synced').length > 0;
  const out: Finding[] = [];
  for (const code of [403, 401, 404] as const) {
    const refusals = byCode.get(code);
    if (!refusals) continue;
    const verbs = [...new Set(refusals.map((r) => r.verb))];
    const first = refusals[0];
    const message = serverMessage(first.text);
    const effect = synced
      ? 'The informer had synced before, so its cache stops following the server while this lasts.'
      : 'The informer never synced: its cache stays empty, HasSynced stays false and a controller waiting for it hangs.';
    const common = `The server refused ${plural(refusals.length, `${verbs.join('/')} request`)} with ${code}: "${message}". ` +
      `client-go logs this and retries with backoff forever; no retry can succeed until the cause is fixed. ${effect}`;
    if (code === 403) {
      const checks = verbs.map((v) => `kubectl auth can-i ${v} ${resource} ${ns}`).join(' and ');
      out.push({
        id: 'access-forbidden',
        severity: 'error',
        title: `403 Forbidden: not allowed to ${verbs.join('/')} ${resource}${h.namespace ? ` in namespace ${h.namespace}` : ''}`,
        detail: common,
        advice:
          `Check with \`${checks}\` (add --as=system:serviceaccount:NS:NAME to check a controller's service account). ` +
          `An informer needs list and watch on ${resource}: grant them with a Role/RoleBinding (one namespace) or a ClusterRole/ClusterRoleBinding (all namespaces).`,
        evidence: evidence(refusals.map((r) => r.seq)),
        link: LINKS[403],
      });
    } else if (code === 401) {
      out.push({
        id: 'access-unauthorized',
        severity: 'error',
        title: `401 Unauthorized: the server did not accept the credentials of context ${h.context ?? ''}`.trimEnd(),
        detail: common,
        advice:
          'The token or client certificate is missing, expired or not trusted by this cluster. Check with `kubectl auth whoami`; ' +
          'refresh the credentials (log in again, renew the exec/OIDC token) or pick another context.',
        evidence: evidence(refusals.map((r) => r.seq)),
        link: LINKS[401],
      });
    } else {
      out.push({
        id: 'resource-not-found',
        severity: 'error',
        title: `404 NotFound: ${resource} ${h.resource.version} is not served by this cluster`,
        detail: common,
        advice: h.resource.group
          ? `Check the CustomResourceDefinition with \`kubectl get crd ${resource}\` and that it serves version ${h.resource.version}; ` +
            `\`kubectl api-resources --api-group=${h.resource.group}\` lists what the group serves. Install the CRD (or the operator that owns it) first.`
          : `\`kubectl api-resources\` lists what this cluster serves; the namespace${h.namespace ? ` ${h.namespace}` : ''} may not exist either (\`kubectl get namespace\`).`,
        evidence: evidence(refusals.map((r) => r.seq)),
        link: LINKS[404],
      });
    }
  }
  return out;
}
