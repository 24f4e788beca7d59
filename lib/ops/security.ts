import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import type { OpsClients } from './clients';
import { OpsError } from './errors';
import { readSecurityOutputs } from './stack-outputs';

const PEM_CERTIFICATE = /^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n?$/;

/**
 * The PEM CA certificate the instance generated on first boot and published to the stack's SSM
 * parameter; clients trust it for the SASL_SSL listener (`npm run ops -- ca > ca.pem`).
 */
export async function fetchCaCertificate(clients: OpsClients, stackName: string): Promise<string> {
  const { caParameterName } = await readSecurityOutputs(clients, stackName);
  const response = await clients.ssm.send(new GetParameterCommand({ Name: caParameterName }));
  const value = (response.Parameter?.Value ?? '').trim();
  if (!PEM_CERTIFICATE.test(value)) {
    throw new OpsError(
      `SSM parameter ${caParameterName} holds no CA certificate yet ("${value.slice(0, 60)}"): the instance ` +
        'publishes it on first boot, a few minutes after the deploy. If it stays so, read ' +
        '/var/log/cloud-init-output.log on the instance (npm run ops -- status, then the SSM session command).',
    );
  }
  return value;
}

/** The password of the Kafka user admin, from the stack's Secrets Manager secret. */
export async function fetchAdminPassword(clients: OpsClients, stackName: string): Promise<string> {
  const { adminSecretArn } = await readSecurityOutputs(clients, stackName);
  const response = await clients.secretsManager.send(new GetSecretValueCommand({ SecretId: adminSecretArn }));
  const password = response.SecretString;
  if (!password) throw new OpsError(`secret ${adminSecretArn} has no string value`);
  return password;
}
