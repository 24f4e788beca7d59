#!/usr/bin/env node
// `npm run ops -- <command>`: day-2 operations on a deployed minnow stack. The logic lives in
// lib/ops/; this file only parses arguments, prints, and maps errors to exit codes.
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { createClients, defaultRuntime, type OpsClients, type OpsRuntime } from '../lib/ops/clients';
import { OpsError, explainAwsError } from '../lib/ops/errors';
import { formatImageReport, formatImageUpdate, getImageReport, updatePinnedImage } from '../lib/ops/image';
import { formatPreflight, preflight } from '../lib/ops/preflight';
import { setDataVolumeProtection } from '../lib/ops/protect';
import { StorageMode } from '../lib/postgres-config';
import { CONTEXT_FILE } from '../lib/remembered-context';
import { applyScale, checkInstanceType, clusterScaleAdvice, isDatabaseClass, scaleCommand } from '../lib/ops/scale';
import { rollbackCluster } from '../lib/ops/cluster-rollback';
import { formatClusterStatus, getClusterStatus } from '../lib/ops/cluster-status';
import { snapshotDatabase } from '../lib/ops/db-snapshot';
import { rollbackRelease } from '../lib/ops/rollback';
import { fetchAdminPassword, fetchCaCertificate } from '../lib/ops/security';
import { snapshotDataVolume } from '../lib/ops/snapshot';
import { readStackKind } from '../lib/ops/stack-outputs';
import { formatStatus, getStatus } from '../lib/ops/status';

export const USAGE = `usage: npm run ops -- <command> [--stack NAME] [--region REGION]

commands:
  status                  instance state, type and address, CPU credit balance and its trend, alarm states
                          (a cluster: every broker, the database's status, class, Multi-AZ, free storage and
                          pending changes, the alarms in ALARM)
  snapshot                EBS snapshot of the data volume (a cluster: RDS snapshot of the database); waits for
                          it and prints its id
  scale --to TYPE         prints the cdk deploy command that changes the instance type (recommended; a cluster:
                          the brokers' type, or with --to db.CLASS the database's)
  scale --to TYPE --apply stops the instance, changes its type, starts it and waits (same architecture only;
                          single-instance stacks only)
  ca                      the CA certificate (PEM) clients trust for SASL_SSL: npm run -s ops -- ca > ca.pem
  password                the password of the Kafka user admin (from Secrets Manager)
  preflight               before a deploy: the availability zone (the deployed volume's, or the first that
                          offers --instance-type) and the image (the deployed instance's, or the latest AL2023
                          for a new stack), written to cdk.context.json with the volume's size and snapshot;
                          refuses a zone that would move the volume; names a KMS key to pass
                          (a new cluster: --storage postgres, image only)
  image                   the pinned image, what the instance(s) run, and the latest AL2023 (id, name, age)
  image --update          pins the latest AL2023 in cdk.context.json (--arch x86_64|arm64 for another
                          architecture); the next deploy replaces the broker(s) with it: the patch path
  protect [--off]         stack policy: CloudFormation refuses to replace or delete the data volume
  rollback                runs minnow-rollback on the instance (SSM): the previous broker release again
                          (a cluster: broker by broker, stopping at the first that fails)

options:
  --stack NAME            the deployed stack (default Minnow)
  --region REGION         its region (default: AWS_REGION or your profile's region)
  --json                  status as JSON
  --instance-type TYPE    preflight: the type the zone must offer and the image must boot (default t3.micro)
  --storage postgres      preflight: the stack is a new storage=postgres cluster (no zone to choose)
  --arch ARCH             image: the architecture of the latest image (default: the pinned one's)
  --out FILE              ca, password: write to FILE (password: mode 0600) instead of printing
                          (npm prints its banner on stdout unless run as npm run -s)`;

export interface CliDeps {
  readonly clients: (region: string | undefined) => OpsClients;
  readonly runtime: OpsRuntime;
  readonly out: (text: string) => void;
  /** @default cdk.context.json in the working directory (npm run runs in the repository root) */
  readonly contextFile?: string;
}

/** Sets the mode before the text goes in: an existing file would otherwise keep its old mode. */
function writeFileWithMode(file: string, text: string, mode: number): void {
  fs.writeFileSync(file, '', { mode });
  fs.chmodSync(file, mode);
  fs.writeFileSync(file, text);
}

