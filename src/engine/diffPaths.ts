/**
 * The paths of an update's changes (diff.ts), spelled once per path and shared: a tree of the
 * paths seen so far, each node holding its path in childPath notation (`metadata.resourceVersion`,
 * `status.conditions[0].lastProbeTime`, `data["a.b"]`) and the first two object keys on the way
 * (what classifies a change). An update of the same shape as the last one finds its paths here
 * instead of concatenating them again, and every recorded change of that path holds the same
 * string. The tree is bounded: past MAX_PATH_NODES, and for a path longer than MAX_KEPT_PATH,
 * new paths are spelled for their one use and not kept; a path is spelled the same either way.
 */

/** How many paths the tree keeps (every node is a path). */
export const MAX_PATH_NODES = 4096;
/** The longest path the tree keeps (a key may be as long as the object's text). */
export const MAX_KEPT_PATH = 256;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** The path of `key` below `parent`: `.key` for an identifier, `["key"]` for any other key. */
export function childPath(parent: string, key: string): string {
  if (IDENTIFIER.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

let kept = 0;

export class PathNode {
  private children: Map<string | number, PathNode> | undefined = undefined;
  /**
   * The two children child() found or made last, and their keys: an update's paths repeat (and
   * two siblings often alternate, a condition's two timestamps), so most lookups end here
   * without hashing the key.
   */
  private lastKey: string | number | undefined = undefined;
  private lastChild: PathNode | undefined = undefined;
  private otherKey: string | number | undefined = undefined;
  private otherChild: PathNode | undefined = undefined;

  constructor(
    /** The path in childPath notation ('' at the root). */
    readonly path: string,
    /** The first object key on the path (array indices are skipped). */
    readonly first: string | undefined,
    /** The second object key on the path. */
    readonly second: string | undefined,
  ) {}

  /** The node of `key` below this one: an object key (string) or an array index (number). */
  child(key: string | number): PathNode {
    if (key === this.lastKey) return this.lastChild as PathNode;
    if (key === this.otherKey) return this.remember(key, this.otherChild as PathNode);
    const known = this.children?.get(key);
    if (known !== undefined) return this.remember(key, known);
    const node =
      typeof key === 'number'
        ? new PathNode(`${this.path}[${key}]`, this.first, this.second)
        : new PathNode(childPath(this.path, key), this.first ?? key, this.first === undefined ? undefined : (this.second ?? key));
    if (kept < MAX_PATH_NODES && node.path.length <= MAX_KEPT_PATH) {
      kept++;
      (this.children ??= new Map()).set(key, node);
      this.remember(key, node);
    }
    return node;
  }

  /** Makes key's node the last one looked up (the previous last becomes the other). */
  private remember(key: string | number, node: PathNode): PathNode {
    this.otherKey = this.lastKey;
    this.otherChild = this.lastChild;
    this.lastKey = key;
    this.lastChild = node;
    return node;
  }

  /** The node at `keys` below this one. */
  below(keys: readonly (string | number)[]): PathNode {
    let node: PathNode = this;
    for (let i = 0; i < keys.length; i++) node = node.child(keys[i]);
    return node;
  }
}

/** The root of every path (the object itself). */
export const ROOT_PATH = new PathNode('', undefined, undefined);
