import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { BrokerAsset, stagedFiles } from '../lib/constructs/broker-asset';
import { kitTempDir } from './helpers/temp-dirs';

// The asset hash is the release id on the instance: a new one makes the next deploy restart the
// production broker. Only what runs may change it (issue 14: "a comment change under broker/ does
// not restart production").

/** A broker package as a checkout has it: sources, tests and docs beside what runs. */
function brokerCheckout(): string {
  const dir = path.join(kitTempDir('minnow-asset-'), 'broker');
  const files: Record<string, string> = {
    'package.json': '{"name":"minnow-broker","version":"0.1.0"}\n',
    'package-lock.json': '{"name":"minnow-broker","lockfileVersion":3,"packages":{}}\n',
    'bin/minnow.js': "require('../dist/cli/main.js');\n",
    'deploy/install.sh': '#!/bin/bash\n',
    'dist/cli/main.js': 'exports.main = () => 0;\n',
    'src/cli/main.ts': 'export const main = (): number => 0;\n',
    'src/x.ts': 'export const x = 1;\n',
    'test/x.test.ts': "test('x', () => {});\n",
    'README.md': '# broker\n',
    'scripts/generate-protocol.ts': '// codec generator\n',
    'tsconfig.json': '{}\n',
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

function assetHash(brokerDir: string): string {
  const app = new App({ outdir: kitTempDir('minnow-cdk-'), analyticsReporting: false });
  const stack = new Stack(app, 'AssetOnly');
  return new BrokerAsset(stack, 'BrokerAsset', { brokerDir }).asset.assetHash;
}

test('ships only dist/, bin/, deploy/, package.json and the lock', () => {
  const dir = brokerCheckout();
  expect(stagedFiles(dir)).toEqual(['bin/minnow.js', 'deploy/install.sh', 'dist/cli/main.js', 'package.json']);
});

test('a comment in src/, a test, the README or a script do not change the release; dist/ and deploy/ do', () => {
  const dir = brokerCheckout();
  const before = assetHash(dir);
  fs.appendFileSync(path.join(dir, 'src', 'x.ts'), '// a comment\n'); // dist/ unchanged: not rebuilt yet
  fs.appendFileSync(path.join(dir, 'test', 'x.test.ts'), "test('y', () => {});\n");
  fs.writeFileSync(path.join(dir, 'test', 'new.test.ts'), '');
  fs.appendFileSync(path.join(dir, 'README.md'), 'more words\n');
  fs.appendFileSync(path.join(dir, 'scripts', 'generate-protocol.ts'), '// more\n');
  expect(assetHash(dir)).toBe(before);

  fs.appendFileSync(path.join(dir, 'dist', 'cli', 'main.js'), '// rebuilt\n');
  const rebuilt = assetHash(dir);
  expect(rebuilt).not.toBe(before);
  fs.appendFileSync(path.join(dir, 'deploy', 'install.sh'), 'true\n');
  expect(assetHash(dir)).not.toBe(rebuilt);
});
