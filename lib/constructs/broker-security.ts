import { SecretValue, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';

/** The CA parameter's value until the instance has generated its CA and published it (first boot). */
export const CA_PENDING =
  'pending: the instance publishes its CA certificate here on first boot (a few minutes after the deploy)';

/** The Kafka user the broker creates from the secret on first start (MINNOW_ADMIN_USER). */
export const ADMIN_USER = 'admin';

/**
 * What the secure stack adds around the broker: the admin password, generated into Secrets
 * Manager, and an SSM parameter the instance publishes its self-signed CA certificate to, so
 * `npm run ops -- password` and `npm run ops -- ca` can hand both to clients. The instance role may
 * read that one secret and read/write that one parameter, nothing else (grantInstance).
 */
export interface BrokerSecurityProps {
  /**
   * Several brokers (storage=postgres): one CA for all, so clients trust one ca.pem. Broker 1 puts
   * the CA's key and certificate into this secret on its first boot; the others wait for it and
   * issue their own server certificates from it (deploy/security.sh).
   * @default false: each instance keeps its own CA on its data volume
   */
  readonly sharedCa?: boolean;
}

export class BrokerSecurity extends Construct {
  readonly adminSecret: secretsmanager.Secret;
  readonly caParameter: ssm.StringParameter;
  /** With sharedCa: the CA's key and certificate (PEM), written by broker 1. */
  readonly caSecret?: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: BrokerSecurityProps = {}) {
    super(scope, id);
    this.adminSecret = new secretsmanager.Secret(this, 'AdminPassword', {
      description: `minnow: password of the Kafka user "${ADMIN_USER}" (SCRAM/PLAIN over SASL_SSL); npm run ops -- password`,
      generateSecretString: {
        // 32 letters and digits: about 190 bits, and nothing that needs quoting in a client config.
        passwordLength: 32,
        excludePunctuation: true,
        includeSpace: false,
      },
    });
    Validations.of(this.adminSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The broker keeps its own salted SCRAM credential for admin, which the instance resets from this secret ' +
        'at boot only (deploy/security.sh): a rotation Lambda would change the secret while the running broker ' +
        'keeps the old password, breaking every client until the next boot. Change it by hand: the secret, then ' +
        'a boot or minnow-install (docs/connect-aws.md).',
    });

    // CloudFormation owns the parameter (deleted with the stack, named so two stacks never collide)
    // but not its value: an update that touches this resource puts the placeholder back, and the
    // instance republishes its CA on its next boot (deploy/security.sh compares on every boot).
    this.caParameter = new ssm.StringParameter(this, 'CaCertificate', {
      description: 'minnow: the PEM CA certificate clients trust for the SASL_SSL listener; npm run ops -- ca',
      stringValue: CA_PENDING,
      tier: ssm.ParameterTier.STANDARD,
    });

    if (props.sharedCa) {
      // Not a secret value: a placeholder the first broker replaces (PutSecretValue). CloudFormation
      // never writes it again unless this resource's properties change.
      this.caSecret = new secretsmanager.Secret(this, 'SharedCa', {
        description: "minnow: the brokers' shared CA key and certificate (PEM), created by broker 1 on first boot",
        secretStringValue: SecretValue.unsafePlainText(CA_PENDING),
      });
      Validations.of(this.caSecret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The CA key is generated on an instance, not by a rotation Lambda; rotating it would invalidate the ca.pem ' +
          'every client trusts. Replace it by deleting the secret value and rebooting broker 1 (docs/postgres.md).',
      });
    }
  }

  /** Read the admin secret; read and write the CA parameter. Exact ARNs, no wildcards. */
  grantInstance(role: iam.IRole): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [this.adminSecret.secretArn],
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['ssm:GetParameter', 'ssm:PutParameter'],
        resources: [this.caParameter.parameterArn],
      }),
    );
    if (this.caSecret) {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
          resources: [this.caSecret.secretArn],
        }),
      );
    }
  }
}
