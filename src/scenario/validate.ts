/**
 * Validation of informer-scenario/v1 files: the JSON Schema (shapes, enums) first, then the rules
 * that span fields. Every problem becomes one self-contained line,
 * `scenario <file>: <path> <what is wrong>`, so the CLI and the conformance runner can print
 * them as they are. Only a scenario without problems is returned.
 */
import Ajv, { type ErrorObject } from 'ajv';
import schema from './schema/informer-scenario-v1.schema.json';
import { PROFILES } from '../engine/profiles';
import type { KubeObject } from '../engine/objects';
import { isIndexFuncSpec } from './catalogue';
import { stepKind, type Action, type IndexerSpecs, type Scenario, type Step } from './types';

export class ScenarioValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ScenarioValidationError';
  }
}

export interface ValidationResult {
  scenario?: Scenario;
  problems: string[];
}

const ajv = new Ajv({ allErrors: true, strict: true });
const checkSchema = ajv.compile(schema);

/** Parses and validates scenario text; throws ScenarioValidationError listing every problem. */
export function parseScenarioText(text: string, label: string): Scenario {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ScenarioValidationError([oneLine(`scenario ${label}: not valid JSON: ${(e as Error).message}`)]);
  }
  const result = validateScenario(data, label);
  if (!result.scenario) throw new ScenarioValidationError(result.problems);
  return result.scenario;
}

export function validateScenario(data: unknown, label: string): ValidationResult {
  const prefix = `scenario ${label}: `;
  if (!checkSchema(data)) {
    return { problems: (checkSchema.errors ?? []).map((e) => oneLine(prefix + describeSchemaError(e))) };
  }
  const scenario = normalise(data as unknown as Scenario);
  const problems = semanticProblems(scenario).map((p) => oneLine(prefix + p));
  return problems.length ? { problems } : { scenario, problems };
}

