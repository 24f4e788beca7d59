import * as fs from 'node:fs';
import * as path from 'node:path';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { REPO_ROOT } from './helpers/synth';

// `cdk synth` prints "N feature flags are not configured" for every recommended flag cdk.json lacks,
// and the app then runs with the old behaviours. A newer aws-cdk-lib recommends new flags: set them
// (copy from `npx cdk flags`), after checking that the template does not change in a way that
// replaces the instance, the volume or the Elastic IP.
test('cdk.json sets every feature flag this aws-cdk-lib recommends, to the recommended value', () => {
  const { context } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const missing = Object.entries(cxapi.CURRENTLY_RECOMMENDED_FLAGS)
    .filter(([flag, value]) => JSON.stringify(context[flag]) !== JSON.stringify(value))
    .map(([flag]) => flag);
  expect(missing).toEqual([]);
});
