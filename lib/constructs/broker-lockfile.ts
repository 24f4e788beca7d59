// The repository has ONE lockfile, at the npm workspaces root; the instance installs the broker
// alone (`npm ci --omit=dev` in the unpacked asset), which needs a lockfile whose root is the broker.
// npm has no command that writes one workspace's lockfile, so this derives it from the root lockfile:
// the same packages at the same versions and integrity hashes, only those the broker reaches, with
// npm's dev/optional flags recomputed for the broker as root (what `--omit=dev` reads).
// Format: https://docs.npmjs.com/cli/v10/configuring-npm/package-lock-json

/** One `packages` entry of a lockfile (v3): the fields this module reads; the rest are copied as-is. */
export interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  link?: boolean;
  resolved?: string;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  [field: string]: unknown;
}

export interface Lockfile {
  name?: string;
  version?: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

type EdgeKind = 'prod' | 'dev' | 'optional' | 'peer' | 'peerOptional';

interface Edge {
  readonly name: string;
  readonly kind: EdgeKind;
}

/** npm's dependency flags, recomputed with the broker as root. */
type Flag = 'dev' | 'optional' | 'devOptional' | 'peer';

/** The location a dependency `name` of the package at `from` resolves to (Node's lookup, upwards). */
function resolve(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (dir === '') return undefined;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut === -1 ? '' : dir.slice(0, cut); // node_modules/a or a workspace: next is the root
  }
}

function edgesOf(packages: Record<string, LockEntry>, entry: LockEntry, isRoot: boolean): Edge[] {
  const edges: Edge[] = [];
  for (const name of Object.keys(entry.dependencies ?? {})) edges.push({ name, kind: 'prod' });
  for (const name of Object.keys(entry.optionalDependencies ?? {})) edges.push({ name, kind: 'optional' });
  for (const name of Object.keys(entry.peerDependencies ?? {})) {
    edges.push({ name, kind: entry.peerDependenciesMeta?.[name]?.optional ? 'peerOptional' : 'peer' });
  }
  // Only a root's devDependencies are installed; a dependency's own devDependencies never are.
  if (isRoot) for (const name of Object.keys(entry.devDependencies ?? {})) edges.push({ name, kind: 'dev' });
  // npm counts a workspaces root's workspaces as its production dependencies (linked in node_modules).
  if (isRoot && entry === packages[''] && Array.isArray(entry['workspaces'])) {
    const workspaces = new Set(entry['workspaces'] as string[]);
    for (const [location, e] of Object.entries(packages)) {
      if (
        e.link &&
        typeof e.resolved === 'string' &&
        workspaces.has(e.resolved) &&
        !location.slice('node_modules/'.length).includes('/node_modules/')
      ) {
        edges.push({ name: location.slice('node_modules/'.length), kind: 'prod' });
      }
    }
  }
  return edges;
}

/** Follows a link entry (`node_modules/minnow-broker` -> `broker`) to the package it stands for. */
function target(packages: Record<string, LockEntry>, location: string): string {
  const entry = packages[location];
  return entry?.link && typeof entry.resolved === 'string' ? entry.resolved : location;
}

/**
 * Every location reachable from `root` through edges `follow` accepts. A missing optional or
 * optional-peer dependency is normal (npm records only what it installed); a missing required one
 * means the lockfile is incomplete, which is an error.
 */
