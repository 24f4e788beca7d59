import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ec2 from 'aws-cdk-lib/aws-ec2';

/** Where the plain-shell installer lives; it is embedded verbatim in the user data. */
export const INSTALL_SCRIPT_PATH = path.join(__dirname, '..', 'broker', 'deploy', 'install.sh');

/** The multipart boundary. Fixed, so the template (and its snapshot) is stable. */
const BOUNDARY = 'MINNOW-USER-DATA-BOUNDARY';

export interface BrokerUserDataProps {
  /** s3:// URL of the broker asset zip (a token until deploy). */
  readonly assetUrl: string;
  /** The address clients are told to use: the Elastic IP (a token until deploy). */
  readonly advertisedHost: string;
  /** The data volume's id (a token until deploy). */
  readonly dataVolumeId: string;
  /** The public port. @default 9093 with security, 9092 without */
  readonly port?: number;
  /**
   * TLS and SASL on the public port, plaintext on loopback only: where the instance publishes its CA
   * certificate and reads the admin password. Without it the broker speaks plaintext to everyone
   * who reaches the port (-c security=off).
   */
  readonly security?: {
    /** The SSM parameter (name) the instance writes its CA certificate to. */
    readonly caParameterName: string;
    /** The Secrets Manager secret (ARN) holding the admin password. */
    readonly adminSecretArn: string;
    /** Several brokers: the secret (ARN) holding their shared CA (deploy/security.sh). @default - a CA per instance */
    readonly caSecretArn?: string;
  };
  /** NODE_ID of this broker (storage=postgres: 1..N). @default - the broker's own */
  readonly nodeId?: number;
  /**
   * storage=postgres: the RDS secret (ARN) the boot reads into STORAGE_ENGINE (deploy/postgres.sh),
   * so no password is ever in the user data. @default - SQLite on the data volume
   */
  readonly databaseSecretArn?: string;
  /** @default 'info' */
  readonly logLevel?: string;
  /**
   * The CloudWatch agent's destinations (broker/deploy/observe.sh): the broker's journal and the
   * scraped metrics' EMF events. @default - no agent
   */
  readonly monitoring?: { readonly brokerLogGroup: string; readonly metricsLogGroup: string };
  /**
   * The credit mode the instance switches itself to once the broker answers (it launches unlimited
   * so that the first boot is not throttled). @default - not a burstable type: nothing to switch
   */
  readonly cpuCredits?: string;
  /** The release's wait condition handle (presigned URL) the boot signals; none: no signal. */
  readonly signalUrl?: string;
  /** @default INSTALL_SCRIPT_PATH */
  readonly installScriptPath?: string;
}

/** install.sh as the user data embeds it; refused if it contains the heredoc terminator. */
export function readInstaller(installScriptPath: string = INSTALL_SCRIPT_PATH): string {
  const installer = fs.readFileSync(installScriptPath, 'utf8');
  if (installer.includes('\nMINNOW_INSTALL\n')) {
    throw new Error('install.sh contains the heredoc terminator MINNOW_INSTALL on a line of its own');
  }
  return installer;
}

/**
 * The lines of /etc/minnow/install.env but MINNOW_SIGNAL_URL (tokens until deploy): what the boot
 * is told. The release signal's identity hashes them (release-signal.ts), and the signal URL is the
 * one setting it cannot hash, as the URL is the handle it names.
 */
export function installSettings(props: Omit<BrokerUserDataProps, 'signalUrl' | 'installScriptPath'>): string[] {
  const { security } = props;
  return [
    `MINNOW_ASSET_URL='${props.assetUrl}'`,
    `MINNOW_ADVERTISED_HOST='${props.advertisedHost}'`,
    `MINNOW_DATA_VOLUME_ID='${props.dataVolumeId}'`,
    `MINNOW_PORT='${props.port ?? (security ? 9093 : 9092)}'`,
    `MINNOW_LOG_LEVEL='${props.logLevel ?? 'info'}'`,
    `MINNOW_SECURITY='${security ? 'on' : 'off'}'`,
    ...(security
      ? [`MINNOW_CA_PARAMETER='${security.caParameterName}'`, `MINNOW_ADMIN_SECRET_ID='${security.adminSecretArn}'`]
      : []),
    ...(props.monitoring
      ? [
          `MINNOW_LOG_GROUP='${props.monitoring.brokerLogGroup}'`,
          `MINNOW_METRICS_LOG_GROUP='${props.monitoring.metricsLogGroup}'`,
        ]
      : []),
    ...(props.cpuCredits !== undefined ? [`MINNOW_CPU_CREDITS='${props.cpuCredits}'`] : []),
    ...(security?.caSecretArn !== undefined ? [`MINNOW_CA_SECRET_ID='${security.caSecretArn}'`] : []),
    ...(props.nodeId !== undefined ? [`MINNOW_NODE_ID='${props.nodeId}'`] : []),
    ...(props.databaseSecretArn !== undefined ? [`MINNOW_DATABASE_SECRET_ID='${props.databaseSecretArn}'`] : []),
  ];
}

/**
 * User data that runs broker/deploy/install.sh on every boot, not only the first.
 *
 * Why every boot: CloudFormation applies a changed user data (a new broker asset) and a changed
 * instance type by stopping and starting the instance, and cloud-init runs plain user data only
 * once per instance. The cloud-config part sets `scripts-user` to `always`, the documented way to
 * rerun it (AWS knowledge center: "execute user data after the initial launch"). The installer is
 * idempotent, so an ordinary reboot costs a few checks.
 */
export function brokerUserData(props: BrokerUserDataProps): ec2.UserData {
  const installer = readInstaller(props.installScriptPath);
  const settings = [
    ...installSettings(props),
    ...(props.signalUrl !== undefined ? [`MINNOW_SIGNAL_URL='${props.signalUrl}'`] : []),
  ];
  const shell = [
    '#!/bin/bash',
    '# minnow bootstrap (see broker/deploy/install.sh). Output: /var/log/cloud-init-output.log',
    'set -euo pipefail',
    'install -d -m 0755 /etc/minnow /usr/local/sbin',
    "cat >/etc/minnow/install.env <<'MINNOW_SETTINGS'",
    ...settings,
    'MINNOW_SETTINGS',
    "cat >/usr/local/sbin/minnow-install <<'MINNOW_INSTALL'",
    installer.trimEnd(),
    'MINNOW_INSTALL',
    'chmod 0755 /usr/local/sbin/minnow-install',
    'exec /usr/local/sbin/minnow-install /etc/minnow/install.env',
  ].join('\n');
  const cloudConfig = ['#cloud-config', 'cloud_final_modules:', '- [scripts-user, always]'].join('\n');
  const part = (contentType: string, filename: string, body: string): string =>
    [
      `--${BOUNDARY}`,
      `Content-Type: ${contentType}; charset="us-ascii"`,
      'MIME-Version: 1.0',
      'Content-Transfer-Encoding: 7bit',
      `Content-Disposition: attachment; filename="${filename}"`,
      '',
      body,
      '',
    ].join('\n');
  return ec2.UserData.custom(
    [
      `Content-Type: multipart/mixed; boundary="${BOUNDARY}"`,
      'MIME-Version: 1.0',
      '',
      part('text/cloud-config', 'cloud-config.txt', cloudConfig),
      part('text/x-shellscript', 'minnow-bootstrap.sh', shell),
      `--${BOUNDARY}--`,
      '',
    ].join('\n'),
  );
}
