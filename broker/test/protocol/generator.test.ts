import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generate, parseRange } from '../../scripts/generate-protocol';

// The spec folder sits beside the repository (../shared); CI has a copy there too.
const SPEC_DIR = process.env.KAFKA_SPEC_DIR ?? path.resolve(__dirname, '../../../../shared/kafka-protocol/messages');
const OUT_DIR = path.resolve(__dirname, '../../src/protocol/messages');

describe('generate-protocol', () => {
  it('parses version ranges', () => {
    expect(parseRange('3')).toEqual({ min: 3, max: 3 });
    expect(parseRange('0-7')).toEqual({ min: 0, max: 7 });
    expect(parseRange('9+')).toEqual({ min: 9, max: Infinity });
    expect(parseRange('none').max).toBeLessThan(parseRange('none').min);
  });

  const haveSpecs = fs.existsSync(SPEC_DIR);
  (haveSpecs ? it : it.skip)('regenerates the committed output byte for byte from the spec folder', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-gen-'));
    try {
      const written = generate(SPEC_DIR, tmp).sort();
      const committed = fs.readdirSync(OUT_DIR).sort();
      expect(written).toEqual(committed);
      for (const f of written) {
        const same = fs.readFileSync(path.join(tmp, f)).equals(fs.readFileSync(path.join(OUT_DIR, f)));
        if (!same) throw new Error(`${f} differs from the generator's output: run npm run generate:protocol -- ${SPEC_DIR}`);
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
  if (!haveSpecs) {
    it('skipped the regeneration check: no spec folder', () => {
      console.warn(`generator check skipped: spec folder ${SPEC_DIR} not found (set KAFKA_SPEC_DIR)`);
    });
  }
});