export async function main(argv: string[], deps: CliDeps): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        stack: { type: 'string', default: 'Minnow' },
        region: { type: 'string' },
        to: { type: 'string' },
        apply: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        out: { type: 'string' },
        'instance-type': { type: 'string' },
        storage: { type: 'string' },
        arch: { type: 'string' },
        update: { type: 'boolean', default: false },
        off: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    deps.runtime.log(`ops: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...extra] = positionals;
  if (values.help || command === undefined) {
    deps.out(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  if (extra.length > 0) {
    deps.runtime.log(`ops: unexpected argument "${extra[0]}"\n\n${USAGE}`);
    return 2;
  }
  const stackName = values.stack;
  const region = values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  const contextFile = deps.contextFile ?? CONTEXT_FILE;
  try {
    switch (command) {
      case 'status': {
        const clients = deps.clients(region);
        const kind = await readStackKind(clients, stackName);
        if (kind.kind === 'cluster') {
          const report = await getClusterStatus(clients, deps.runtime, stackName, kind, contextFile);
          deps.out(values.json ? JSON.stringify(report, null, 2) : formatClusterStatus(report));
          return 0;
        }
        const report = await getStatus(clients, deps.runtime, stackName, contextFile);
        deps.out(values.json ? JSON.stringify(report, null, 2) : formatStatus(report));
        return 0;
      }
      case 'ca':
      case 'password': {
        const text =
          command === 'ca'
            ? await fetchCaCertificate(deps.clients(region), stackName)
            : await fetchAdminPassword(deps.clients(region), stackName);
        if (values.out === undefined) {
          deps.out(text);
        } else {
          writeFileWithMode(values.out, `${text}\n`, command === 'ca' ? 0o644 : 0o600);
          deps.runtime.log(`ops ${command}: wrote ${values.out}`);
        }
        return 0;
      }
      case 'rollback': {
        const clients = deps.clients(region);
        const kind = await readStackKind(clients, stackName);
        deps.out(
          kind.kind === 'cluster'
            ? await rollbackCluster(clients, deps.runtime, stackName, kind)
            : (await rollbackRelease(clients, deps.runtime, stackName)).output,
        );
        deps.out(
          'The stack still names the newer release: later boots keep this rollback, and the next deploy of ' +
            'another commit installs that one. To make it final, deploy the commit you rolled back to.',
        );
        return 0;
      }
      case 'snapshot': {
        const clients = deps.clients(region);
        const kind = await readStackKind(clients, stackName);
        deps.out(
          kind.kind === 'cluster'
            ? await snapshotDatabase(clients, deps.runtime, stackName, kind.databaseEndpoint)
            : await snapshotDataVolume(clients, deps.runtime, stackName),
        );
        return 0;
      }
      case 'preflight': {
        const { storage } = values;
        if (storage !== undefined && storage !== StorageMode.Postgres && storage !== StorageMode.Sqlite) {
          throw new OpsError(`--storage ${storage}: pass postgres (a new cluster) or leave it out`);
        }
        const report = await preflight(deps.clients(region), {
          stackName,
          contextFile,
          ...(values['instance-type'] !== undefined && { instanceType: values['instance-type'] }),
          ...(storage !== undefined && { storage }),
        });
        deps.out(formatPreflight(stackName, report, contextFile));
        return 0;
      }
      case 'image': {
        const opts = { stackName, contextFile, ...(values.arch !== undefined && { architecture: values.arch }) };
        deps.out(
          values.update
            ? formatImageUpdate(await updatePinnedImage(deps.clients(region), deps.runtime, opts), contextFile)
            : formatImageReport(await getImageReport(deps.clients(region), deps.runtime, opts)),
        );
        return 0;
      }
      case 'protect': {
        deps.out(await setDataVolumeProtection(deps.clients(region), stackName, !values.off));
        return 0;
      }
      case 'scale': {
        if (!values.to) throw new OpsError('scale needs --to TYPE, e.g. --to t3.small');
        if (!isDatabaseClass(values.to)) checkInstanceType(values.to);
        // Which deploy changes the type depends on the stack: a cluster's brokers roll one by one.
        const kind = await readStackKind(deps.clients(region), stackName);
        if (kind.kind === 'cluster') {
          const advice = clusterScaleAdvice(values.to, stackName, values.apply);
          if (values.apply) throw new OpsError(advice);
          deps.out(advice);
          return 0;
        }
        if (isDatabaseClass(values.to)) {
          throw new OpsError(`--to ${values.to} is a database class, but stack "${stackName}" is a single instance`);
        }
        if (!values.apply) {
          deps.out(
            `To change ${stackName} to ${values.to} (a stop/start; the data volume and Elastic IP stay), deploy:\n\n` +
              `  ${scaleCommand(values.to, stackName)}\n\n` +
              'Or add --apply to do it now through the EC2 API; then pass the same instanceType on your next deploy.',
          );
          return 0;
        }
        const info = await applyScale(deps.clients(region), deps.runtime, stackName, values.to);
        deps.out(`${info.id} is ${info.state} as ${info.type} at ${info.publicIp ?? '-'}`);
        deps.out(`Next deploy: pass -c instanceType=${values.to} so the stack agrees with the instance.`);
        return 0;
      }
      default:
        deps.runtime.log(`ops: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    const explained = explainAwsError(err, { stackName, region });
    deps.runtime.log(`ops ${command}: ${explained.message}`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2), {
    clients: createClients,
    runtime: defaultRuntime,
    out: (text) => console.log(text),
  }).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
