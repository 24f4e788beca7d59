import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ReleaseSignal } from '../lib/constructs/release-signal';
import { logicalIds, only, synth, userDataText, type Synth } from './helpers/synth';

// Every deploy that changes the broker waits for the boot that installs it (issue 14, item 6).
let s: Synth;
beforeAll(() => {
  s = synth();
});

test("one wait condition and handle, named after the release, waiting 60 min from the deploy's start", () => {
  const releaseId = userDataText(s.template).match(/\/([0-9a-f]{64})\.zip'/)?.[1];
  expect(releaseId).toBeDefined();
  const [handleId] = only(s.template, 'AWS::CloudFormation::WaitConditionHandle');
  const [conditionId, condition] = only(s.template, 'AWS::CloudFormation::WaitCondition');
  expect(handleId).toContain(releaseId!.slice(0, 16));
  expect(conditionId).toContain(releaseId!.slice(0, 16));
  expect(condition.Properties).toEqual({ Handle: { Ref: handleId }, Timeout: '3600', Count: 1 });
  expect(condition.DependsOn).toBeUndefined(); // listening before the instance boots
});

test('the user data hands the boot the handle URL', () => {
  const [handleId] = only(s.template, 'AWS::CloudFormation::WaitConditionHandle');
  expect(userDataText(s.template, { [`"Ref":"${handleId}"`]: '<handle-url>' })).toContain(
    "MINNOW_SIGNAL_URL='<handle-url>'\n",
  );
});

test('the instance needs no CloudFormation permission to signal (the handle is a presigned URL)', () => {
  const policies = JSON.stringify(s.template.findResources('AWS::IAM::Policy'));
  expect(policies).not.toContain('cloudformation:');
});

test('another release gets a new handle and condition (CloudFormation cannot update either)', () => {
  const stack = new Stack(new App(), 'S');
  new ReleaseSignal(stack, 'A', { releaseId: 'a'.repeat(64) });
  new ReleaseSignal(stack, 'B', { releaseId: 'b'.repeat(64) });
  const template = Template.fromStack(stack);
  const ids = logicalIds(template, 'AWS::CloudFormation::WaitCondition');
  expect(ids).toHaveLength(2);
  expect(ids.some((id) => id.includes('a'.repeat(16)))).toBe(true);
  expect(ids.some((id) => id.includes('b'.repeat(16)))).toBe(true);
});
