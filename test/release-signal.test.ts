import { App, CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { type BootIdentity, ReleaseSignal } from '../lib/constructs/release-signal';
import { only, synthTemplate, userDataText } from './helpers/synth';
import { waitsFor } from './helpers/template-graph';
import { kitTempDir } from './helpers/temp-dirs';

// Every restart or replacement of the broker waits for the boot it causes (issue 14 item 6, issue 28).
// The image is always a literal AMI id remembered in cdk.context.json; these tests pin one.
const AMI = { amiId: 'ami-0123456789abcdef0' } as const;

interface Boot {
  readonly handleId: string;
  readonly conditionId: string;
  readonly associationDependsOn: unknown;
  readonly instance: Record<string, unknown>;
  readonly template: Template;
}
const bootOf = (template: Template): Boot => {
  const [handleId] = only(template, 'AWS::CloudFormation::WaitConditionHandle');
  const [conditionId] = only(template, 'AWS::CloudFormation::WaitCondition');
  const [, association] = only(template, 'AWS::EC2::EIPAssociation');
  const [, instance] = only(template, 'AWS::EC2::Instance');
  return { handleId, conditionId, associationDependsOn: association.DependsOn, instance, template };
};

let base: Boot;
beforeAll(() => {
  base = bootOf(synthTemplate(AMI));
});

test("one wait condition and handle with the boot's hash in both ids, waiting 60 min from the deploy's start", () => {
  const [, condition] = only(base.template, 'AWS::CloudFormation::WaitCondition');
  const hash = /^BrokerReleaseHandle([0-9a-f]{16})[0-9A-F]{8}$/.exec(base.handleId)?.[1];
  expect(hash).toBeDefined();
  expect(base.conditionId).toMatch(new RegExp(`^BrokerReleaseBoot${hash}[0-9A-F]{8}$`));
  expect(condition.Properties).toEqual({ Handle: { Ref: base.handleId }, Timeout: '3600', Count: 1 });
  expect(condition.DependsOn).toBeUndefined(); // listening before the instance boots
});

test('the user data hands the boot the handle URL', () => {
  expect(userDataText(base.template, { [`"Ref":"${base.handleId}"`]: '<handle-url>' })).toContain(
    "MINNOW_SIGNAL_URL='<handle-url>'\n",
  );
});

test('the instance needs no CloudFormation permission to signal (the handle is a presigned URL)', () => {
  const policies = JSON.stringify(base.template.findResources('AWS::IAM::Policy'));
  expect(policies).not.toContain('cloudformation:');
});

test('the Elastic IP moves to the instance only once its broker answered (and no cycle: Template.fromJSON checks)', () => {
  const [associationId] = only(base.template, 'AWS::EC2::EIPAssociation');
  const [instanceId] = only(base.template, 'AWS::EC2::Instance');
  expect(base.associationDependsOn).toEqual([base.conditionId]);
  expect(waitsFor(base.template, base.conditionId, instanceId)).toBe(false);
  expect(waitsFor(base.template, base.conditionId, associationId)).toBe(false);
});

// Each of these restarts (stop/start) or replaces the instance: the deploy must wait for that boot.
test.each([
  ['logLevel', 'debug'],
  ['cpuCredits', 'unlimited'],
  ['instanceType', 't3.small'],
  ['security', 'off'],
  ['amiId', 'ami-0fedcba9876543210'],
])('-c %s=%s: a new handle and condition, named in the user data, before the Elastic IP moves', (key, value) => {
  const changed = bootOf(synthTemplate({ ...AMI, [key]: value }));
  expect(changed.conditionId).not.toBe(base.conditionId);
  expect(changed.handleId).not.toBe(base.handleId);
  expect(JSON.stringify(changed.instance.Properties)).toContain(`{"Ref":"${changed.handleId}"}`);
  expect(changed.associationDependsOn).toEqual([changed.conditionId]);
});

// These do not touch the boot: the same ids, so the same user data, so no restart.
test.each([
  ['alarmEmail', 'ops@example.com'],
  ['logRetentionDays', 90],
  ['snapshotRetentionDays', 14],
])('-c %s=%s: the same handle and condition, the instance unchanged', (key, value) => {
  const same = bootOf(synthTemplate({ ...AMI, [key]: value }));
  expect(same.conditionId).toBe(base.conditionId);
  expect(same.handleId).toBe(base.handleId);
  expect(same.instance).toEqual(base.instance);
});

describe('the boot identity', () => {
  const identity: BootIdentity = {
    releaseId: 'a'.repeat(64),
    installSettings: ["MINNOW_LOG_LEVEL='info'"],
    installer: '#!/bin/bash\n',
    imageId: 'ami-0123456789abcdef0',
    instanceType: 't3.micro',
  };
  const conditionId = (boot: BootIdentity, before = 0): string => {
    const stack = new Stack(new App({ outdir: kitTempDir('minnow-cdk-') }), 'S');
    // Tokens minted before shift every later token's string form; the hash must not see that.
    for (let i = 0; i < before; i++) void new CfnResource(stack, `Other${i}`, { type: 'AWS::SNS::Topic' }).ref;
    const topic = new CfnResource(stack, 'Topic', { type: 'AWS::SNS::Topic' });
    new ReleaseSignal(stack, 'Release', {
      boot: { ...boot, installSettings: [...boot.installSettings, `MINNOW_TOPIC='${topic.ref}'`] },
    });
    const [id] = only(Template.fromStack(stack), 'AWS::CloudFormation::WaitCondition');
    return id;
  };

  test.each<[string, Partial<BootIdentity>]>([
    ['a release (the broker asset)', { releaseId: 'b'.repeat(64) }],
    ['a setting', { installSettings: ["MINNOW_LOG_LEVEL='debug'"] }],
    ['the installer', { installer: '#!/bin/bash\nexit 0\n' }],
    ['the image', { imageId: 'ami-0fedcba9876543210' }],
    ['the instance type', { instanceType: 't3.small' }],
  ])('%s changes the ids', (_what, change) => {
    expect(conditionId({ ...identity, ...change })).not.toBe(conditionId(identity));
  });

  test('tokens are hashed resolved: the same template gives the same ids whatever was built before', () => {
    expect(conditionId(identity, 3)).toBe(conditionId(identity, 0));
  });
});
