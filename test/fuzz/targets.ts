/** Every fuzz target, in the order the runner reports them. */
import type { FuzzTarget } from './target';
import { BODY_TARGETS } from './bodies';
import { DOCUMENT_TARGETS } from './documents';
import { discovery } from './discovery';
import { WATCH_TARGETS } from './watchStream';

export const TARGETS = [...WATCH_TARGETS, ...BODY_TARGETS, ...DOCUMENT_TARGETS, discovery] as unknown as FuzzTarget[];
