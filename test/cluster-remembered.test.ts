import * as fs from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { readConfig, valuesToRemember } from '../lib/config';
import { rememberInContextFile } from '../lib/remembered-context';
import { REMEMBERED_IMAGE, TEST_AMI_ID } from './helpers/synth';
import { kitTempDir } from './helpers/temp-dirs';

// Issue 28, item 4: a storage=postgres stack remembers its storage, zones and broker count in
// cdk.context.json, so a later deploy that leaves them out keeps the cluster as it is.

const key = (name: string) => `minnow:Minnow:${name}`;
const read = (context: Record<string, unknown>) =>
  readConfig(
    new App({
      outdir: kitTempDir('minnow-cdk-'),
      context: { allowedCidr: '203.0.113.0/24', ...REMEMBERED_IMAGE, ...context },
    }).node,
  );

/** The first deploy's values, written as bin/minnow.ts writes them; returns the file's entries. */
function firstDeploy(context: Record<string, unknown>): Record<string, string | number> {
  const file = path.join(kitTempDir('minnow-cluster-context-'), 'cdk.context.json');
  rememberInContextFile(file, valuesToRemember('Minnow', read(context)));
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string | number>;
}

const FIRST = { storage: 'postgres', availabilityZones: 'eu-west-2a, eu-west-2b', brokers: '3' };

test('the first deploy remembers storage, zones, brokers and the image', () => {
  expect(firstDeploy(FIRST)).toEqual({
    [key('storage')]: 'postgres',
    [key('availabilityZones')]: 'eu-west-2a,eu-west-2b',
    [key('brokers')]: 3,
    [key('amiId')]: TEST_AMI_ID,
    [key('amiArchitecture')]: 'x86_64',
  });
});

test('a later deploy without -c storage, availabilityZones or brokers keeps the cluster as it is', () => {
  const config = read(firstDeploy(FIRST));
  expect(config.postgres).toMatchObject({ availabilityZones: ['eu-west-2a', 'eu-west-2b'], brokers: 3 });
  expect(config.availabilityZone).toBe('eu-west-2a');
  // The same zones, however spelled, are no change.
  expect(read({ ...firstDeploy(FIRST), availabilityZones: 'eu-west-2a,eu-west-2b' }).postgres).toBeDefined();
});

test('-c storage=sqlite on a remembered cluster is refused: it would delete the database', () => {
  expect(() => read({ ...firstDeploy(FIRST), storage: 'sqlite' })).toThrow(
    'context storage=sqlite, but stack Minnow is a storage=postgres cluster (cdk.context.json: minnow:Minnow:storage): ' +
      'a single-instance stack under the same name would DELETE its brokers and its database. Leave out -c storage',
  );
});

test('other zones are refused: they would replace the subnets and the brokers', () => {
  expect(() => read({ ...firstDeploy(FIRST), availabilityZones: 'eu-west-2a,eu-west-2c' })).toThrow(
    /context availabilityZones=eu-west-2a,eu-west-2c, but stack Minnow's subnets and brokers are in eu-west-2a,eu-west-2b \(cdk\.context\.json: minnow:Minnow:availabilityZones\)\. Other zones would REPLACE the subnets, the brokers .*Leave out -c availabilityZones/,
  );
});

test('another broker count on purpose is allowed and remembered anew', () => {
  const stored = firstDeploy(FIRST);
  const grown = read({ ...stored, brokers: '4' });
  expect(grown.postgres?.brokers).toBe(4);
  expect(valuesToRemember('Minnow', grown)[key('brokers')]).toBe(4);
  expect(() => read({ ...stored, [key('brokers')]: 'many' })).toThrow(/brokers="many" must be a whole number/);
});

test('a remembered SQLite stack still refuses storage=postgres, and no storage key is written for it', () => {
  const single = valuesToRemember('Minnow', read({ availabilityZone: 'eu-west-2a' }));
  expect(Object.keys(single)).not.toContain(key('storage'));
  expect(() => read({ ...single, storage: 'postgres', availabilityZones: 'eu-west-2a,eu-west-2b' })).toThrow(
    /stack Minnow is a single-instance SQLite stack/,
  );
});
