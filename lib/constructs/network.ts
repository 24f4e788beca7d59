import { Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';

export interface NetworkProps {
  /**
   * The subnet's zone, a literal chosen once (config.availabilityZone), never Fn::GetAZs, whose list
   * and order AWS does not guarantee: a different answer would move the subnet, instance and volume.
   */
  readonly availabilityZone: string;
  /**
   * CIDR of the VPC.
   * @default '10.42.0.0/24'
   */
  readonly cidr?: string;
}

/**
 * A VPC of its own with one public subnet in one AZ and no NAT gateway: the broker needs a public
 * address anyway, and a NAT gateway would cost more per month than the t3.micro itself. No lookups,
 * so `cdk synth` needs no AWS credentials.
 */
export class Network extends Construct {
  readonly vpc: ec2.Vpc;
  readonly subnet: ec2.ISubnet;
  /** The internet gateway's attachment to the VPC (an Elastic IP must be created after it). */
  readonly internetGatewayAttachment: ec2.CfnVPCGatewayAttachment;

  constructor(scope: Construct, id: string, props: NetworkProps) {
    super(scope, id);
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      ipAddresses: ec2.IpAddresses.cidr(props.cidr ?? '10.42.0.0/24'),
      availabilityZones: [props.availabilityZone],
      natGateways: 0,
      subnetConfiguration: [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 26 }],
      // The default SG is unused; restricting it needs a Lambda-backed custom resource we'd rather not ship.
      restrictDefaultSecurityGroup: false,
    });
    const subnet = this.vpc.publicSubnets[0];
    if (!subnet) throw new Error('the VPC has no public subnet');
    this.subnet = subnet;
    this.internetGatewayAttachment = this.vpc.node.findChild('VPCGW') as ec2.CfnVPCGatewayAttachment;

    Validations.of(this.vpc).acknowledge({
      id: 'AwsSolutions-VPC7',
      reason:
        'Flow logs are billed per GB ingested into CloudWatch Logs, which a free-tier deployment should not pay for by ' +
        'default; the only ingress is TCP 9092 from allowedCidr. Add ec2.FlowLog if you need an audit trail.',
    });
  }
}
