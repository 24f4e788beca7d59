// The layering of broker/src, enforced: every file's imports are read with TypeScript's own
// pre-processor (ts.preProcessFile: import/export-from, import(), require), the relative ones are
// resolved to files, and the graph must have no cycle and no import across the layers below.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const SRC = path.resolve(__dirname, '../../src');

/**
 * Which layers each layer may import (its own files always). A file directly in src/ is its own
 * layer, named after the file (logger.ts -> "logger", args.ts -> "args"): modules shared by all.
 * Broker (storage, groups, server) and client share only protocol/ and the shared modules.
 */
const ALLOWED: Record<string, readonly string[]> = {
  protocol: [],
  logger: [],
  args: [],
  // One task at a time per key (a group, a transactional id, a topic name): coordinators and handlers.
  'keyed-serial': [],
  // SCRAM's crypto and messages, shared by the broker's SASL and the client's.
  sasl: [],
  storage: ['protocol', 'logger', 'sasl'],
  groups: ['protocol', 'storage', 'logger', 'keyed-serial'],
  // The transaction coordinator checks TxnOffsetCommit's member against the group coordinator.
  transactions: ['protocol', 'storage', 'groups', 'logger', 'keyed-serial'],
  // Several brokers on one database (issue 18): who leads, who coordinates.
  cluster: ['protocol', 'logger', 'storage'],
  server: ['protocol', 'storage', 'groups', 'transactions', 'logger', 'sasl', 'cluster', 'keyed-serial'],
  client: ['protocol', 'logger', 'sasl'],
  // --user/--password-file for the client commands and perf.
  'client-auth': ['client', 'args'],
  perf: ['client', 'protocol', 'logger', 'args', 'client-auth'],
  cli: [
    'protocol',
    'logger',
    'args',
    'storage',
    'groups',
    'transactions',
    'server',
    'client',
    'client-auth',
    'perf',
    'sasl',
    'cluster',
  ],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** src-relative path ("server/connection.ts") of the file a relative specifier names. */
function resolve(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return path.relative(SRC, candidate).split(path.sep).join('/');
    } catch {
      // not this one
    }
  }
  return undefined;
}

function layerOf(file: string): string {
  const [first = '', ...rest] = file.split('/');
  return rest.length === 0 ? first.replace(/\.ts$/, '') : first;
}

interface Edge {
  to: string;
  /** 1-based line of the import in the importing file. */
  line: number;
}

function importGraph(): { graph: Map<string, Edge[]>; unresolved: string[] } {
  const graph = new Map<string, Edge[]>();
  const unresolved: string[] = [];
  for (const full of sourceFiles(SRC)) {
    const file = path.relative(SRC, full).split(path.sep).join('/');
    const text = readFileSync(full, 'utf8');
    const info = ts.preProcessFile(text, true, true);
    const edges: Edge[] = [];
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue; // a package or node: builtin
      const line = text.slice(0, ref.pos).split('\n').length;
      const to = resolve(full, ref.fileName);
      if (to === undefined) unresolved.push(`${file}:${line} imports '${ref.fileName}', which is no file in src/`);
      else edges.push({ to, line });
    }
    graph.set(file, edges);
  }
  return { graph, unresolved };
}

/** Every cycle's strongly connected component (Tarjan), each printed as one cycle through it. */
function cycles(graph: Map<string, Edge[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const { to } of graph.get(v) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v)!, index.get(to)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfImport = (graph.get(v) ?? []).some((e) => e.to === v);
      if (component.length > 1 || selfImport) components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((component) => cycleThrough(graph, new Set(component)));
}

/** One concrete cycle inside a strongly connected component, as "a:line -> b:line -> a". */
function cycleThrough(graph: Map<string, Edge[]>, component: Set<string>): string {
  const start = [...component].sort()[0]!;
  // Breadth-first from start back to start, inside the component: the shortest cycle through it.
  const prev = new Map<string, { from: string; line: number }>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const { to, line } of graph.get(v) ?? []) {
      if (!component.has(to) || prev.has(to)) continue;
      prev.set(to, { from: v, line });
      if (to === start) queue.length = 0;
      else queue.push(to);
    }
  }
  const hops: string[] = [];
  let at = start;
  do {
    const p = prev.get(at)!;
    hops.unshift(`${p.from}:${p.line}`);
    at = p.from;
  } while (at !== start);
  return `${hops.join(' -> ')} -> ${start}  (component: ${[...component].sort().join(', ')})`;
}

describe('broker/src import graph', () => {
  const { graph, unresolved } = importGraph();

  it('reads the imports of every source file', () => {
    // Guards the test itself: a graph without the known edges would pass everything.
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('server/connection.ts')?.length).toBeGreaterThan(5);
    expect(unresolved).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has each layer import only the layers below it', () => {
    const offending: string[] = [];
    for (const [file, edges] of graph) {
      const from = layerOf(file);
      const allowed = ALLOWED[from];
      if (!allowed) {
        offending.push(
          `${file}: layer "${from}" is not in the table of layers (add it to ALLOWED with the layers it may import)`,
        );
        continue;
      }
      for (const { to, line } of edges) {
        const target = layerOf(to);
        if (target !== from && !allowed.includes(target))
          offending.push(
            `${file}:${line} imports ${to} (${from}/ may import only: ${allowed.join(', ') || 'nothing else'})`,
          );
      }
    }
    expect(offending.sort()).toEqual([]);
  });
});
