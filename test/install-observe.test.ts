import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  INSTANCE_ID,
  REGION,
  createSandbox,
  expectSuccess,
  named,
  runInstall,
  type InstallRun,
  type Sandbox,
} from './helpers/install-sandbox';
import { REPO_ROOT } from './helpers/synth';
import { describeWithTools, itWithTools } from '../broker/test/support/external-tools';

// broker/deploy/observe.sh, sourced by install.sh: the CloudWatch agent (installed, configured with
// the stack's log groups and the broker's loopback metrics endpoint, started), the journald copy
// the agent reads, and the switch from the launch credit mode (unlimited) to the configured one
// once the broker answers. Stubs: dnf, rpm, amazon-cloudwatch-agent-ctl, systemctl and aws.

const OBSERVE_SH = path.join(REPO_ROOT, 'broker', 'deploy', 'observe.sh');
const LOGS = { MINNOW_LOG_GROUP: 'Minnow-BrokerLogs-AbCd', MINNOW_METRICS_LOG_GROUP: 'Minnow-MetricEvents-AbCd' };

const credits = (run: InstallRun) =>
  named(run, 'aws').filter((c) => c.includes('modify-instance-credit-specification'));
const agentDir = (sb: Sandbox) => path.join(sb.root, 'opt', 'aws', 'amazon-cloudwatch-agent', 'etc');
const read = (file: string) => fs.readFileSync(file, 'utf8');

