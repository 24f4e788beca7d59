import { Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';

export interface ClusterNetworkProps {
  /** Literal zone names, chosen by the deployer (never Fn::GetAZs, whose answer may change). */
  readonly availabilityZones: readonly string[];
}

/**
 * The network of several brokers on one database (storage=postgres): per zone a public subnet for
 * the brokers (each with its Elastic IP, as the single instance has) and an isolated one for the
 * database, which has no route out at all. No NAT gateway: it would cost more than a broker.
 */
export class ClusterNetwork extends Construct {
  readonly vpc: ec2.Vpc;
  readonly internetGatewayAttachment: ec2.CfnVPCGatewayAttachment;

  constructor(scope: Construct, id: string, props: ClusterNetworkProps) {
    super(scope, id);
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      // Eight /26 subnets: a public and an isolated one in each of up to four zones.
      ipAddresses: ec2.IpAddresses.cidr('10.42.0.0/23'),
      availabilityZones: [...props.availabilityZones],
      natGateways: 0,
      subnetConfiguration: [
        { name: 'Public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 26 },
        { name: 'Database', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 26 },
      ],
      restrictDefaultSecurityGroup: false,
    });
    this.internetGatewayAttachment = this.vpc.node.findChild('VPCGW') as ec2.CfnVPCGatewayAttachment;
    Validations.of(this.vpc).acknowledge({
      id: 'AwsSolutions-VPC7',
      reason:
        'Flow logs are billed per GB ingested into CloudWatch Logs; the only ingress is the Kafka port from ' +
        "allowedCidr and 5432 between the stack's own security groups. Add ec2.FlowLog for an audit trail.",
    });
  }

  /** The public subnet of the broker with this node id: round-robin over the zones. */
  brokerSubnet(nodeId: number): ec2.ISubnet {
    const subnets = this.vpc.publicSubnets;
    const subnet = subnets[(nodeId - 1) % subnets.length];
    if (!subnet) throw new Error('the VPC has no public subnet');
    return subnet;
  }
}
