import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { readConfig } from '../lib/config';
import { CLUSTER_CONTEXT, synthClusterTemplate } from './helpers/synth-cluster';
import { REMEMBERED_ARM_IMAGE, REMEMBERED_IMAGE, REPO_ROOT, TEST_AMI_ID, only, synthTemplate } from './helpers/synth';
import { kitTempDir } from './helpers/temp-dirs';
import { venvPython } from '../broker/test/integration/python-venv';
import { describeWithTools } from '../broker/test/support/external-tools';

// Issue 28: the image is pinned by default (cdk.context.json), moved only on purpose, and the
// template names it literally; a deploy to another region than the remembered zone's is refused
// by a template rule before anything is created.

const AMI_KEY = 'minnow:Minnow:amiId';
const ARCH_KEY = 'minnow:Minnow:amiArchitecture';
const imageParameters = (template: Template) =>
  Object.entries((template.toJSON().Parameters ?? {}) as Record<string, { Type: string; Default?: string }>).filter(
    ([, p]) => p.Type.includes('AWS::EC2::Image::Id') || (p.Default ?? '').includes('ami-amazon-linux-latest'),
  );

// A synth takes up to half a minute on a busy machine: each template is made once.
let single: Template | undefined;
let cluster: Template | undefined;
const defaultTemplate = () => (single ??= synthTemplate());
const clusterTemplate = () => (cluster ??= synthClusterTemplate());
const SYNTHS = 300_000;

describe('the image is pinned', () => {
  test(
    'the default template names the remembered image and has no SSM image parameter',
    () => {
      const template = defaultTemplate();
      expect(only(template, 'AWS::EC2::Instance')[1].Properties.ImageId).toBe(TEST_AMI_ID);
      expect(imageParameters(template)).toEqual([]);
      // The only parameter left is CDK's BootstrapVersion, which the CLI skips ([cdk:skip]) when it
      // decides whether an unchanged deploy is "no changes".
      const parameters = Object.values(template.toJSON().Parameters as Record<string, { Description?: string }>);
      expect(parameters.every((p) => p.Description?.includes('[cdk:skip]'))).toBe(true);
    },
    SYNTHS,
  );

  test(
    'the cluster too: every broker boots the remembered image',
    () => {
      const template = clusterTemplate();
      const instances = Object.values(template.findResources('AWS::EC2::Instance'));
      expect(instances.map((i) => (i as { Properties: { ImageId: unknown } }).Properties.ImageId)).toEqual([
        TEST_AMI_ID,
        TEST_AMI_ID,
      ]);
      expect(imageParameters(template)).toEqual([]);
    },
    SYNTHS,
  );

  test(
    'another instance type of the same architecture changes the type, not the image',
    () => {
      const micro = only(defaultTemplate(), 'AWS::EC2::Instance')[1].Properties;
      const small = only(synthTemplate({ instanceType: 't3.small' }), 'AWS::EC2::Instance')[1].Properties;
      expect(small.ImageId).toBe(micro.ImageId);
      const changed = Object.keys({ ...micro, ...small }).filter(
        (k) => JSON.stringify(micro[k]) !== JSON.stringify(small[k]),
      );
      // UserData changes too: the boot that follows the type change is gated (a new release wait
      // condition, release-signal.ts). Both are stop/start updates; the image, and so the instance, stay.
      expect(changed.filter((k) => k !== 'InstanceType' && k !== 'UserData')).toEqual([]);
      expect(changed).toContain('InstanceType');
    },
    SYNTHS,
  );

  test('without an image (neither -c amiId nor remembered) synth stops and names preflight', () => {
    const read = (context: Record<string, unknown>) =>
      readConfig(
        new App({
          outdir: kitTempDir('minnow-cdk-'),
          context: { allowedCidr: '203.0.113.0/24', availabilityZone: 'eu-west-2a', ...context },
        }).node,
      );
    expect(() => read({})).toThrow(/missing context value amiId: .*`npm run ops -- preflight --region <your region>`/);
    expect(() => read({ stackName: 'Edge' })).toThrow(/npm run ops -- preflight --stack Edge --region/);
    expect(() => read({ ...CLUSTER_CONTEXT, [AMI_KEY]: undefined })).toThrow(/missing context value amiId/);
  });

  test('an instance type of the other architecture is refused, naming both and the fix', () => {
    expect(() => synthTemplate({ instanceType: 't4g.small' })).toThrow(
      `instanceType t4g.small is arm64, but stack Minnow's pinned image ${TEST_AMI_ID} is x86_64 ` +
        `(cdk.context.json: ${AMI_KEY}, ${ARCH_KEY})`,
    );
    expect(() => synthTemplate({ instanceType: 't4g.small' })).toThrow(
      /`npm run ops -- image --update --arch arm64`, then deploy with -c instanceType=t4g\.small/,
    );
    // The same -c amiId as the remembered one is no move: still refused.
    expect(() => synthTemplate({ instanceType: 'm7g.large', amiId: TEST_AMI_ID })).toThrow(
      /is arm64, but .* is x86_64/,
    );
    expect(() =>
      synthTemplate({ stackName: 'Edge', 'minnow:Edge:amiId': TEST_AMI_ID, 'minnow:Edge:amiArchitecture': 'arm64' }),
    ).toThrow(/npm run ops -- image --update --arch x86_64 --stack Edge/);
    // After `ops image --update --arch arm64`: the arm64 image and the Graviton type synthesize.
    const read = (context: Record<string, unknown>) =>
      readConfig(
        new App({
          outdir: kitTempDir('minnow-cdk-'),
          context: { allowedCidr: '203.0.113.0/24', availabilityZone: 'eu-west-2a', ...context },
        }).node,
      );
    expect(read({ instanceType: 't4g.small', ...REMEMBERED_ARM_IMAGE })).toMatchObject({ amiArchitecture: 'arm64' });
  });

  test("an explicit -c amiId different from the remembered one is a move, with the type's architecture", () => {
    const read = (context: Record<string, unknown>) =>
      readConfig(
        new App({
          outdir: kitTempDir('minnow-cdk-'),
          context: { allowedCidr: '203.0.113.0/24', availabilityZone: 'eu-west-2a', ...context },
        }).node,
      );
    expect(read({ ...REMEMBERED_IMAGE, instanceType: 't4g.small', amiId: 'ami-0fedcba9876543210' })).toMatchObject({
      amiId: 'ami-0fedcba9876543210',
      amiArchitecture: 'arm64',
    });
    expect(read({ ...REMEMBERED_IMAGE, amiId: TEST_AMI_ID })).toMatchObject({ amiId: TEST_AMI_ID });
    expect(() => read({ [AMI_KEY]: 'latest' })).toThrow(
      /minnow:Minnow:amiId="latest" is not an AMI id.*fix or remove it/,
    );
    expect(() => read({ ...REMEMBERED_IMAGE, [ARCH_KEY]: 'x86' })).toThrow(
      /amiArchitecture="x86" must be x86_64 or arm64/,
    );
  });
});

