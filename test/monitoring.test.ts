import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { customMetricCount, METRICS_LISTENER, METRICS_NAMESPACE } from '../lib/monitoring-metrics';
import { REPO_ROOT, only, synthTemplate, userDataText } from './helpers/synth';

// The CloudWatch agent's side of issue 14 in the template: log groups with a retention, the
// permissions the agent needs and no more, the dashboard's broker widgets; and the agent's own
// configuration (broker/deploy/cloudwatch-agent.json, prometheus.yaml), checked against the keys
// the agent documents and against the metrics the alarms and the dashboard read.

const DEPLOY = path.join(REPO_ROOT, 'broker', 'deploy');
const readJson = (file: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(path.join(DEPLOY, file), 'utf8')) as Record<string, unknown>;

const template = synthTemplate();
const logGroups = (t: Template) => Object.entries(t.findResources('AWS::Logs::LogGroup'));
/** The logical ids of the broker log group and the metric-events group, in that order. */
const groupIds = (t: Template): [string, string] => {
  const ids = logGroups(t).map(([id]) => id);
  if (ids.length !== 2) throw new Error(`expected 2 log groups, found ${ids.length}`);
  return ids as [string, string];
};
const policyStatements = (t: Template) =>
  Object.values(t.findResources('AWS::IAM::Policy')).flatMap(
    (p) => (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
  );

describe('log groups', () => {
  test('two, created by the stack with a 30-day retention: the broker log and the metric events', () => {
    const groups = logGroups(template);
    expect(groups.map(([id]) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual([
      'MonitoringBrokerLogs',
      'MonitoringMetricEvents',
    ]);
    for (const [, group] of groups) expect(group.Properties.RetentionInDays).toBe(30);
  });

  test('-c logRetentionDays=7 sets both', () => {
    for (const [, group] of logGroups(synthTemplate({ logRetentionDays: '7' }))) {
      expect(group.Properties.RetentionInDays).toBe(7);
    }
  });

  test('the instance is told their names; an output names the broker log', () => {
    const [brokerId, metricsId] = groupIds(template);
    const text = userDataText(template, { [brokerId]: '<broker-logs>', [metricsId]: '<metric-events>' });
    expect(text).toContain("MINNOW_LOG_GROUP='<broker-logs>'\nMINNOW_METRICS_LOG_GROUP='<metric-events>'\n");
    template.hasOutput('BrokerLogGroup', { Value: { Ref: brokerId } });
  });
});

describe("the agent's permissions", () => {
  test('write to the two groups, put metrics into the minnow namespace only; no managed agent policy', () => {
    const [brokerId, metricsId] = groupIds(template);
    const logs = policyStatements(template).filter((s) => JSON.stringify(s.Action).includes('logs:'));
    expect(logs).toEqual([
      {
        Action: ['logs:CreateLogStream', 'logs:DescribeLogStreams', 'logs:PutLogEvents'],
        Effect: 'Allow',
        Resource: [{ 'Fn::GetAtt': [brokerId, 'Arn'] }, { 'Fn::GetAtt': [metricsId, 'Arn'] }],
      },
    ]);
    const metrics = policyStatements(template).filter((s) => JSON.stringify(s.Action).includes('cloudwatch:'));
    expect(metrics).toEqual([
      {
        Action: 'cloudwatch:PutMetricData',
        Effect: 'Allow',
        Resource: '*',
        Condition: { StringEquals: { 'cloudwatch:namespace': 'minnow' } },
      },
    ]);
    expect(JSON.stringify(template.toJSON())).not.toContain('CloudWatchAgentServerPolicy');
  });
});

describe('dashboard', () => {
  const [, dashboard] = only(template, 'AWS::CloudWatch::Dashboard');
  const body = JSON.stringify(dashboard.Properties.DashboardBody);

  test('broker metrics next to the credit widgets: requests, bytes, errors, lag, database size, memory, disks', () => {
    for (const metric of [
      'minnow_requests_total',
      'minnow_bytes_in_total',
      'minnow_bytes_out_total',
      'minnow_request_errors_total',
      'minnow_consumer_group_lag_max',
      'minnow_database_bytes',
      'mem_used_percent',
      'disk_used_percent',
      'CPUCreditBalance',
    ]) {
      expect(body).toContain(`\\"${metric}\\"`);
    }
    expect(body).toContain('\\"api\\",\\"Produce\\"');
    expect(body).toContain('\\"api\\",\\"Fetch\\"');
  });

  test('the database size is drawn against the data volume size (20 GiB)', () => {
    expect(body).toContain(`\\"value\\":${20 * 1024 ** 3}`);
    const bigger = only(synthTemplate({ dataVolumeGiB: '50' }), 'AWS::CloudWatch::Dashboard')[1];
    expect(JSON.stringify(bigger.Properties.DashboardBody)).toContain(`\\"value\\":${50 * 1024 ** 3}`);
  });

  test('per-group lag is a Logs Insights table over the metric-events group (no metric per group)', () => {
    const [, metricsId] = groupIds(template);
    expect(body).toContain('\\"type\\":\\"log\\"');
    expect(body).toContain('stats latest(minnow_consumer_group_lag) as lag by group');
    expect(JSON.stringify(dashboard.Properties.DashboardBody)).toContain(`{"Ref":"${metricsId}"}`);
  });
});

/**
 * The keys the CloudWatch agent documents for the sections we use (CloudWatch-Agent-Configuration-
 * File-Details, CloudWatch-Agent-PrometheusEC2, and the agent's translator/config/schema.json).
 * A key outside these makes `amazon-cloudwatch-agent-ctl -a fetch-config` refuse the file.
 */
type KeyTree = { readonly keys: readonly string[]; readonly children?: Readonly<Record<string, KeyTree>> };
const MEASURED: KeyTree = { keys: ['measurement', 'metrics_collection_interval', 'append_dimensions', 'resources'] };
const DOCUMENTED_KEYS: KeyTree = {
  keys: ['agent', 'metrics', 'logs', 'traces'],
  children: {
    agent: {
      keys: [
        'metrics_collection_interval',
        'logfile',
        'region',
        'debug',
        'run_as_user',
        'omit_hostname',
        'credentials',
      ],
    },
    metrics: {
      keys: ['namespace', 'append_dimensions', 'aggregation_dimensions', 'metrics_collected', 'force_flush_interval'],
      children: {
        append_dimensions: { keys: ['InstanceId', 'ImageId', 'InstanceType', 'AutoScalingGroupName'] },
        metrics_collected: {
          keys: ['mem', 'disk', 'cpu', 'swap', 'net', 'diskio', 'procstat'],
          children: {
            mem: MEASURED,
            disk: { keys: [...MEASURED.keys, 'drop_device', 'ignore_file_system_types'] },
          },
        },
      },
    },
    logs: {
      keys: ['logs_collected', 'metrics_collected', 'force_flush_interval', 'log_stream_name'],
      children: {
        logs_collected: {
          keys: ['files'],
          children: {
            files: {
              keys: ['collect_list'],
              children: {
                collect_list: {
                  keys: [
                    'file_path',
                    'log_group_name',
                    'log_stream_name',
                    'log_group_class',
                    'timezone',
                    'multi_line_start_pattern',
                    'timestamp_format',
                    'encoding',
                    'auto_removal',
                    'filters',
                  ],
                },
              },
            },
          },
        },
        metrics_collected: {
          keys: ['prometheus'],
          children: {
            prometheus: {
              keys: ['cluster_name', 'log_group_name', 'prometheus_config_path', 'emf_processor'],
              children: {
                emf_processor: {
                  keys: ['metric_declaration_dedup', 'metric_namespace', 'metric_unit', 'metric_declaration'],
                  children: {
                    metric_unit: { keys: [] }, // metric name -> unit: any key
                    metric_declaration: {
                      keys: ['source_labels', 'label_matcher', 'label_separator', 'metric_selectors', 'dimensions'],
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** Paths of keys not in the tree; arrays are checked item by item against the same node. */
function undocumentedKeys(value: unknown, tree: KeyTree, at: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => undocumentedKeys(item, tree, `${at}[${i}]`));
  if (value === null || typeof value !== 'object' || tree.keys.length === 0) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, child]) => {
    if (!tree.keys.includes(key)) return [`${at}.${key}`];
    const sub = tree.children?.[key];
    return sub ? undocumentedKeys(child, sub, `${at}.${key}`) : [];
  });
}

describe('broker/deploy/cloudwatch-agent.json', () => {
  const agent = readJson('cloudwatch-agent.json');
  const text = fs.readFileSync(path.join(DEPLOY, 'cloudwatch-agent.json'), 'utf8');
  type Declaration = { metric_selectors: string[]; dimensions: string[][]; label_matcher: string };
  const prometheus = (agent.logs as { metrics_collected: { prometheus: Record<string, unknown> } }).metrics_collected
    .prometheus;
  const emf = prometheus.emf_processor as { metric_namespace: string; metric_declaration: Declaration[] };

  test('parses, and uses only keys the agent documents', () => {
    expect(undocumentedKeys(agent, DOCUMENTED_KEYS, '$')).toEqual([]);
    // the checker itself: an unknown key is reported
    expect(
      undocumentedKeys({ logs: { metrics_collected: { prometheus: { scrape: 1 } } } }, DOCUMENTED_KEYS, '$'),
    ).toEqual(['$.logs.metrics_collected.prometheus.scrape']);
  });

  test("its log groups are the stack's (filled in by observe.sh), its stream the instance id", () => {
    const files = (agent.logs as { logs_collected: { files: { collect_list: Record<string, string>[] } } })
      .logs_collected.files.collect_list;
    expect(files).toEqual([
      expect.objectContaining({
        file_path: '@ROOT@/var/log/minnow/broker.log',
        log_group_name: '@BROKER_LOG_GROUP@',
        log_stream_name: '{instance_id}',
      }),
    ]);
    expect(prometheus.log_group_name).toBe('@METRICS_LOG_GROUP@');
    // no retention_in_days: the stack owns the retention, and the role has no PutRetentionPolicy
    expect(text).not.toContain('retention_in_days');
  });

  test('everything goes into the minnow namespace, with an InstanceId dimension', () => {
    const metrics = agent.metrics as { namespace: string; append_dimensions: Record<string, string> };
    expect(metrics.namespace).toBe(METRICS_NAMESPACE);
    expect(metrics.append_dimensions).toEqual({ InstanceId: '${aws:InstanceId}' });
    expect(emf.metric_namespace).toBe(METRICS_NAMESPACE);
    for (const declaration of emf.metric_declaration) {
      for (const set of declaration.dimensions) expect(set[0]).toBe('InstanceId');
    }
  });

  test('publishes exactly the custom metrics the alarms and the dashboard read: 10, the free tier', () => {
    const key = (name: string, dims: string[]) => `${name}{${[...dims].sort().join(',')}}`;
    // Every minnow-namespace metric the template reads, with its dimension names.
    const used = new Set<string>();
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) {
        // a dashboard metric: ["minnow", name, dimName, dimValue, ..., {options}]
        if (value[0] === METRICS_NAMESPACE && typeof value[1] === 'string') {
          const dims: string[] = [];
          for (let i = 2; i + 1 < value.length; i += 2) {
            if (typeof value[i] === 'string' && typeof value[i + 1] === 'string') dims.push(value[i] as string);
          }
          used.add(key(value[1], dims));
        }
        value.forEach(collect);
      } else if (value && typeof value === 'object') {
        const o = value as Record<string, unknown>;
        if (o.Namespace === METRICS_NAMESPACE && typeof o.MetricName === 'string') {
          used.add(
            key(
              o.MetricName,
              (o.Dimensions as { Name: string }[]).map((d) => d.Name),
            ),
          );
        }
        Object.values(o).forEach(collect);
      }
    };
    const resources = JSON.parse(
      JSON.stringify((template.toJSON() as { Resources: unknown }).Resources).replace(
        /\{"Ref":"[A-Za-z0-9]+"\}/g,
        '"ref"',
      ),
    ) as Record<string, { Properties?: { DashboardBody?: { 'Fn::Join': [string, string[]] } } }>;
    for (const resource of Object.values(resources)) {
      const join = resource.Properties?.DashboardBody?.['Fn::Join'];
      collect(join ? JSON.parse(join[1].join('')) : resource);
    }

    const disk = (agent.metrics as { metrics_collected: { disk: { resources: string[]; drop_device: boolean } } })
      .metrics_collected.disk;
    expect(disk).toMatchObject({ resources: ['/', '/data'], drop_device: true });
    const published = new Set<string>([key('mem_used_percent', ['InstanceId'])]);
    published.add(key('disk_used_percent', ['InstanceId', 'path', 'fstype'])); // drop_device: no device
    for (const declaration of emf.metric_declaration) {
      expect(declaration.dimensions).toHaveLength(1); // each dimension set is a metric of its own
      for (const selector of declaration.metric_selectors) {
        published.add(key(selector.replace(/^\^|\$$/g, ''), declaration.dimensions[0]!));
      }
    }
    expect([...used].sort()).toEqual([...published].sort());

    // One metric per name and dimension values: the disk per path, the requests per counted API.
    const apis = /\(([A-Za-z|]+)\)/.exec(emf.metric_declaration[0]!.label_matcher)![1]!.split('|');
    expect(apis).toEqual(['Produce', 'Fetch']);
    const metrics = published.size - 2 + disk.resources.length + apis.length;
    expect(metrics).toBe(customMetricCount());
    expect(metrics).toBe(10);
  });
});

describe('broker/deploy/prometheus.yaml (JSON, which is YAML)', () => {
  const config = readJson('prometheus.yaml') as {
    scrape_configs: {
      job_name: string;
      static_configs: { targets: string[]; labels: Record<string, string> }[];
      metric_relabel_configs: { regex: string; action: string }[];
    }[];
  };

  test("scrapes only the broker's loopback endpoint, as job minnow, labelled with the instance id", () => {
    expect(config.scrape_configs).toHaveLength(1);
    const [job] = config.scrape_configs as [(typeof config.scrape_configs)[0]];
    expect(job.job_name).toBe('minnow');
    expect(job.static_configs).toEqual([
      { targets: ['127.0.0.1:@METRICS_PORT@'], labels: { InstanceId: '@INSTANCE_ID@' } },
    ]);
    expect(`127.0.0.1:${9464}`).toBe(METRICS_LISTENER);
  });

  test('keeps only minnow_* series (and the RSS) in the log group: no event per prom-client default', () => {
    const [job] = config.scrape_configs as [(typeof config.scrape_configs)[0]];
    expect(job.metric_relabel_configs).toEqual([
      { source_labels: ['__name__'], regex: 'minnow_.*|process_resident_memory_bytes', action: 'keep' },
    ]);
  });
});
