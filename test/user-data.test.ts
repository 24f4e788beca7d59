import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INSTALL_SCRIPT_PATH } from '../lib/user-data';
import { only, synth, userDataText } from './helpers/synth';
import { itWithTools } from '../broker/test/support/external-tools';
import { kitTempDir } from './helpers/temp-dirs';

// Realistic stand-ins for the values CloudFormation fills in at deploy time.
const { template } = synth();
const [eipId] = only(template, 'AWS::EC2::EIP');
const [volumeId] = only(template, 'AWS::EC2::Volume');
const [parameterId] = only(template, 'AWS::SSM::Parameter');
const [secretId] = only(template, 'AWS::SecretsManager::Secret');
const [brokerLogsId, metricEventsId] = Object.keys(template.findResources('AWS::Logs::LogGroup'));
const [handleId] = only(template, 'AWS::CloudFormation::WaitConditionHandle');
/** What Ref of a wait condition handle gives: a presigned S3 URL, about 400 characters (its largest form). */
const SIGNAL_URL = `https://cloudformation-waitcondition-ap-southeast-2.s3.ap-southeast-2.amazonaws.com/${encodeURIComponent(
  'arn:aws:cloudformation:ap-southeast-2:123456789012:stack/Minnow/0f0e0d0c-0b0a-0908-0706-050403020100/BrokerReleaseHandle',
)}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260601T120000Z&X-Amz-SignedHeaders=host&X-Amz-Expires=86399&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20260601%2Fap-southeast-2%2Fs3%2Faws4_request&X-Amz-Signature=${'0'.repeat(64)}`;
const text = userDataText(template, {
  [eipId]: '198.51.100.7',
  [volumeId]: 'vol-0123456789abcdef0',
  [parameterId]: 'CFN-SecurityCaCertificate-AbCd',
  [secretId]: 'arn:aws:secretsmanager:ap-southeast-2:123456789012:secret:SecurityAdminPassword-AbCd',
  [brokerLogsId!]: 'Minnow-MonitoringBrokerLogs-AbCd',
  [metricEventsId!]: 'Minnow-MonitoringMetricEvents-AbCd',
  [`"Ref":"${handleId}"`]: SIGNAL_URL,
})
  .replace('${AWS::AccountId}', '123456789012')
  .replace('${AWS::Region}', 'ap-southeast-2');

const BOUNDARY = '--MINNOW-USER-DATA-BOUNDARY';
const parts = text.split(`\n${BOUNDARY}`).slice(1);
const body = (part: string | undefined): string => (part ?? '').split('\n\n').slice(1).join('\n\n');

test('MIME multipart: a cloud-config part that reruns user scripts on every boot, then the shell part', () => {
  expect(
    text.startsWith('Content-Type: multipart/mixed; boundary="MINNOW-USER-DATA-BOUNDARY"\nMIME-Version: 1.0\n\n'),
  ).toBe(true);
  expect(parts).toHaveLength(3);
  expect(parts[0]).toContain('Content-Type: text/cloud-config');
  expect(body(parts[0]).trim()).toBe('#cloud-config\ncloud_final_modules:\n- [scripts-user, always]');
  expect(parts[1]).toContain('Content-Type: text/x-shellscript');
  expect(parts[2]).toBe('--\n');
});

test('fits the 16 KB user data limit, with room to spare', () => {
  expect(Buffer.byteLength(text)).toBeLessThan(14 * 1024);
});

describe('the shell part', () => {
  const shell = body(parts[1]);
  const file = path.join(kitTempDir('minnow-ud-'), 'bootstrap.sh');
  fs.writeFileSync(file, shell);

  test('writes the settings the installer needs', () => {
    expect(shell).toContain(
      [
        "cat >/etc/minnow/install.env <<'MINNOW_SETTINGS'",
        "MINNOW_ASSET_URL='s3://cdk-hnb659fds-assets-123456789012-ap-southeast-2/",
      ].join('\n'),
    );
    expect(shell).toMatch(
      /\/[0-9a-f]{64}\.zip'\nMINNOW_ADVERTISED_HOST='198\.51\.100\.7'\nMINNOW_DATA_VOLUME_ID='vol-0123456789abcdef0'\nMINNOW_PORT='9093'\nMINNOW_LOG_LEVEL='info'\n/,
    );
    expect(shell).toContain(
      [
        "MINNOW_SECURITY='on'",
        "MINNOW_CA_PARAMETER='CFN-SecurityCaCertificate-AbCd'",
        "MINNOW_ADMIN_SECRET_ID='arn:aws:secretsmanager:ap-southeast-2:123456789012:secret:SecurityAdminPassword-AbCd'",
        "MINNOW_LOG_GROUP='Minnow-MonitoringBrokerLogs-AbCd'",
        "MINNOW_METRICS_LOG_GROUP='Minnow-MonitoringMetricEvents-AbCd'",
        "MINNOW_CPU_CREDITS='standard'",
        `MINNOW_SIGNAL_URL='${SIGNAL_URL}'`,
        'MINNOW_SETTINGS',
      ].join('\n'),
    );
  });

  test('embeds broker/deploy/install.sh verbatim and runs it', () => {
    const installer = fs.readFileSync(INSTALL_SCRIPT_PATH, 'utf8').trimEnd();
    expect(shell).toContain(`cat >/usr/local/sbin/minnow-install <<'MINNOW_INSTALL'\n${installer}\nMINNOW_INSTALL\n`);
    expect(shell.trimEnd().endsWith('exec /usr/local/sbin/minnow-install /etc/minnow/install.env')).toBe(true);
  });

  test('is valid bash', () => {
    expect(spawnSync('bash', ['-n', file], { encoding: 'utf8' }).stderr).toBe('');
  });

  itWithTools('shellcheck')('is shellcheck clean', () => {
    const result = spawnSync('shellcheck', ['--shell=bash', file], { encoding: 'utf8' });
    if (result.error) throw new Error(`shellcheck did not run: ${result.error.message}`);
    expect(result.stdout + result.stderr).toBe('');
  });
});
