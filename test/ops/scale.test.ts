import {
  DescribeInstanceTypesCommand,
  ModifyInstanceAttributeCommand,
  StartInstancesCommand,
  StopInstancesCommand,
} from '@aws-sdk/client-ec2';
import { applyScale } from '../../lib/ops/scale';
import {
  DescribeInstancesCommand,
  INSTANCE_ID,
  STACK,
  clients,
  fakeRuntime,
  instanceResponse,
  mocks,
} from './fixtures';

test('scale --apply: stop, wait, modify, start, wait; returns the new state', async () => {
  const { ec2 } = mocks();
  ec2
    .on(DescribeInstancesCommand)
    .resolvesOnce(instanceResponse('running')) // current type
    .resolvesOnce(instanceResponse('stopping'))
    .resolvesOnce(instanceResponse('stopped'))
    .resolvesOnce(instanceResponse('pending', 't3.small'))
    .resolves(instanceResponse('running', 't3.small'));
  ec2
    .on(DescribeInstanceTypesCommand)
    .resolves({ InstanceTypes: [{ ProcessorInfo: { SupportedArchitectures: ['x86_64'] } }] });
  const runtime = fakeRuntime();

  const info = await applyScale(clients(), runtime, STACK, 't3.small', { pollMs: 5000 });
  expect(info).toMatchObject({ state: 'running', type: 't3.small' });
  expect(ec2.commandCalls(StopInstancesCommand)[0]?.args[0].input).toEqual({ InstanceIds: [INSTANCE_ID] });
  expect(ec2.commandCalls(ModifyInstanceAttributeCommand)[0]?.args[0].input).toEqual({
    InstanceId: INSTANCE_ID,
    InstanceType: { Value: 't3.small' },
  });
  expect(ec2.commandCalls(StartInstancesCommand)).toHaveLength(1);
  expect(runtime.lines).toEqual([
    `stopping ${INSTANCE_ID} (t3.micro)`,
    `  ${INSTANCE_ID}: stopping`,
    `  ${INSTANCE_ID}: stopped`,
    'changing the type to t3.small',
    `starting ${INSTANCE_ID}`,
    `  ${INSTANCE_ID}: pending`,
    `  ${INSTANCE_ID}: running`,
  ]);
});

test('refuses to cross architectures in place, pointing at cdk deploy', async () => {
  const { ec2 } = mocks();
  ec2.on(DescribeInstancesCommand).resolves(instanceResponse('running'));
  ec2
    .on(DescribeInstanceTypesCommand)
    .resolves({ InstanceTypes: [{ ProcessorInfo: { SupportedArchitectures: ['arm64'] } }] });
  await expect(applyScale(clients(), fakeRuntime(), STACK, 't4g.small')).rejects.toThrow(
    /t4g\.small runs arm64, but the instance's AMI is x86_64.*npx cdk deploy .*-c instanceType=t4g\.small/,
  );
  expect(ec2.commandCalls(StopInstancesCommand)).toHaveLength(0);
});

test('already that type: nothing to do', async () => {
  const { ec2 } = mocks();
  ec2.on(DescribeInstancesCommand).resolves(instanceResponse('running', 't3.small'));
  await expect(applyScale(clients(), fakeRuntime(), STACK, 't3.small')).resolves.toMatchObject({ type: 't3.small' });
  expect(ec2.commandCalls(StopInstancesCommand)).toHaveLength(0);
});
