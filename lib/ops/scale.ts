import {
  DescribeInstanceTypesCommand,
  ModifyInstanceAttributeCommand,
  StartInstancesCommand,
  StopInstancesCommand,
} from '@aws-sdk/client-ec2';
import type { OpsClients, OpsRuntime } from './clients';
import { OpsError } from './errors';
import { describeInstance, waitForState, type InstanceInfo } from './instance';
import { readStackOutputs } from './stack-outputs';

const TYPE_PATTERN = /^[a-z]+\d{1,2}[a-z-]*\.[a-z0-9-]+$/;

/** The deploy that makes the change and keeps the stack the source of truth (the default of `scale`). */
export function scaleCommand(toType: string, stackName: string): string {
  const stack = stackName === 'Minnow' ? '' : ` -c stackName=${stackName}`;
  return `npx cdk deploy${stack} -c allowedCidr=<your CIDR> -c instanceType=${toType}   (plus your other -c values)`;
}

export function checkInstanceType(toType: string): void {
  if (!TYPE_PATTERN.test(toType)) throw new OpsError(`--to "${toType}" is not an EC2 instance type, e.g. t3.small`);
}

/**
 * `scale --to TYPE --apply`: stop, change the type, start, wait for running. Minutes of downtime;
 * the data volume and Elastic IP stay. The stack still says the old type, so the next deploy must
 * pass the new one (-c instanceType=TYPE) or CloudFormation will set the old one back whenever it
 * updates InstanceType.
 */
export async function applyScale(
  clients: OpsClients,
  runtime: OpsRuntime,
  stackName: string,
  toType: string,
  opts: { pollMs?: number } = {},
): Promise<InstanceInfo> {
  checkInstanceType(toType);
  const { instanceId } = await readStackOutputs(clients, stackName);
  const current = await describeInstance(clients, instanceId);
  if (current.type === toType) {
    runtime.log(`${instanceId} is already ${toType}`);
    return current;
  }
  const types = await clients.ec2.send(new DescribeInstanceTypesCommand({ InstanceTypes: [toType as never] }));
  const archs = types.InstanceTypes?.[0]?.ProcessorInfo?.SupportedArchitectures ?? [];
  if (!archs.includes(current.architecture as never)) {
    throw new OpsError(
      `${toType} runs ${archs.join('/') || 'another architecture'}, but the instance's AMI is ${current.architecture}: ` +
        `in-place resizing cannot cross architectures. Deploy instead (a new instance with the right AMI takes over ` +
        `the data volume): ${scaleCommand(toType, stackName)}`,
    );
  }
  const wait = (state: 'running' | 'stopped') =>
    waitForState(clients, runtime, instanceId, state, opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {});

  runtime.log(`stopping ${instanceId} (${current.type})`);
  await clients.ec2.send(new StopInstancesCommand({ InstanceIds: [instanceId] }));
  await wait('stopped');
  runtime.log(`changing the type to ${toType}`);
  await clients.ec2.send(
    new ModifyInstanceAttributeCommand({ InstanceId: instanceId, InstanceType: { Value: toType } }),
  );
  runtime.log(`starting ${instanceId}`);
  await clients.ec2.send(new StartInstancesCommand({ InstanceIds: [instanceId] }));
  return wait('running');
}

const DB_CLASS_PATTERN = /^db\.[a-z]+\d{1,2}[a-z-]*\.[a-z0-9-]+$/;

/** An RDS instance class (db.t4g.small): `scale --to` one changes a cluster's database. */
export const isDatabaseClass = (type: string): boolean => DB_CLASS_PATTERN.test(type);

/**
 * `scale` on a storage=postgres cluster prints the deploy that does it and changes nothing itself:
 * CloudFormation rolls a broker type change through the brokers one at a time (each waits for the
 * one before to run again), which a stop/modify/start here would have to redo; and RDS modifies the
 * database in place. `--apply` is refused with the same advice.
 */
export function clusterScaleAdvice(toType: string, stackName: string, apply: boolean): string {
  const database = isDatabaseClass(toType);
  if (!database) checkInstanceType(toType);
  const flag = database ? `-c dbInstanceType=${toType}` : `-c instanceType=${toType}`;
  const what = database
    ? `To change the database of cluster ${stackName} to ${toType} (RDS modifies it in place: minutes of ` +
      'downtime single-AZ, a failover of 1-2 minutes with Multi-AZ; the brokers answer retriable errors meanwhile)'
    : `To change the brokers of cluster ${stackName} to ${toType} (CloudFormation stops, modifies and starts them ` +
      'one at a time, each once the one before runs again, so the others serve meanwhile; the database stays)';
  const command =
    `  npx cdk deploy -c stackName=${stackName} -c storage=postgres ${flag}   ` +
    '(plus your other -c values: availabilityZones, allowedCidr, ...)';
  const other = database
    ? `The brokers' type: --to t3.small prints that deploy.`
    : `The database's class: --to db.t4g.small prints that deploy.`;
  const refusal = apply
    ? 'scale --apply works on single-instance stacks only: stopping brokers behind CloudFormation would leave ' +
      'the stack naming another type. '
    : '';
  return `${refusal}${what}, deploy:\n\n${command}\n\n${other}`;
}