describe('region guard', () => {
  type Rule = { Assertions: Array<{ Assert: unknown; AssertDescription: string }> };
  const rule = (template: Template) => (template.toJSON().Rules as Record<string, Rule>).RegionMatchesZone!;

  test(
    "both stacks assert AWS::Region is the remembered zone's region, naming zone, region and image",
    () => {
      for (const template of [defaultTemplate(), clusterTemplate()]) {
        const [assertion] = rule(template).Assertions;
        expect(assertion!.Assert).toEqual({ 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'eu-west-2'] });
        expect(assertion!.AssertDescription).toMatch(
          new RegExp(
            `^this stack's zone eu-west-2a is in eu-west-2, and so is its image ${TEST_AMI_ID} \\(AMI ids are ` +
              'regional\\), but the deploy targets another region\\. Deploy to eu-west-2 ',
          ),
        );
      }
      const us = rule(synthTemplate({ availabilityZone: 'us-east-1c' })).Assertions[0]!;
      expect(us.Assert).toEqual({ 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] });
    },
    SYNTHS,
  );
});

describe('bin/minnow.ts remembers the image', () => {
  // The real app, run as the CDK CLI runs it (context in CDK_CONTEXT_JSON, cdk.context.json in the cwd).
  function runApp(cwd: string, context: Record<string, string>) {
    const result = spawnSync(
      path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'),
      [path.join(REPO_ROOT, 'bin', 'minnow.ts')],
      {
        cwd,
        encoding: 'utf8',
        env: {
          ...process.env,
          // aws-cdk-lib's built-in template validation (~6 s of CPU per child) can only warn here:
          // errors fail a synth only under cdk.json's @aws-cdk/core:validateAgainstDefaultRules, which
          // this context does not carry. The in-process synths of the same templates validate them.
          CDK_VALIDATION: 'false',
          CDK_OUTDIR: path.join(cwd, `out-${Date.now()}`),
          CDK_CONTEXT_JSON: JSON.stringify({
            allowedCidr: '203.0.113.0/24',
            availabilityZone: 'eu-west-2a',
            ...context,
          }),
        },
      },
    );
    const stored = JSON.parse(fs.readFileSync(path.join(cwd, 'cdk.context.json'), 'utf8')) as Record<string, unknown>;
    return { status: result.status, stderr: result.stderr, stored };
  }

  test('a first -c amiId is written down; a later different one is a move, said and remembered anew', () => {
    const cwd = kitTempDir('minnow-app-');
    const first = runApp(cwd, { amiId: TEST_AMI_ID });
    expect(first.status).toBe(0);
    expect(first.stored).toMatchObject({ [AMI_KEY]: TEST_AMI_ID, [ARCH_KEY]: 'x86_64' });
    expect(first.stderr).not.toContain('a deliberate move');

    const moved = runApp(cwd, { ...(first.stored as Record<string, string>), amiId: 'ami-0fedcba9876543210' });
    expect(moved.status).toBe(0);
    expect(moved.stored[AMI_KEY]).toBe('ami-0fedcba9876543210');
    expect(moved.stderr).toContain(
      `-c amiId=ami-0fedcba9876543210 differs from the image stack Minnow had pinned (${TEST_AMI_ID}): a deliberate move`,
    );
    expect(moved.stderr).toContain(`pass -c amiId=${TEST_AMI_ID} to pin the old one again`);
  }, 300_000); // two synths of the whole app in child processes
});

// cfn-lint comes with moto[server] in the emulator tests' virtualenv (built by .ci/run); without
// python3-venv the test is skipped and named, as every tool-bound test (never silently).
describeWithTools('python3-venv')('cfn-lint', () => {
  test('accepts the template with its region rule', async () => {
    const python = await venvPython(path.join(REPO_ROOT, 'test', 'ops', 'emulator', 'requirements.txt'));
    const dir = kitTempDir('minnow-lint-');
    const file = path.join(dir, 'template.json');
    fs.writeFileSync(file, JSON.stringify(synthTemplate().toJSON()));
    // W3010 (hard-coded zones) is by design: the zone is chosen once and remembered.
    // The venv's console scripts name the directory it was built in: call the entry point itself.
    const cfnLint = ['-c', 'import sys; from cfnlint.runner import main; sys.exit(main())'];
    const result = spawnSync(python, [...cfnLint, '--ignore-checks', 'W3010', '--', file], { encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  }, 600_000);
});
