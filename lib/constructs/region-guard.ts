import { Aws, CfnRule, Fn } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

export interface RegionGuardProps {
  /** The zone cdk.context.json remembers for the stack (a cluster: its first zone). */
  readonly availabilityZone: string;
  /** The pinned image, which exists in one region only. */
  readonly amiId: string;
  readonly stackName: string;
}

const AZ = /^([a-z]{2}(?:-[a-z]+)+-\d+)[a-z]$/;

/** The region of a zone name: eu-west-2a is in eu-west-2. */
export function regionOfZone(zone: string): string {
  const region = AZ.exec(zone)?.[1];
  if (region === undefined) throw new Error(`"${zone}" is not an availability zone name like eu-west-2a`);
  return region;
}

/**
 * A template rule (CloudFormation evaluates Rules before it creates or changes anything:
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/rules-section-structure.html)
 * asserting that the deploy targets the region of the remembered zone. The app is env-agnostic, so
 * without it a deploy with another profile or AWS_REGION would create a second stack elsewhere, and
 * fail late on the zone or the AMI id (both are regional). A rule's AssertDescription is a plain
 * string, so it cannot print the region the deploy targets; the stack events show it.
 */
export function addRegionGuard(scope: Construct, props: RegionGuardProps): CfnRule {
  const region = regionOfZone(props.availabilityZone);
  return new CfnRule(scope, 'RegionMatchesZone', {
    assertions: [
      {
        assert: Fn.conditionEquals(Aws.REGION, region),
        assertDescription:
          `this stack's zone ${props.availabilityZone} is in ${region}, and so is its image ${props.amiId} (AMI ids ` +
          `are regional), but the deploy targets another region. Deploy to ${region} (--profile, or ` +
          `AWS_REGION=${region} / AWS_DEFAULT_REGION=${region}); for a stack in another region, use another ` +
          `stackName and run npm run ops -- preflight --stack <name> --region <region> first ` +
          `(cdk.context.json keys minnow:${props.stackName}:* belong to ${region}).`,
      },
    ],
  });
}
