import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EC2Client } from '@aws-sdk/client-ec2';
import { RDSClient } from '@aws-sdk/client-rds';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';

/** The AWS clients the ops commands use; tests pass mocked ones. */
export interface OpsClients {
  readonly ec2: EC2Client;
  readonly cloudwatch: CloudWatchClient;
  readonly cloudformation: CloudFormationClient;
  readonly ssm: SSMClient;
  readonly secretsManager: SecretsManagerClient;
  /** The storage=postgres cluster's database (status, snapshot). */
  readonly rds: RDSClient;
}

/** Where the clients send their requests, when not to AWS itself. */
export interface ClientOptions {
  /**
   * An AWS API emulator (test/ops/emulator runs the commands against moto's server this way).
   * Without it the SDK's own endpoint settings apply: AWS_ENDPOINT_URL and
   * AWS_ENDPOINT_URL_<SERVICE> also work for `npm run ops`
   * (https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html).
   */
  readonly endpoint?: string;
}

/** Clients from the standard credential chain (AWS_PROFILE, env vars, SSO, ...). */
export function createClients(region?: string, options: ClientOptions = {}): OpsClients {
  const config = { ...(region && { region }), ...(options.endpoint && { endpoint: options.endpoint }) };
  return {
    ec2: new EC2Client(config),
    cloudwatch: new CloudWatchClient(config),
    cloudformation: new CloudFormationClient(config),
    ssm: new SSMClient(config),
    secretsManager: new SecretsManagerClient(config),
    rds: new RDSClient(config),
  };
}

/** Injected so tests never wait: how to sleep and where progress lines go. */
export interface OpsRuntime {
  readonly sleep: (ms: number) => Promise<void>;
  readonly log: (line: string) => void;
  readonly now: () => Date;
}

export const defaultRuntime: OpsRuntime = {
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  log: (line) => console.error(line),
  now: () => new Date(),
};
