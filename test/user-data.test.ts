import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INSTALL_SCRIPT_PATH } from '../lib/user-data';
import { only, synthTemplate, userDataText } from './helpers/synth';
import { itWithTools } from '../broker/test/support/external-tools';
import { kitTempDir } from './helpers/temp-dirs';

// Realistic stand-ins for what CloudFormation fills in at deploy time, at their real lengths: names
// CloudFormation generates are <stack>-<logical id>-<12 random> (log groups), CFN-<logical id>-<12>
// (SSM parameters) and <logical id>-<12> plus the ARN's own -<6> (secrets); the region is one of the
// longest names; the stack name is a long one people use (a restored production stack).
const template = synthTemplate();
const [eipId] = only(template, 'AWS::EC2::EIP');
const [volumeId] = only(template, 'AWS::EC2::Volume');
const [parameterId] = only(template, 'AWS::SSM::Parameter');
const [secretId] = only(template, 'AWS::SecretsManager::Secret');
const [brokerLogsId, metricEventsId] = Object.keys(template.findResources('AWS::Logs::LogGroup'));
const [handleId] = only(template, 'AWS::CloudFormation::WaitConditionHandle');
const STACK = 'minnow-production-restored';
const REGION = 'ap-southeast-2';
const RANDOM = 'Xy3kQ8vN2mPa';
const CA_PARAMETER = `CFN-${parameterId}-${RANDOM}`;
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:123456789012:secret:${secretId}-${RANDOM}-AbCdEf`;
/**
 * What Ref of a wait condition handle gives: a presigned S3 URL naming the stack's ARN and the
 * handle, about 500 characters (SignatureV4, no session token).
 */
const SIGNAL_URL = `https://cloudformation-waitcondition-${REGION}.s3.${REGION}.amazonaws.com/${encodeURIComponent(
  `arn:aws:cloudformation:${REGION}:123456789012:stack/${STACK}/0f0e0d0c-0b0a-0908-0706-050403020100/${handleId}`,
)}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260601T120000Z&X-Amz-SignedHeaders=host&X-Amz-Expires=86399&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20260601%2F${REGION}%2Fs3%2Faws4_request&X-Amz-Signature=${'0'.repeat(64)}`;
const userData = (signalUrl: string) =>
  userDataText(template, {
    [eipId]: '203.113.200.255',
    [volumeId]: 'vol-0123456789abcdef0',
    [parameterId]: CA_PARAMETER,
    [secretId]: SECRET_ARN,
    [brokerLogsId!]: `${STACK}-${brokerLogsId}-${RANDOM}`,
    [metricEventsId!]: `${STACK}-${metricEventsId}-${RANDOM}`,
    [`"Ref":"${handleId}"`]: signalUrl,
  })
    .replaceAll('${AWS::AccountId}', '123456789012')
    .replaceAll('${AWS::Region}', REGION);
const text = userData(SIGNAL_URL);

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

// EC2 limits user data to 16 KB "in raw form, before it is base64-encoded" (EC2 User Guide, "Run
// commands when you launch an EC2 instance with user data input"): the template's Fn::Base64 adds a
// third on top of that, which does not count.
const USER_DATA_LIMIT = 16 * 1024;

test('every value CloudFormation fills in has a realistic stand-in', () => {
  expect(SIGNAL_URL.length).toBeGreaterThan(450);
  expect(text).not.toMatch(/<\{|\$\{AWS::/);
});

test('fits the 16 KB user data limit with at least 1 KB to spare, and with a 1 KB signal URL', () => {
  const size = Buffer.byteLength(text);
  expect(USER_DATA_LIMIT - size).toBeGreaterThanOrEqual(1024);
  // A presigned URL with a session token would be about twice as long: still under the limit.
  const longUrl = `${SIGNAL_URL}&X-Amz-Security-Token=`.padEnd(1024, 'A');
  expect(Buffer.byteLength(userData(longUrl))).toBeLessThanOrEqual(USER_DATA_LIMIT);
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
      /\/[0-9a-f]{64}\.zip'\nMINNOW_ADVERTISED_HOST='203\.113\.200\.255'\nMINNOW_DATA_VOLUME_ID='vol-0123456789abcdef0'\nMINNOW_PORT='9093'\nMINNOW_LOG_LEVEL='info'\n/,
    );
    expect(shell).toContain(
      [
        "MINNOW_SECURITY='on'",
        `MINNOW_CA_PARAMETER='${CA_PARAMETER}'`,
        `MINNOW_ADMIN_SECRET_ID='${SECRET_ARN}'`,
        `MINNOW_LOG_GROUP='${STACK}-${brokerLogsId}-${RANDOM}'`,
        `MINNOW_METRICS_LOG_GROUP='${STACK}-${metricEventsId}-${RANDOM}'`,
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
