// A virtualenv with the packages of a requirements file, made once and kept under
// broker/test/.venv/<hash of the file> (gitignored), so repeat test runs cost nothing. It is built
// from Debian's /usr/bin/python3 (needs python3-venv, which .ci/run installs) with wheels only:
// the point is the librdkafka the wheel bundles, never one compiled here.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { run } from './helpers';

const BASE_PYTHON = '/usr/bin/python3';
const VENV_ROOT = path.join(__dirname, '..', '.venv');
const READY_MARKER = '.minnow-ready';

/** Returns the venv's python, creating the venv and installing `requirementsFile` if needed. */
export async function venvPython(requirementsFile: string): Promise<string> {
  const requirements = fs.readFileSync(requirementsFile);
  const key = createHash('sha256').update(requirements).digest('hex').slice(0, 12);
  const dir = path.join(VENV_ROOT, `${path.basename(requirementsFile, '.txt')}-${key}`);
  const python = path.join(dir, 'bin', 'python');
  if (fs.existsSync(path.join(dir, READY_MARKER))) return python;

  // A half-made venv (killed run, failed install) is rebuilt from scratch.
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(VENV_ROOT, { recursive: true });
  await step(BASE_PYTHON, ['-m', 'venv', dir], 60_000, `is python3-venv installed? (apt-get install python3-venv)`);
  await step(
    python,
    [
      '-m',
      'pip',
      'install',
      '--disable-pip-version-check',
      '--no-input',
      '--only-binary=:all:',
      '-r',
      requirementsFile,
    ],
    300_000,
    'PyPI must be reachable for the first run',
  );
  fs.writeFileSync(path.join(dir, READY_MARKER), requirements);
  return python;
}

async function step(cmd: string, args: string[], timeoutMs: number, hint: string): Promise<void> {
  const r = await run(cmd, args, { timeoutMs });
  if (r.code !== 0) {
    throw new Error(
      `creating the test virtualenv: \`${cmd} ${args.join(' ')}\` exited ${r.code} (${hint}):\n${r.stderr.slice(-2000)}`,
    );
  }
}
