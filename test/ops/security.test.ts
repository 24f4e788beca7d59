import * as fs from 'node:fs';
import * as path from 'node:path';
import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { main, USAGE, type CliDeps } from '../../bin/ops';
import { CA_PENDING } from '../../lib/constructs/broker-security';
import { EIP, INSTANCE_ID, STACK, VOLUME_ID, clients, fakeRuntime, mocks } from './fixtures';
import { kitTempDir } from '../helpers/temp-dirs';

const CA_PARAMETER = 'CFN-SecurityCaCertificate07D29BFE-AbCdEf';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-2:123456789012:secret:SecurityAdminPassword-AbCdEf';
const PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----';

function run(argv: string[]) {
  const out: string[] = [];
  const runtime = fakeRuntime();
  const deps: CliDeps = { clients: () => clients(), runtime, out: (t) => out.push(t) };
  return main(argv, deps).then((code) => ({ code, out: out.join('\n'), err: runtime.lines.join('\n') }));
}

/** The stack's outputs as a secure deploy leaves them (see MinnowStack's Outputs). */
function secureStack() {
  const m = mocks();
  m.cfn.on(DescribeStacksCommand, { StackName: STACK }).resolves({
    Stacks: [
      {
        StackName: STACK,
        StackStatus: 'CREATE_COMPLETE',
        CreationTime: new Date(),
        Outputs: [
          { OutputKey: 'InstanceId', OutputValue: INSTANCE_ID },
          { OutputKey: 'DataVolumeId', OutputValue: VOLUME_ID },
          { OutputKey: 'BootstrapServers', OutputValue: `${EIP}:9093` },
          { OutputKey: 'CaCertificateParameter', OutputValue: CA_PARAMETER },
          { OutputKey: 'AdminSecretArn', OutputValue: SECRET_ARN },
        ],
      },
    ],
  });
  return { ...m, ssm: mockClient(SSMClient), sm: mockClient(SecretsManagerClient) };
}

test('usage lists ca and password', () => {
  expect(USAGE).toMatch(/^ {2}ca {2,}.*ca\.pem$/m);
  expect(USAGE).toMatch(/^ {2}password {2,}.*admin/m);
});

test('ca prints the published PEM from the parameter the stack names, and nothing else', async () => {
  const { ssm } = secureStack();
  ssm
    .on(GetParameterCommand, { Name: CA_PARAMETER })
    .resolves({ Parameter: { Name: CA_PARAMETER, Value: `${PEM}\n` } });
  const result = await run(['ca', '--region', 'eu-west-2']);
  expect(result).toEqual({ code: 0, out: PEM, err: '' });
  expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(1);
});

test('ca before the first boot published it: says so, exit 1, prints no certificate', async () => {
  const { ssm } = secureStack();
  ssm.on(GetParameterCommand).resolves({ Parameter: { Name: CA_PARAMETER, Value: CA_PENDING } });
  const { code, out, err } = await run(['ca']);
  expect(code).toBe(1);
  expect(out).toBe('');
  expect(err).toContain(`ops ca: SSM parameter ${CA_PARAMETER} holds no CA certificate yet ("pending: the instance`);
  expect(err).toContain('/var/log/cloud-init-output.log');
});

test('--out writes the file instead (the password with mode 0600), printing nothing on stdout', async () => {
  const { ssm, sm } = secureStack();
  ssm.on(GetParameterCommand).resolves({ Parameter: { Name: CA_PARAMETER, Value: PEM } });
  sm.on(GetSecretValueCommand).resolves({ SecretString: 'Zr8kq2mW7xYb' });
  const dir = kitTempDir('minnow-ops-');
  fs.writeFileSync(path.join(dir, 'password'), 'an older one\n', { mode: 0o644 }); // its mode must not stay
  const ca = await run(['ca', '--out', path.join(dir, 'ca.pem')]);
  const password = await run(['password', '--out', path.join(dir, 'password')]);
  expect([ca.code, ca.out, password.code, password.out]).toEqual([0, '', 0, '']);
  expect(fs.readFileSync(path.join(dir, 'ca.pem'), 'utf8')).toBe(`${PEM}\n`);
  expect(fs.readFileSync(path.join(dir, 'password'), 'utf8')).toBe('Zr8kq2mW7xYb\n');
  expect(fs.statSync(path.join(dir, 'password')).mode & 0o777).toBe(0o600);
  expect(password.err).toBe(`ops password: wrote ${path.join(dir, 'password')}`);
});

test('password prints the secret of the secret the stack names', async () => {
  const { sm } = secureStack();
  sm.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({ SecretString: 'Zr8kq2mW7xYb' });
  const result = await run(['password']);
  expect(result).toEqual({ code: 0, out: 'Zr8kq2mW7xYb', err: '' });
});

test('password: access denied on the secret is reported as such', async () => {
  const { sm } = secureStack();
  sm.on(GetSecretValueCommand).rejects(
    Object.assign(new Error('User is not authorized to perform: secretsmanager:GetSecretValue'), {
      name: 'AccessDeniedException',
    }),
  );
  const { code, err } = await run(['password']);
  expect(code).toBe(1);
  expect(err).toBe('ops password: not allowed: User is not authorized to perform: secretsmanager:GetSecretValue');
});

test('a stack deployed with security=off: ca and password say why there is none', async () => {
  mocks(); // outputs without CaCertificateParameter / AdminSecretArn
  const ssm = mockClient(SSMClient);
  for (const command of ['ca', 'password']) {
    const { code, err } = await run([command]);
    expect(code).toBe(1);
    expect(err).toContain(`stack "${STACK}" has no CaCertificateParameter/AdminSecretArn output`);
    expect(err).toContain('-c security=off');
  }
  expect(ssm.calls()).toHaveLength(0);
});
