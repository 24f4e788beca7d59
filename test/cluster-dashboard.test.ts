import type { Template } from 'aws-cdk-lib/assertions';
import { synthClusterTemplate } from './helpers/synth-cluster';
import { only } from './helpers/synth';

// The storage=postgres stack's dashboard (lib/constructs/cluster-dashboard.ts): every broker's
// host and Kafka metrics, the RDS instance's, and every alarm. The single instance's is in
// minnow-stack.test.ts and monitoring.test.ts; cdk-nag runs on the cluster in postgres-stack.test.ts.

interface Widget {
  type: string;
  properties: {
    title: string;
    metrics?: unknown[][];
    alarms?: string[];
    annotations?: { horizontal: { value: number; label: string }[] };
  };
}

/** The dashboard's widgets, each reference written as <Ref:Id> or <GetAtt:Id.Attr>. */
function widgets(template: Template): Widget[] {
  const [, dashboard] = only(template, 'AWS::CloudWatch::Dashboard');
  const [sep, parts] = (dashboard.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  const text = parts
    .map((p) => {
      if (typeof p === 'string') return p;
      const o = p as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
      return o.Ref !== undefined ? `<Ref:${o.Ref}>` : `<GetAtt:${o['Fn::GetAtt']!.join('.')}>`;
    })
    .join(sep);
  return (JSON.parse(text) as { widgets: Widget[] }).widgets;
}

const ids = (template: Template, type: string): string[] => Object.keys(template.findResources(type));
const titled = (all: Widget[], title: RegExp): Widget => {
  const found = all.filter((w) => title.test(w.properties.title));
  if (found.length !== 1) throw new Error(`${found.length} widgets titled ${title}`);
  return found[0]!;
};
/** [namespace, metric name, dimension value] of each metric line of a widget. */
const lines = (w: Widget): [unknown, unknown, unknown][] =>
  (w.properties.metrics ?? []).filter((m) => typeof m[0] === 'string').map((m) => [m[0], m[1], m[3]]);

describe('the default cluster: 2 brokers on a db.t4g.micro', () => {
  const template = synthClusterTemplate();
  const all = widgets(template);
  const brokers = ids(template, 'AWS::EC2::Instance');
  const [database] = ids(template, 'AWS::RDS::DBInstance');

  test('one dashboard, its name an output', () => {
    const [dashboardId] = only(template, 'AWS::CloudWatch::Dashboard');
    expect((template.toJSON() as { Outputs: Record<string, unknown> }).Outputs.DashboardName).toEqual({
      Value: { Ref: dashboardId },
    });
  });

  test.each([
    [/^CPU credit balance/, 'AWS/EC2', 'CPUCreditBalance'],
    [/^CPU utilization/, 'AWS/EC2', 'CPUUtilization'],
    [/^Network in/, 'AWS/EC2', 'NetworkIn'],
    [/^Network out/, 'AWS/EC2', 'NetworkOut'],
    [/^Kafka requests/, 'minnow', 'minnow_requests_total'],
    [/^Record bytes produced/, 'minnow', 'minnow_bytes_in_total'],
    [/^Record bytes fetched/, 'minnow', 'minnow_bytes_out_total'],
    [/^Error responses/, 'minnow', 'minnow_request_errors_total'],
    [/^Consumer lag/, 'minnow', 'minnow_consumer_group_lag_max'],
    [/^Memory and disk/, 'minnow', 'mem_used_percent'],
  ])('%s: one line per broker instance', (title, namespace, metric) => {
    const drawn = lines(titled(all, title)).filter(([ns, name]) => ns === namespace && name === metric);
    const perInstance = brokers.map((id) => drawn.filter(([, , dim]) => dim === `<Ref:${id}>`).length);
    // Requests: one line per API (Produce, Fetch) and broker.
    expect(perInstance).toEqual(brokers.map(() => (metric === 'minnow_requests_total' ? 2 : 1)));
  });

  test('CPU is drawn against the t3.micro baseline (10 %)', () => {
    const annotations = titled(all, /^CPU utilization/).properties.annotations?.horizontal ?? [];
    expect(annotations.map((a) => a.value)).toEqual([10]);
  });

  test('the database: CPU and credits, storage, connections, IOPS, latency, memory, by DBInstanceIdentifier', () => {
    const rds = all.flatMap(lines).filter(([ns]) => ns === 'AWS/RDS');
    expect(new Set(rds.map(([, , dim]) => dim))).toEqual(new Set([`<Ref:${database}>`]));
    expect(rds.map(([, name]) => name).sort()).toEqual(
      [
        'CPUCreditBalance',
        'CPUUtilization',
        'CPUUtilization',
        'DatabaseConnections',
        'FreeStorageSpace',
        'FreeableMemory',
        'ReadIOPS',
        'ReadLatency',
        'WriteIOPS',
        'WriteLatency',
      ].sort(),
    );
    for (const w of all.filter((x) => x.properties.title.startsWith('Database'))) {
      for (const m of w.properties.metrics ?? []) expect(m[2]).toBe('DBInstanceIdentifier');
    }
    // db.t4g.micro: the baseline (10 %) and the alarm's 80 %.
    expect(titled(all, /^Database CPU/).properties.annotations?.horizontal.map((a) => a.value)).toEqual([10, 80]);
  });

  test('the alarm status widget lists every alarm of the stack, brokers and database', () => {
    const alarms = ids(template, 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(10);
    const shown = titled(all, /^Alarms$/).properties.alarms ?? [];
    expect([...shown].sort()).toEqual(alarms.map((id) => `<GetAtt:${id}.Arn>`).sort());
  });
});

test('-c brokers=3 -c cpuCredits=unlimited -c dbInstanceType=db.m7g.large: three brokers, surplus credits, no DB credits', () => {
  const template = synthClusterTemplate({ brokers: '3', cpuCredits: 'unlimited', dbInstanceType: 'db.m7g.large' });
  const all = widgets(template);
  const brokers = ids(template, 'AWS::EC2::Instance');
  expect(brokers).toHaveLength(3);
  const credits = lines(titled(all, /^CPU credit balance/));
  expect(credits.filter(([, name]) => name === 'CPUSurplusCreditBalance').map(([, , dim]) => dim)).toEqual(
    brokers.map((id) => `<Ref:${id}>`),
  );
  expect(lines(titled(all, /^Kafka requests/))).toHaveLength(6);
  const dbCpu = titled(all, /^Database CPU/);
  expect(lines(dbCpu).map(([, name]) => name)).toEqual(['CPUUtilization', 'CPUUtilization']);
  expect(dbCpu.properties.annotations?.horizontal.map((a) => a.value)).toEqual([80]);
  const shown = titled(all, /^Alarms$/).properties.alarms ?? [];
  expect(shown).toHaveLength(ids(template, 'AWS::CloudWatch::Alarm').length);
});
