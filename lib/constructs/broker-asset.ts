import * as fs from 'node:fs';
import * as path from 'node:path';
import { Annotations, IgnoreMode } from 'aws-cdk-lib';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import { Construct } from 'constructs';

/** Paths in broker/ that never go to the instance (gitignore syntax, relative to broker/). */
export const BROKER_ASSET_EXCLUDE = [
  'node_modules/',
  'data/',
  'test/',
  'bench/',
  'protocol-specs/', // Kafka's message specs: read only when regenerating the codec
  'coverage/',
  'cdk.out/',
  '.jest-cache/',
  '*.db',
  '*.db-wal',
  '*.db-shm',
  '*.cpuprofile',
  '*.tsbuildinfo',
];

export interface BrokerAssetProps {
  /**
   * The broker package directory (package.json, package-lock.json, bin/, dist/, deploy/).
   * @default - broker/ at the repository root
   */
  readonly brokerDir?: string;
}

/**
 * The broker as a zipped S3 asset: its JavaScript (dist/, built by cdk.json's "build" step), its
 * package.json and lock (the instance runs `npm ci --omit=dev`), and deploy/ (the systemd unit).
 * Its hash is the release id on the instance, so a changed broker means a changed user data.
 */
export class BrokerAsset extends Construct {
  readonly asset: s3assets.Asset;

  constructor(scope: Construct, id: string, props: BrokerAssetProps = {}) {
    super(scope, id);
    const brokerDir = props.brokerDir ?? path.join(__dirname, '..', '..', 'broker');
    this.asset = new s3assets.Asset(this, 'Asset', {
      path: brokerDir,
      exclude: BROKER_ASSET_EXCLUDE,
      ignoreMode: IgnoreMode.GIT,
      displayName: 'minnow broker',
    });
    // Synth must work on a fresh clone (tests, CI), so a missing build is a warning, not an error:
    // the instance can only start what was built.
    if (!fs.existsSync(path.join(brokerDir, 'dist', 'cli', 'main.js'))) {
      Annotations.of(this).addWarningV2(
        'minnow:broker-not-built',
        `${path.join(brokerDir, 'dist')} has no cli/main.js, so the instance would get a broker it cannot start. ` +
          'Run `npm run build:broker` (cdk.json runs it before `cdk deploy`).',
      );
    }
  }
}