/** A problem quotes names and texts from the file: their line breaks are escaped so it stays one line. */
function oneLine(problem: string): string {
  return problem.replace(/[\r\n\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `/steps/2/close` → `steps[2].close`. */
function displayPath(instancePath: string): string {
  let out = '';
  for (const part of instancePath.split('/').slice(1)) {
    const seg = part.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(seg) ? `[${seg}]` : out ? `.${seg}` : seg;
  }
  return out;
}

function describeSchemaError(e: ErrorObject): string {
  const at = displayPath(e.instancePath);
  const subject = at || 'the file';
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${at ? at + '.' : ''}${String(p.missingProperty)} is required`;
    case 'additionalProperties':
      return `${subject} has an unknown field "${String(p.additionalProperty)}"`;
    case 'enum':
      return `${subject} must be one of ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `${subject} must be ${JSON.stringify(p.allowedValue)}`;
    case 'type':
      return `${subject} must be ${String(p.type) === 'integer' ? 'an integer' : `of type ${String(p.type)}`}`;
    case 'minimum':
    case 'maximum':
      return `${subject} must be ${String(p.comparison)} ${String(p.limit)}`;
    case 'minLength':
      return `${subject} must not be empty`;
    case 'minItems':
      return `${subject} must have at least ${String(p.limit)} item(s)`;
    default:
      return `${subject} ${e.message ?? 'is invalid'}`;
  }
}

/** Fills defaults that the server relies on (a stream step without events has none). */
function normalise(s: Scenario): Scenario {
  const copy = structuredClone(s);
  for (const step of copy.steps) {
    if ('on' in step && step.on === 'watch' && 'close' in step && !('events' in step)) (step as { events: unknown[] }).events = [];
  }
  return copy;
}

const STREAM_FIELDS = ['events', 'close'] as const;
const PAGE_FIELDS = ['items', 'resourceVersion', 'continue', 'listTypeMeta'] as const;

function semanticProblems(s: Scenario): string[] {
  const problems: string[] = [];
  const known = new Set(PROFILES.map((p) => p.name));
  const seen = new Set<string>();
  for (const [i, name] of (s.profiles ?? []).entries()) {
    if (!known.has(name)) problems.push(`profiles[${i}] "${name}" is not a profile (known: ${[...known].join(', ')})`);
    else if (seen.has(name)) problems.push(`profiles[${i}] "${name}" is listed twice`);
    seen.add(name);
  }
  problems.push(...lockedGateProblems(s, s.profiles ?? [...known]));
  const handlerNames = new Set<string>();
  const checkHandlerName = (where: string, name: string) => {
    if (handlerNames.has(name)) problems.push(`${where}.name "${name}" is used by another handler`);
    handlerNames.add(name);
  };
  s.informer.handlers.forEach((h, i) => checkHandlerName(`informer.handlers[${i}]`, h.name));
  s.steps.forEach((step, i) => {
    if ('addHandler' in step) checkHandlerName(`steps[${i}].addHandler`, step.addHandler.name);
    problems.push(...stepProblems(step, `steps[${i}]`));
  });
  problems.push(...continueChainProblems(s.steps));
  problems.push(...indexerProblems(s.informer.indexers, 'informer.indexers'));
  (s.actions ?? []).forEach((a, i) => {
    if ('addHandler' in a) checkHandlerName(`actions[${i}].addHandler`, a.addHandler.name);
  });
  problems.push(...actionProblems(s, handlerNames));
  problems.push(...apiProblems(s, s.profiles ?? [...known]));
  return problems;
}

const ACTION_KINDS = ['addHandler', 'removeHandler', 'addIndexers', 'stop', 'restart'] as const;

function indexerProblems(specs: IndexerSpecs | undefined, at: string): string[] {
  return Object.entries(specs ?? {})
    .filter(([, spec]) => !isIndexFuncSpec(spec))
    .map(([name, spec]) => `${at}.${name} "${spec}" is not an index function of the catalogue ("namespace" or "label:<key>")`);
}

/** One kind per action, in time order, a removeHandler naming a handler, at most one stop. */
function actionProblems(s: Scenario, handlerNames: Set<string>): string[] {
  const problems: string[] = [];
  const actions = s.actions ?? [];
  const indexNames = new Set(Object.keys(s.informer.indexers ?? {}));
  actions.forEach((a, i) => {
    const at = `actions[${i}]`;
    const kinds = ACTION_KINDS.filter((k) => k in a);
    if (kinds.length !== 1) problems.push(`${at} needs exactly one of ${ACTION_KINDS.join(', ')} (has ${kinds.length ? kinds.join(', ') : 'none'})`);
    if (i > 0 && a.atMs < actions[i - 1].atMs) problems.push(`${at}.atMs ${a.atMs} is before the previous action's ${actions[i - 1].atMs}: list actions in time order`);
    if ('removeHandler' in a && !handlerNames.has(a.removeHandler)) problems.push(`${at}.removeHandler "${a.removeHandler}" names no handler of the scenario`);
    if ('stop' in a && actions.some((b: Action, j) => j < i && 'stop' in b)) problems.push(`${at}: only one stop per scenario (the run ends there)`);
    if ('addIndexers' in a) {
      problems.push(...indexerProblems(a.addIndexers, `${at}.addIndexers`));
      for (const name of Object.keys(a.addIndexers)) {
        if (indexNames.has(name)) problems.push(`${at}.addIndexers.${name}: an index of that name exists already (client-go: indexer conflict)`);
        indexNames.add(name);
      }
    }
  });
  return problems;
}

/**
 * Informer calls the profile's client-go does not have (Profile.hasRemoveEventHandler,
 * hasSetTransform): the scenario could not run there. AddIndexers after start is allowed on every
 * profile: 1.15 refuses it at run time ("informer has already started"), which is behaviour to judge.
 */
function apiProblems(s: Scenario, profileNames: readonly string[]): string[] {
  const problems: string[] = [];
  for (const profile of PROFILES.filter((p) => profileNames.includes(p.name))) {
    if (s.informer.transform && !profile.hasSetTransform) {
      problems.push(`informer.transform: client-go ${profile.clientGo} (profile ${profile.name}) has no SetTransform; limit "profiles"`);
    }
    (s.actions ?? []).forEach((a, i) => {
      if ('removeHandler' in a && !profile.hasRemoveEventHandler) {
        problems.push(`actions[${i}].removeHandler: client-go ${profile.clientGo} (profile ${profile.name}) has no RemoveEventHandler; limit "profiles"`);
      }
    });
  }
  return problems;
}

/**
 * A gate locked in a release (Profile.lockedGates, the one table of them) cannot be set to the
 * other value by a scenario meant for that profile: client-go refuses such an override, so the
 * scenario would not test what it says. An override of a gate the release does not know
 * (Profile.knownGates) is allowed: client-go ignores it, and scenarios pin exactly that.
 */
function lockedGateProblems(s: Scenario, profileNames: readonly string[]): string[] {
  const problems: string[] = [];
  for (const profile of PROFILES.filter((p) => profileNames.includes(p.name))) {
    for (const gate of profile.knownGates) {
      const locked = profile.lockedGates[gate];
      const wanted = s.gates?.[gate];
      if (locked !== undefined && wanted !== undefined && wanted !== locked) {
        problems.push(`gates.${gate} cannot be ${wanted} for profile ${profile.name} (locked to ${locked} there); limit "profiles"`);
      }
    }
  }
  return problems;
}

function present(step: Step, fields: readonly string[]): string[] {
  return fields.filter((f) => f in step);
}

function stepProblems(step: Step, at: string): string[] {
  const fields = Object.keys(step).filter((f) => f !== '$comment');
  const problems: string[] = [];
  const only = (kind: string, allowed: string[]) => {
    for (const f of fields) if (!allowed.includes(f)) problems.push(`${at}.${f} cannot be combined with ${kind}`);
  };
  if ('advanceMs' in step) {
    only('advanceMs', ['advanceMs']);
    return problems;
  }
  if ('addHandler' in step) {
    only('addHandler', ['addHandler']);
    return problems;
  }
  if (!('on' in step)) return [`${at} needs "on", "advanceMs" or "addHandler"`];
  const s = step as unknown as Record<string, unknown>;
  const kind = stepKind(step);
  if (kind === 'network') {
    only('network', step.on === 'watch' ? ['on', 'network', 'durationMs'] : ['on', 'network']);
    return problems;
  }
  if (step.on === 'list') {
    for (const f of present(step, [...STREAM_FIELDS, 'durationMs'])) problems.push(`${at}.${f} only applies to watch steps`);
    if (kind === 'error') {
      for (const f of present(step, PAGE_FIELDS)) problems.push(`${at}.${f} cannot be combined with error`);
      problems.push(...errorCodeProblems(s.error, at));
    } else {
      if (!('items' in step)) problems.push(`${at}.items is required for a list page`);
      if (!('resourceVersion' in step)) problems.push(`${at}.resourceVersion is required for a list page`);
      (step as { items?: KubeObject[] }).items?.forEach((o, j) => problems.push(...objectProblems(o, `${at}.items[${j}]`, true)));
    }
    return problems;
  }
  for (const f of present(step, PAGE_FIELDS)) problems.push(`${at}.${f} only applies to list steps`);
  if (kind === 'error') {
    if ('durationMs' in step) problems.push(`${at}.durationMs cannot be combined with an error opening the watch`);
    problems.push(...errorCodeProblems(s.error, at));
    return problems;
  }
  if (kind !== 'stream') return [...problems, `${at} needs events + close, error or network`];
  const close = s.close as string | undefined;
  if (close === undefined) problems.push(`${at}.close is required with events`);
  if (close === 'error') {
    if (!('error' in step)) problems.push(`${at}: close error needs error`);
    else problems.push(...errorCodeProblems(s.error, at));
  } else if (close === 'decode-error') {
    const message = (s.error as { message?: string } | undefined)?.message;
    if (!message) problems.push(`${at}: close decode-error needs error.message (the decoder's error text)`);
  } else if ('error' in step) {
    problems.push(`${at}.error is only used with close error or decode-error`);
  }
  (s.events as { type: string; object: KubeObject }[]).forEach((ev, j) => {
    if (ev.type !== 'ERROR') problems.push(...objectProblems(ev.object, `${at}.events[${j}].object`, ev.type !== 'BOOKMARK'));
  });
  return problems;
}

function errorCodeProblems(error: unknown, at: string): string[] {
  return typeof (error as { code?: unknown }).code === 'number' ? [] : [`${at}.error.code is required`];
}

function objectProblems(o: KubeObject, at: string, needsName: boolean): string[] {
  const md = o.metadata;
  if (!md || typeof md !== 'object') return [`${at}.metadata is required`];
  const problems: string[] = [];
  if (needsName && (typeof md.name !== 'string' || md.name.trim() === '')) problems.push(`${at}.metadata.name is required`);
  if (md.namespace !== undefined && typeof md.namespace !== 'string') problems.push(`${at}.metadata.namespace must be of type string`);
  if (md.resourceVersion !== undefined && typeof md.resourceVersion !== 'string') {
    problems.push(`${at}.metadata.resourceVersion must be of type string`);
  }
  if (!needsName && typeof md.resourceVersion !== 'string') problems.push(`${at}.metadata.resourceVersion is required for a BOOKMARK`);
  return problems;
}

/**
 * A page with a continue token is followed by the pager's request for the next page, so the next
 * answering step must be a list (a page, or an error such as an expired token).
 */
function continueChainProblems(steps: Step[]): string[] {
  const problems: string[] = [];
  steps.forEach((step, i) => {
    if (!('continue' in step) || !step.continue) return;
    const j = steps.findIndex((s, k) => k > i && 'on' in s);
    if (j < 0) problems.push(`steps[${i}].continue "${step.continue}" needs a following list step for the next page, but the steps end`);
    else if ((steps[j] as { on: string }).on !== 'list') {
      problems.push(`steps[${i}].continue "${step.continue}" needs the next page as a list step, but steps[${j}] is a watch step`);
    }
  });
  return problems;
}