itWithTools('shellcheck')('observe.sh is shellcheck clean', () => {
  const result = spawnSync('shellcheck', ['--severity=style', OBSERVE_SH], { encoding: 'utf8' });
  expect(result.stdout + result.stderr).toBe('');
});

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('the CloudWatch agent', () => {
  let sb: Sandbox;
  let first: InstallRun;
  let second: InstallRun;
  beforeAll(async () => {
    sb = await createSandbox();
    first = runInstall(sb, LOGS);
    second = runInstall(sb, LOGS);
  });

  test('both runs succeed', () => {
    expectSuccess(first);
    expectSuccess(second);
  });

  test('first run: installs the agent and logrotate from the AL2023 repositories', () => {
    expect(named(first, 'dnf')).toContainEqual('dnf install -y amazon-cloudwatch-agent logrotate');
  });

  test("the agent's config names the stack's log groups and reads the broker log copy", () => {
    const config = JSON.parse(read(path.join(agentDir(sb), 'minnow.json'))) as {
      logs: {
        logs_collected: { files: { collect_list: Array<Record<string, string>> } };
        metrics_collected: { prometheus: Record<string, string> };
      };
    };
    expect(config.logs.logs_collected.files.collect_list[0]).toMatchObject({
      file_path: `${sb.root}/var/log/minnow/broker.log`,
      log_group_name: 'Minnow-BrokerLogs-AbCd',
    });
    expect(config.logs.metrics_collected.prometheus).toMatchObject({
      log_group_name: 'Minnow-MetricEvents-AbCd',
      prometheus_config_path: path.join(agentDir(sb), 'prometheus.yaml'),
    });
    expect(read(path.join(agentDir(sb), 'minnow.json'))).not.toMatch(/@[A-Z_]+@/);
  });

  test('the scrape config targets the broker on 127.0.0.1:9464, labelled with this instance', () => {
    const scrape = JSON.parse(read(path.join(agentDir(sb), 'prometheus.yaml'))) as {
      scrape_configs: Array<{ static_configs: unknown[] }>;
    };
    expect(scrape.scrape_configs[0]!.static_configs).toEqual([
      { targets: ['127.0.0.1:9464'], labels: { InstanceId: INSTANCE_ID } },
    ]);
    // ...which is where the broker listens: the env file install.sh writes says so
    expect(read(path.join(sb.root, 'etc', 'minnow', 'minnow.env'))).toContain(
      'MINNOW_METRICS_LISTENER=127.0.0.1:9464\n',
    );
  });

  test('first run: fetch-config starts the agent with that file; the journal copy is enabled and started', () => {
    expect(named(first, 'amazon-cloudwatch-agent-ctl')).toEqual([
      `amazon-cloudwatch-agent-ctl -a fetch-config -m ec2 -s -c file:${agentDir(sb)}/minnow.json`,
    ]);
    const systemctl = named(first, 'systemctl');
    expect(systemctl).toContain('systemctl enable minnow-journal.service');
    expect(systemctl).toContain('systemctl restart minnow-journal.service');
    // after the broker: monitoring never delays it
    expect(systemctl.indexOf('systemctl restart minnow.service')).toBeLessThan(
      systemctl.indexOf('systemctl restart minnow-journal.service'),
    );
  });

  test('second run: nothing changed, so no reconfiguration, only "start" (a no-op when running)', () => {
    expect(named(second, 'dnf')).toEqual([]);
    expect(named(second, 'amazon-cloudwatch-agent-ctl')).toEqual([]);
    expect(named(second, 'systemctl')).toEqual(
      expect.arrayContaining([
        'systemctl start minnow-journal.service',
        'systemctl start amazon-cloudwatch-agent.service',
      ]),
    );
    expect(named(second, 'systemctl').filter((c) => c.includes('daemon-reload'))).toEqual([]);
  });

  test("the agent's memory is capped below the broker's: GOMEMLIMIT, MemoryMax, the OOM killer's first pick", () => {
    const dropIn = read(
      path.join(sb.root, 'etc', 'systemd', 'system', 'amazon-cloudwatch-agent.service.d', 'minnow.conf'),
    );
    expect(dropIn).toMatch(/^Environment=GOMEMLIMIT=96MiB$/m);
    expect(dropIn).toMatch(/^MemoryMax=160M$/m);
    expect(dropIn).toMatch(/^OOMScoreAdjust=500$/m);
  });

  test('the journal copy: the broker unit only, resumable by cursor, its file rotated at 20 MB', () => {
    const unit = read(path.join(sb.root, 'etc', 'systemd', 'system', 'minnow-journal.service'));
    expect(unit).toContain(
      `ExecStart=/usr/bin/journalctl --unit=minnow.service --follow --lines=all --output=short-iso-precise --cursor-file=${sb.root}/var/lib/minnow-journal/cursor`,
    );
    expect(unit).toContain(`StandardOutput=append:${sb.root}/var/log/minnow/broker.log`);
    expect(unit).toMatch(/^RuntimeMaxSec=1h$/m);
    const rotate = read(path.join(sb.root, 'etc', 'minnow', 'broker-logrotate.conf'));
    expect(rotate).toContain(`${sb.root}/var/log/minnow/broker.log {`);
    expect(rotate).toMatch(/size 20M\n\s+rotate 1/);
  });

  itWithTools('systemd-analyze')('systemd-analyze verify accepts the journal copy unit', () => {
    const dir = fs.mkdtempSync(path.join(sb.dir, 'verify-'));
    const unit = path.join(dir, 'minnow-journal.service');
    let text = read(path.join(sb.root, 'etc', 'systemd', 'system', 'minnow-journal.service'));
    // logrotate is an AL2023 package, not necessarily on this machine
    if (!fs.existsSync('/usr/sbin/logrotate')) text = text.replace('/usr/sbin/logrotate', '/bin/true');
    fs.writeFileSync(unit, text);
    const result = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    expect({
      status: result.status,
      output: (result.stdout + result.stderr).replace(/.*minnow\.service.*\n?/g, ''),
    }).toEqual({
      status: 0,
      output: '',
    });
  });
});

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('monitoring never stops the boot', () => {
  test('without log groups (an older stack), observe.sh installs nothing', async () => {
    const sb = await createSandbox();
    const run = runInstall(sb);
    expectSuccess(run);
    expect(named(run, 'amazon-cloudwatch-agent-ctl')).toEqual([]);
    expect(fs.existsSync(path.join(agentDir(sb), 'minnow.json'))).toBe(false);
    expect(credits(run)).toEqual([]);
  });

  test('an agent that refuses its config: a warning, and the broker runs on', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'agent-broken'), '');
    const run = runInstall(sb, LOGS);
    expectSuccess(run);
    expect(run.stderr).toContain('warning: the CloudWatch agent is not set up');
    expect(named(run, 'systemctl')).toContain('systemctl restart minnow.service');
  });
});

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('the credit mode (launched unlimited, switched once the broker answers)', () => {
  // The sandbox's systemctl starts a fake broker that answers ApiVersions (deploy/release.sh probes it).
  test('MINNOW_CPU_CREDITS=standard: once the broker answers on loopback, sets standard on this instance', async () => {
    const sb = await createSandbox();
    const run = runInstall(sb, { MINNOW_CPU_CREDITS: 'standard' });
    expectSuccess(run);
    expect(credits(run)).toEqual([
      `aws --region ${REGION} ec2 modify-instance-credit-specification --instance-credit-specifications InstanceId=${INSTANCE_ID},CpuCredits=standard --query UnsuccessfulInstanceCreditSpecifications[0].Error.Message --output text`,
    ]);
    expect(run.stderr).toContain('CPU credits: standard');
    expect(run.calls.indexOf('systemctl restart minnow.service')).toBeLessThan(run.calls.indexOf(credits(run)[0]!));
  });

  test('security off: switched too', async () => {
    const sb = await createSandbox();
    const run = runInstall(sb, { MINNOW_SECURITY: 'off', MINNOW_CPU_CREDITS: 'unlimited' });
    expectSuccess(run);
    expect(credits(run)).toHaveLength(1);
    expect(credits(run)[0]).toMatch(/CpuCredits=unlimited /);
  });

  test('a broker that never answers: the boot fails before the switch, so the first boot stays unthrottled', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'broker-down'), '');
    const run = runInstall(sb, { MINNOW_CPU_CREDITS: 'standard', MINNOW_HEALTH_TIMEOUT_S: '2' });
    expect(run.status).not.toBe(0);
    expect(credits(run)).toEqual([]);
  });

  test('a refused switch (no permission): a warning that says the instance stays unlimited; the boot goes on', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'credit-denied'), '');
    const run = runInstall(sb, { MINNOW_CPU_CREDITS: 'standard' });
    expectSuccess(run);
    expect(run.stderr).toContain('could not set CPU credits to standard; the instance stays in its launch mode');
  });

  test('a change EC2 reports as unsuccessful (exit 0, an error in the response) is a warning too', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'credit-unsuccessful'), 'The instance does not support unlimited\n');
    const run = runInstall(sb, { MINNOW_CPU_CREDITS: 'unlimited' });
    expectSuccess(run);
    expect(run.stderr).toContain('EC2 refused the credit mode: The instance does not support unlimited');
    expect(run.stderr).toContain('could not set CPU credits to unlimited');
    expect(run.stderr).not.toContain('CPU credits: unlimited');
  });
});
