#!/usr/bin/env node
// `npm run docs:changes`: regenerates the "what each change does" table in docs/deploy.md
// (lib/change-table/). `npm run docs:changes -- --schemas` first re-extracts
// lib/change-table/update-behaviour.json from the cfn-lint of the emulator tests' venv (built from
// test/ops/emulator/requirements.txt; needs python3-venv and PyPI the first time); run it after
// the kit gains a resource type or the pinned moto/cfn-lint changes, then run docs:changes again.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateRows, renderTable, withTable } from '../lib/change-table/change-table';
import { extractUpdateBehaviour } from '../lib/change-table/cfn-lint-schemas';
import { brokerReleases, inProcessSynthesizer } from '../lib/change-table/synthesize';
import { templateTypes } from '../lib/change-table/template-diff';

const REPO_ROOT = path.join(__dirname, '..');
const DEPLOY_DOC = path.join(REPO_ROOT, 'docs', 'deploy.md');
const BEHAVIOUR_FILE = path.join(REPO_ROOT, 'lib', 'change-table', 'update-behaviour.json');

async function main(): Promise<void> {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-change-table-'));
  try {
    const synth = inProcessSynthesizer(() => fs.mkdtempSync(path.join(temp, 'cdk-')));
    const releases = brokerReleases(() => fs.mkdtempSync(path.join(temp, 'broker-')));
    const templates: unknown[] = [];
    const recording: typeof synth = (...args) => {
      const template = synth(...args);
      templates.push(template);
      return template;
    };
    const results = evaluateRows(recording, releases);
    if (process.argv.includes('--schemas')) {
      const { venvPython } = await import('../broker/test/integration/python-venv');
      const python = await venvPython(path.join(REPO_ROOT, 'test', 'ops', 'emulator', 'requirements.txt'));
      const types = [...new Set(templates.flatMap((t) => templateTypes(t as never)))];
      const file = extractUpdateBehaviour(python, types);
      fs.writeFileSync(BEHAVIOUR_FILE, `${JSON.stringify(file, null, 2)}\n`);
      console.error(`wrote ${path.relative(REPO_ROOT, BEHAVIOUR_FILE)} (${file.source}); now run npm run docs:changes`);
      return;
    }
    const doc = fs.readFileSync(DEPLOY_DOC, 'utf8');
    const updated = withTable(doc, renderTable(results));
    if (updated !== doc) fs.writeFileSync(DEPLOY_DOC, updated);
    console.error(`${updated === doc ? 'unchanged' : 'updated'}: ${path.relative(REPO_ROOT, DEPLOY_DOC)}`);
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
