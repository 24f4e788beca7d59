import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApiKey } from '../../src/protocol/api-keys';
import { API_SPEC_BY_KEY } from '../../src/protocol/messages/registry';
import { generate, MESSAGES_DIR, parseRange, REPO_SPEC_DIR } from '../../scripts/generate-protocol';

// The specs are in the repository (broker/protocol-specs), so this check always runs.
const SPEC_DIR = process.env.KAFKA_SPEC_DIR ?? REPO_SPEC_DIR;
const OUT_DIR = MESSAGES_DIR;
const API_KEYS_FILE = path.resolve(__dirname, '../../src/protocol/api-keys.ts');

describe('generate-protocol', () => {
  it('parses version ranges', () => {
    expect(parseRange('3')).toEqual({ min: 3, max: 3 });
    expect(parseRange('0-7')).toEqual({ min: 0, max: 7 });
    expect(parseRange('9+')).toEqual({ min: 9, max: Infinity });
    expect(parseRange('none').max).toBeLessThan(parseRange('none').min);
  });

  it('regenerates the committed output byte for byte from the spec folder', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-gen-'));
    const fix = `run npm run -w broker generate:protocol (specs: ${SPEC_DIR})`;
    try {
      const tmpApiKeys = path.join(tmp, 'api-keys.ts');
      const messagesDir = path.join(tmp, 'messages');
      const written = generate(SPEC_DIR, messagesDir, tmpApiKeys).sort();
      const committed = fs.readdirSync(OUT_DIR).sort();
      expect(written).toEqual(committed);
      for (const f of written) {
        const same = fs.readFileSync(path.join(messagesDir, f)).equals(fs.readFileSync(path.join(OUT_DIR, f)));
        if (!same) throw new Error(`${f} differs from the generator's output: ${fix}`);
      }
      if (!fs.readFileSync(tmpApiKeys).equals(fs.readFileSync(API_KEYS_FILE))) {
        throw new Error(`api-keys.ts differs from the generator's output: ${fix}`);
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('names every API of the specs in ApiKey, as the registry numbers them', () => {
    const requests = fs.readdirSync(SPEC_DIR).filter((f) => f.endsWith('Request.json') && f !== 'RequestHeader.json');
    expect(Object.keys(ApiKey)).toHaveLength(requests.length);
    for (const [name, key] of Object.entries(ApiKey)) expect(API_SPEC_BY_KEY.get(key)?.name).toBe(name);
  });
});
