import { App } from 'aws-cdk-lib';
import { readConfig } from '../lib/config';
import { REMEMBERED_IMAGE, TEST_AMI_ID } from './helpers/synth';
import { kitTempDir } from './helpers/temp-dirs';

// availabilityZone and the image have no default (see test/data-volume.test.ts, test/image-config.test.ts);
// the tests here are about the others.
const read = (context: Record<string, unknown>) =>
  readConfig(
    new App({
      outdir: kitTempDir('minnow-cdk-'),
      context: { availabilityZone: 'eu-west-2a', ...REMEMBERED_IMAGE, ...context },
    }).node,
  );

test('defaults: t3.micro, 20 GiB, standard credits, info logs, security on, no snapshot/email; the pinned image', () => {
  expect(read({ allowedCidr: '198.51.100.7/32' })).toEqual({
    allowedCidr: '198.51.100.7/32',
    allowPublic: false,
    instanceType: 't3.micro',
    dataVolumeGiB: 20,
    cpuCredits: 'standard',
    logLevel: 'info',
    security: 'on',
    amiId: TEST_AMI_ID,
    amiArchitecture: 'x86_64',
    availabilityZone: 'eu-west-2a',
    snapshotRetentionDays: 7,
    logRetentionDays: 30,
  });
});

test('every value, as the CLI passes them (strings)', () => {
  expect(
    read({
      allowedCidr: '0.0.0.0/0',
      allowPublic: 'true',
      instanceType: 'm7g.large',
      dataVolumeGiB: '100',
      dataSnapshotId: 'snap-0123456789abcdef0',
      alarmEmail: 'ops@example.com',
      cpuCredits: 'unlimited',
      amiId: 'ami-0123456789abcdef0',
      logLevel: 'debug',
      security: 'off',
      dataVolumeKmsKeyArn: 'arn:aws:kms:eu-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      snapshotRetentionDays: '0',
    }),
  ).toEqual({
    allowedCidr: '0.0.0.0/0',
    allowPublic: true,
    instanceType: 'm7g.large',
    dataVolumeGiB: 100,
    dataSnapshotId: 'snap-0123456789abcdef0',
    alarmEmail: 'ops@example.com',
    cpuCredits: 'unlimited',
    amiId: 'ami-0123456789abcdef0',
    amiArchitecture: 'arm64',
    logLevel: 'debug',
    security: 'off',
    availabilityZone: 'eu-west-2a',
    dataVolumeKmsKeyArn: 'arn:aws:kms:eu-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    snapshotRetentionDays: 0,
    logRetentionDays: 30,
  });
});

test('cdk.json may hold real booleans and numbers', () => {
  const config = read({ allowedCidr: '0.0.0.0/0', allowPublic: true, dataVolumeGiB: 30 });
  expect(config.allowPublic).toBe(true);
  expect(config.dataVolumeGiB).toBe(30);
});

test.each([
  [{}, /missing context value allowedCidr/],
  [{ allowedCidr: '203.0.113.7' }, /not a CIDR block.*203\.0\.113\.7\/32/],
  [{ allowedCidr: '300.1.1.1/32' }, /not a CIDR block/],
  [{ allowedCidr: '0.0.0.0/0' }, /opens port 9093 to the whole internet: clients still need TLS.*allowPublic=true/],
  [{ allowedCidr: '0.0.0.0/0', security: 'off' }, /port 9092 .*security=off the broker has no authentication/],
  [{ allowedCidr: '10.0.0.0/8', security: 'false' }, /security="false" must be on .* or off/],
  [{ allowedCidr: '::/0', allowPublic: true }, /IPv6 block, but the stack's VPC and instance have IPv4 only.*curl -4/],
  [{ allowedCidr: '2001:db8::1/128' }, /allowedCidr="2001:db8::1\/128" is an IPv6 block/],
  [{ allowedCidr: '0.0.0.0/0', allowPublic: 'yes' }, /allowPublic="yes" is not a boolean/],
  [{ allowedCidr: '10.0.0.0/8', instanceType: 'micro' }, /instanceType="micro" is not an EC2 instance type/],
  [{ allowedCidr: '10.0.0.0/8', dataVolumeGiB: '0' }, /dataVolumeGiB="0" must be a whole number/],
  [{ allowedCidr: '10.0.0.0/8', dataVolumeGiB: '1.5' }, /dataVolumeGiB/],
  [{ allowedCidr: '10.0.0.0/8', dataSnapshotId: 'vol-123' }, /dataSnapshotId="vol-123" is not a snapshot id/],
  [{ allowedCidr: '10.0.0.0/8', alarmEmail: 'nobody' }, /alarmEmail="nobody" is not an email address/],
  [{ allowedCidr: '10.0.0.0/8', cpuCredits: 'burst' }, /cpuCredits="burst" must be standard or unlimited/],
  [{ allowedCidr: '10.0.0.0/8', amiId: 'al2023' }, /amiId="al2023" is not an AMI id/],
  [{ allowedCidr: '10.0.0.0/8', logLevel: 'loud' }, /logLevel="loud" must be one of/],
  [{ allowedCidr: '10.0.0.0/8', logRetentionDays: '10' }, /logRetentionDays="10" is not a retention .* 7, 14, 30/],
])('refuses %j', (context, message) => {
  expect(() => read(context)).toThrow(message);
});

test('logRetentionDays: a retention CloudWatch Logs accepts, as a string or a number', () => {
  expect(read({ allowedCidr: '10.0.0.0/8', logRetentionDays: '7' }).logRetentionDays).toBe(7);
  expect(read({ allowedCidr: '10.0.0.0/8', logRetentionDays: 365 }).logRetentionDays).toBe(365);
});
