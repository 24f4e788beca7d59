import * as fs from 'node:fs';
import * as path from 'node:path';
import { venvPython } from '../broker/test/integration/python-venv';
import { describeWithTools } from '../broker/test/support/external-tools';
import {
  TABLE_END,
  TABLE_START,
  evaluateRows,
  renderTable,
  withTable,
  type RowResult,
} from '../lib/change-table/change-table';
import { extractUpdateBehaviour } from '../lib/change-table/cfn-lint-schemas';
import { brokerReleases, inProcessSynthesizer, type Synthesizer } from '../lib/change-table/synthesize';
import { diffTemplates, templateTypes, type TemplateJson } from '../lib/change-table/template-diff';
import { UPDATE_BEHAVIOUR, propertyUpdate } from '../lib/change-table/update-behaviour';
import { REPO_ROOT } from './helpers/synth';
import { kitTempDir } from './helpers/temp-dirs';

// docs/deploy.md's "What each change does" (issue 28): generated from the synthesized templates.
const DEPLOY_DOC = path.join(REPO_ROOT, 'docs', 'deploy.md');
const EMULATOR_REQUIREMENTS = path.join(REPO_ROOT, 'test', 'ops', 'emulator', 'requirements.txt');

describe('the change table from the synthesized templates', () => {
  let results: RowResult[];
  const templates: TemplateJson[] = [];
  const row = (label: string) => {
    const found = results.find((r) => `${r.row.stack} ${JSON.stringify(r.row.context)} ${r.row.what ?? ''}` === label);
    if (!found) throw new Error(`no row ${label}; rows: ${results.map((r) => JSON.stringify(r.row)).join(', ')}`);
    return found;
  };

  beforeAll(() => {
    const synth = inProcessSynthesizer(() => kitTempDir('minnow-cdk-'));
    const recording: Synthesizer = (...args) => {
      const template = synth(...args);
      templates.push(template);
      return template;
    };
    results = evaluateRows(
      recording,
      brokerReleases(() => kitTempDir('minnow-broker-')),
    );
  }, 600_000);

  test('docs/deploy.md holds the table the templates give (else: npm run docs:changes)', () => {
    const doc = fs.readFileSync(DEPLOY_DOC, 'utf8');
    expect(doc).toContain(TABLE_START);
    expect(doc).toContain(TABLE_END);
    expect(doc.slice(doc.indexOf(TABLE_START), doc.indexOf(TABLE_END) + TABLE_END.length)).toBe(
      withTable(`${TABLE_START}${TABLE_END}`, renderTable(results)),
    );
  });

  test('every resource type of the templates has its update behaviour (else: npm run docs:changes -- --schemas)', () => {
    const types = [...new Set(templates.flatMap(templateTypes))].sort();
    expect(types.filter((t) => !(t in UPDATE_BEHAVIOUR.types))).toEqual([]);
  });

  test('what CloudFormation documents for the common changes', () => {
    // InstanceType on an EBS-backed instance: stop, modify, start; the instance stays.
    expect(row('single {"instanceType":"t3.small"} same architecture')).toMatchObject({ update: 'restart' });
    // ImageId is create-only: a new instance.
    expect(row('single {"amiId":"ami-0cccccccccccccccc"} a newer AMI')).toMatchObject({ update: 'replacement' });
    // A new release renews the wait condition: the deploy waits for the boot's signal.
    expect(row('single {} a new broker release (another commit)')).toMatchObject({ update: 'restart', gated: true });
    // The asset ships only what runs: a commit of tests or docs deploys nothing.
    expect(row(`single {} a commit that changes only the broker's tests or docs`)).toMatchObject({
      update: 'no-op',
      gated: false,
      downtime: 'none',
    });
    // Everything the boot consumes keys the wait condition: a user data change is gated too.
    expect(row('single {"logLevel":"debug"} ')).toMatchObject({ update: 'restart', gated: true });
    // An EBS volume grows in place (ModifyVolume), no restart.
    expect(row('single {"dataVolumeGiB":"30"} grow')).toMatchObject({ update: 'in place', downtime: 'none' });
    expect(row('single {"allowedCidr":"198.51.100.0/24"} ')).toMatchObject({ update: 'in place', gated: false });
  });
});

test('a template diff: properties changed, resources added, deleted and renewed under a new id', () => {
  const base: TemplateJson = {
    Resources: {
      BrokerInstance8D36D40F: { Type: 'AWS::EC2::Instance', Properties: { InstanceType: 't3.micro', ImageId: 'a' } },
      BrokerReleaseBoot0123456789abcdef1D33481A: { Type: 'AWS::CloudFormation::WaitCondition' },
      OldAlarmAAAAAAAA: { Type: 'AWS::CloudWatch::Alarm', Properties: {} },
    },
  };
  const changed: TemplateJson = {
    Resources: {
      BrokerInstance8D36D40F: { Type: 'AWS::EC2::Instance', Properties: { InstanceType: 't3.small', ImageId: 'a' } },
      BrokerReleaseBootfedcba98765432101D33481A: { Type: 'AWS::CloudFormation::WaitCondition' },
      NewAlarmBBBBBBBB: { Type: 'AWS::CloudWatch::Alarm', Properties: {} },
    },
  };
  expect(diffTemplates(base, changed)).toEqual([
    { name: 'BrokerInstance', type: 'AWS::EC2::Instance', action: 'modify', properties: ['InstanceType'] },
    { name: 'BrokerReleaseBoot…', type: 'AWS::CloudFormation::WaitCondition', action: 'renew', properties: [] },
    { name: 'NewAlarm', type: 'AWS::CloudWatch::Alarm', action: 'add', properties: [] },
    { name: 'OldAlarm', type: 'AWS::CloudWatch::Alarm', action: 'remove', properties: [] },
  ]);
});

test('update behaviour: create-only replaces, the documented interruptions restart, the rest is in place', () => {
  expect(propertyUpdate('AWS::EC2::Instance', 'ImageId')).toBe('replacement');
  expect(propertyUpdate('AWS::EC2::Instance', 'AvailabilityZone')).toBe('replacement');
  expect(propertyUpdate('AWS::EC2::Instance', 'InstanceType')).toBe('restart');
  expect(propertyUpdate('AWS::EC2::Instance', 'UserData')).toBe('restart');
  expect(propertyUpdate('AWS::EC2::Volume', 'Size')).toBe('in place');
  expect(propertyUpdate('AWS::EC2::SecurityGroup', 'GroupDescription')).toBe('replacement');
  expect(propertyUpdate('AWS::EC2::SecurityGroup', 'SecurityGroupIngress')).toBe('in place');
});

describeWithTools('python3-venv')('update-behaviour.json', () => {
  test("is what the pinned cfn-lint's resource schemas say (else: npm run docs:changes -- --schemas)", async () => {
    const python = await venvPython(EMULATOR_REQUIREMENTS);
    expect(extractUpdateBehaviour(python, Object.keys(UPDATE_BEHAVIOUR.types))).toEqual(UPDATE_BEHAVIOUR);
  }, 600_000);
});
