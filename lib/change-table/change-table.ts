// The "what each change does" table of docs/deploy.md: each row's template diffed against the
// base's, each changed property classified by CloudFormation's update behaviour
// (update-behaviour.ts), whether the deploy waits for the boot's signal, and the downtime that
// docs/deploy.md gives for that kind of update. `npm run docs:changes` writes it; a test fails
// when the committed copy is stale.
import { BASE_CONTEXT, ROWS, type ChangeRow, type StackKind } from './rows';
import type { BrokerReleases, Synthesizer } from './synthesize';
import { diffTemplates, type ResourceChange } from './template-diff';
import { propertyUpdate, worst, type UpdateBehaviour } from './update-behaviour';

export const TABLE_START = '<!-- generated: change-table (npm run docs:changes; test/change-table.test.ts) -->';
export const TABLE_END = '<!-- end: change-table -->';

export interface RowResult {
  readonly row: ChangeRow;
  readonly changes: readonly ResourceChange[];
  readonly update: UpdateBehaviour;
  /** A new wait condition: the deploy waits for the boot's SUCCESS or rolls back on its FAILURE. */
  readonly gated: boolean;
  readonly downtime: string;
}

const changeUpdate = (c: ResourceChange): UpdateBehaviour =>
  c.action === 'modify' ? worst(c.properties.map((p) => propertyUpdate(c.type, p))) : 'in place';

/**
 * docs/deploy.md's figures ("Scale up"; "Replacement: the takeover": the new instance installs while
 * the old one serves, so the outage is the takeover); a cluster's brokers are updated one at a time.
 */
function downtime(stack: StackKind, changes: readonly ResourceChange[]): string {
  const of = (type: string) => worst(changes.filter((c) => c.type === type).map(changeUpdate));
  const instances = of('AWS::EC2::Instance');
  if (instances === 'replacement') {
    return stack === 'cluster'
      ? 'each broker about 1-2 min (a takeover), one at a time'
      : 'about 1-2 min (the new instance installs first, then takes the data volume over)';
  }
  const database = of('AWS::RDS::DBInstance');
  if (database === 'restart' || database === 'replacement') {
    return 'minutes (Multi-AZ: a 1-2 min failover); the brokers answer retriable errors';
  }
  if (instances === 'restart') {
    return stack === 'cluster' ? 'about a minute per broker, one at a time' : 'about a minute (stop and start)';
  }
  return 'none';
}

export function evaluateRow(
  row: ChangeRow,
  base: Parameters<typeof diffTemplates>[0],
  changed: Parameters<typeof diffTemplates>[1],
): RowResult {
  const changes = diffTemplates(base, changed);
  return {
    row,
    changes,
    update: changes.length === 0 ? 'no-op' : worst(changes.map(changeUpdate)),
    gated: changes.some(
      (c) => c.type === 'AWS::CloudFormation::WaitCondition' && c.action !== 'remove' && c.action !== 'modify',
    ),
    downtime: downtime(row.stack, changes),
  };
}

/** Synthesizes the bases and every row. */
export function evaluateRows(synth: Synthesizer, releases: BrokerReleases): RowResult[] {
  const bases = new Map<StackKind, ReturnType<Synthesizer>>();
  const base = (stack: StackKind) => {
    let template = bases.get(stack);
    if (!template) {
      template = synth(stack, BASE_CONTEXT[stack], releases.base);
      bases.set(stack, template);
    }
    return template;
  };
  return ROWS.map((row) =>
    evaluateRow(
      row,
      base(row.stack),
      synth(row.stack, { ...BASE_CONTEXT[row.stack], ...row.context }, releases[row.release ?? 'base']),
    ),
  );
}

const shortType = (type: string) => type.replace(/^AWS::/, '');

/** Added or deleted resources: each by name, or counted by type when there are many (a new broker). */
function describeSet(verb: string, changes: readonly ResourceChange[]): string {
  if (changes.length <= 3) return changes.map((c) => `${verb} \`${c.name}\` (${shortType(c.type)})`).join('; ');
  const byType = new Map<string, number>();
  for (const c of changes) byType.set(shortType(c.type), (byType.get(shortType(c.type)) ?? 0) + 1);
  const counts = [...byType].map(([type, n]) => (n === 1 ? type : `${type} ×${n}`)).join(', ');
  return `${verb} ${changes.length} resources (${counts})`;
}

function describeChanges(changes: readonly ResourceChange[]): string {
  if (changes.length === 0) return 'nothing';
  const parts = changes
    .filter((c) => c.action === 'modify' || c.action === 'renew')
    .map((c) =>
      c.action === 'renew'
        ? `a new \`${c.name}\` (${shortType(c.type)})`
        : `\`${c.name}\` ${c.properties.map((p) => `${p} (${propertyUpdate(c.type, p)})`).join(', ')}`,
    );
  const added = changes.filter((c) => c.action === 'add');
  const removed = changes.filter((c) => c.action === 'remove');
  if (added.length > 0) parts.push(describeSet('adds', added));
  if (removed.length > 0) parts.push(describeSet('deletes', removed));
  return parts.join('; ');
}

/** The row's update, naming what is replaced. */
function describeUpdate(r: RowResult): string {
  if (r.update !== 'replacement') return r.update;
  const replaced = r.changes.filter((c) => changeUpdate(c) === 'replacement').map((c) => `\`${c.name}\``);
  return `replacement of ${replaced.join(', ')}`;
}

function changeLabel(row: ChangeRow): string {
  const values = Object.entries(row.context).map(([k, v]) => `\`${k}=${v}\``);
  const prefix = row.stack === 'cluster' ? 'cluster: ' : '';
  if (values.length === 0) return `${prefix}${row.what ?? 'nothing'}`;
  return `${prefix}${values.join(' ')}${row.what ? ` (${row.what})` : ''}`;
}

export function renderTable(results: readonly RowResult[]): string {
  const lines = [
    '| Change | What CloudFormation changes | Update | Gated | Downtime |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const r of results) {
    const cells = [
      changeLabel(r.row),
      describeChanges(r.changes),
      describeUpdate(r),
      r.gated ? 'yes' : 'no',
      r.downtime,
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** `doc` with the text between the markers replaced by `table`; throws when a marker is missing. */
export function withTable(doc: string, table: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(`docs/deploy.md lacks the markers ${TABLE_START} ... ${TABLE_END}: put them where the table goes`);
  }
  return `${doc.slice(0, start + TABLE_START.length)}\n${table}\n${doc.slice(end)}`;
}
