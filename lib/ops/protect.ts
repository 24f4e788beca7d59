import { SetStackPolicyCommand } from '@aws-sdk/client-cloudformation';
import type { OpsClients } from './clients';

/**
 * The stack policy `ops protect` sets: every update is allowed except replacing or deleting an
 * AWS::EC2::Volume (the stack's only one is the data volume). A deploy that would do either (a new
 * zone, snapshot or key, a removed volume) then fails and rolls back, and the volume stays. Stack
 * policies apply to updates only: `cdk destroy` still works (and leaves a final snapshot).
 * See "Prevent updates to stack resources" in the CloudFormation user guide.
 */
export const PROTECT_DATA_VOLUME_POLICY = {
  Statement: [
    { Effect: 'Allow', Action: 'Update:*', Principal: '*', Resource: '*' },
    {
      Effect: 'Deny',
      Action: ['Update:Replace', 'Update:Delete'],
      Principal: '*',
      Resource: '*',
      Condition: { StringEquals: { ResourceType: ['AWS::EC2::Volume'] } },
    },
  ],
} as const;

/** A stack policy cannot be removed, only replaced: this one allows every update again. */
export const ALLOW_ALL_POLICY = {
  Statement: [{ Effect: 'Allow', Action: 'Update:*', Principal: '*', Resource: '*' }],
} as const;

export async function setDataVolumeProtection(clients: OpsClients, stackName: string, on: boolean): Promise<string> {
  const policy = on ? PROTECT_DATA_VOLUME_POLICY : ALLOW_ALL_POLICY;
  await clients.cloudformation.send(
    new SetStackPolicyCommand({ StackName: stackName, StackPolicyBody: JSON.stringify(policy) }),
  );
  return on
    ? `stack "${stackName}": CloudFormation now refuses any update that would replace or delete the data volume ` +
        '(the deploy fails with "Action denied by stack policy" and rolls back)'
    : `stack "${stackName}": the data volume may be replaced by the next deploy (a final snapshot is kept); ` +
        'run `npm run ops -- protect` again afterwards';
}
