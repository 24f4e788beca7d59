// A jest reporter that ends the run with ONE line naming the external tools whose tests were
// skipped and how to install them (see external-tools.ts). Test files run in worker processes, so
// they append their skips to a file in a folder made here: the workers are forked after the
// reporters are constructed and inherit its path through the environment.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** Same name as SKIP_DIR_ENV in external-tools.ts (external-tools.test.ts checks they agree). */
const SKIP_DIR_ENV = 'MINNOW_SKIPPED_TOOLS_DIR';
const REQUIRE_TOOLS_ENV = 'MINNOW_REQUIRE_TOOLS';

/** Reads the skip records of a run; a line cut short (a worker killed mid-write) is ignored. */
function readSkips(dir) {
  let text = '';
  try {
    text = fs.readFileSync(path.join(dir, 'skips.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    try {
      return line ? [JSON.parse(line)] : [];
    } catch {
      return [];
    }
  });
}

/**
 * The summary line for these records, or undefined when nothing was skipped. `pendingByFile`: the
 * number of skipped tests in each test file, from jest's results.
 */
function summaryLine(skips, pendingByFile) {
  if (skips.length === 0) return undefined;
  const tools = new Map();
  for (const s of skips) tools.set(s.tool, s.install);
  const files = new Set(skips.map((s) => s.testPath));
  const tests = [...files].reduce((n, f) => n + (pendingByFile.get(f) ?? 0), 0);
  const needing = [...tools]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tool, install]) => `${tool} (${install})`)
    .join(', ');
  return `skipped ${tests} test${tests === 1 ? '' : 's'} in ${files.size} file${files.size === 1 ? '' : 's'} needing: ${needing}; .ci/run installs them, and ${REQUIRE_TOOLS_ENV}=1 makes a missing one a failure`;
}

class SkippedToolsReporter {
  constructor() {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-skipped-tools-'));
    process.env[SKIP_DIR_ENV] = this.dir;
    this.pendingByFile = new Map();
  }

  onTestResult(_test, result) {
    this.pendingByFile.set(result.testFilePath, result.numPendingTests);
  }

  onRunComplete() {
    const line = summaryLine(readSkips(this.dir), this.pendingByFile);
    fs.rmSync(this.dir, { recursive: true, force: true });
    // Written as the process exits, so the line comes last, after jest's own summary.
    if (line) process.once('exit', () => fs.writeSync(2, `\n${line}\n`));
  }

  getLastError() {
    return undefined;
  }
}

module.exports = SkippedToolsReporter;
module.exports.summaryLine = summaryLine;
module.exports.readSkips = readSkips;
module.exports.SKIP_DIR_ENV = SKIP_DIR_ENV;