function reach(packages: Record<string, LockEntry>, root: string, follow: (kind: EdgeKind) => boolean): Set<string> {
  // A workspace is a root of its own too: npm installs its devDependencies.
  const workspaces = new Set(
    Array.isArray(packages['']?.['workspaces']) ? (packages['']?.['workspaces'] as string[]) : [],
  );
  const seen = new Set<string>([root]);
  const queue = [root];
  while (queue.length > 0) {
    const at = queue.shift() as string;
    for (const edge of edgesOf(packages, packages[at] as LockEntry, at === root || workspaces.has(at))) {
      if (!follow(edge.kind)) continue;
      const found = resolve(packages, at, edge.name);
      if (found === undefined) {
        if (edge.kind === 'optional' || edge.kind === 'peerOptional') continue;
        if (edge.kind === 'peer') continue; // npm leaves an unmet peer as a warning, not a failure
        throw new Error(
          `${at || 'the root'} depends on ${edge.name} (${edge.kind}), which the root package-lock.json does not hold; ` +
            'run `npm install` at the repository root to complete it',
        );
      }
      const to = target(packages, found);
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return seen;
}

/**
 * The npm flags of each reachable package, as npm writes them: `dev` when only devDependencies
 * reach it, `optional` when only optional edges do, `devOptional` when it is needed by dev and only
 * optional in production, `peer` when only peer edges reach it.
 */
export function depFlags(packages: Record<string, LockEntry>, root: string): Map<string, Partial<Record<Flag, true>>> {
  const all = reach(packages, root, () => true);
  const prodRequired = reach(packages, root, (k) => k === 'prod' || k === 'peer');
  const prodAny = reach(packages, root, (k) => k !== 'dev');
  const required = reach(packages, root, (k) => k === 'prod' || k === 'peer' || k === 'dev');
  const notOnlyPeer = reach(packages, root, (k) => k === 'prod' || k === 'optional' || k === 'dev');
  const flags = new Map<string, Partial<Record<Flag, true>>>();
  for (const location of all) {
    if (location === root) continue;
    const f: Partial<Record<Flag, true>> = {};
    if (!prodRequired.has(location)) {
      if (!prodAny.has(location)) {
        f.dev = true;
        if (!required.has(location)) f.optional = true;
      } else if (!required.has(location)) f.optional = true;
      else f.devOptional = true;
    }
    if (!notOnlyPeer.has(location)) f.peer = true;
    flags.set(location, f);
  }
  return flags;
}

/** The workspace's location in a workspaces root lockfile, from its package name. */
function workspaceLocation(lock: Lockfile, name: string): string {
  const link = lock.packages[`node_modules/${name}`];
  if (!link?.link || typeof link.resolved !== 'string') {
    throw new Error(
      `the root package-lock.json has no workspace named ${name}; is "${name}" in the root package.json's workspaces?`,
    );
  }
  return link.resolved;
}

/**
 * The lockfile `npm ci` needs in a directory holding only the workspace `name` (its package.json
 * at the root): the root lockfile's entries the workspace reaches, moved from `<workspace>/node_modules/`
 * up to `node_modules/`, with flags recomputed for the workspace as root.
 */
export function workspaceLockfile(rootLock: Lockfile, name: string): Lockfile {
  if (rootLock.lockfileVersion < 2) {
    throw new Error(
      `package-lock.json is lockfileVersion ${rootLock.lockfileVersion}; need 2 or 3 (npm 7+) for its "packages" section`,
    );
  }
  const packages = rootLock.packages;
  const ws = workspaceLocation(rootLock, name);
  const wsEntry = packages[ws] as LockEntry;
  const flags = depFlags(packages, ws);

  const moved = new Map<string, string>(); // new location -> old location
  for (const location of flags.keys()) {
    const to = location.startsWith(`${ws}/node_modules/`) ? location.slice(ws.length + 1) : location;
    if (!to.startsWith('node_modules/')) {
      throw new Error(
        `${name} reaches ${location}, which is outside node_modules (another workspace?); ship it separately`,
      );
    }
    const clash = moved.get(to);
    if (clash !== undefined) {
      // Two versions of one package at the top: the broker's own copy and the root's hoisted one,
      // both needed. Placing the second one is npm's job; ask for a layout without the clash.
      throw new Error(
        `${name} needs both ${clash} and ${location}; align their versions in the root and ${ws} package.json files`,
      );
    }
    moved.set(to, location);
  }

  const out: Record<string, LockEntry> = {};
  const { dev: _d, optional: _o, devOptional: _do, peer: _p, ...rootEntry } = wsEntry;
  out[''] = rootEntry;
  for (const to of [...moved.keys()].sort((a, b) => a.localeCompare(b, 'en'))) {
    const from = moved.get(to) as string;
    const { dev: _dd, optional: _oo, devOptional: _dodo, peer: _pp, ...entry } = packages[from] as LockEntry;
    out[to] = { ...entry, ...flags.get(from) };
  }
  return {
    name: typeof wsEntry.name === 'string' ? wsEntry.name : name,
    ...(wsEntry.version !== undefined ? { version: wsEntry.version } : {}),
    lockfileVersion: rootLock.lockfileVersion,
    requires: true,
    packages: out,
  };
}
