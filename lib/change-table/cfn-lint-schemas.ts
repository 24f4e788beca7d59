// Which properties of a resource type CloudFormation can only set at creation (an update replaces
// the resource), read from the resource schemas cfn-lint bundles (the CloudFormation registry's
// createOnlyProperties and cfn-lint's conditionalCreateOnlyProperties). cfn-lint comes with
// moto[server] in the emulator tests' venv (test/ops/emulator/requirements.txt); the extract the
// table uses is committed as update-behaviour.json, so building the table needs no Python.
import { spawnSync } from 'node:child_process';

export interface TypeUpdateBehaviour {
  /** Top-level properties whose change replaces the resource. */
  readonly createOnly: readonly string[];
  /** Top-level properties whose change may interrupt or replace it, depending on the value. */
  readonly conditionalCreateOnly: readonly string[];
}

export interface UpdateBehaviourFile {
  readonly source: string;
  /** null: cfn-lint has no schema for the type (a change is then taken as in place). */
  readonly types: Record<string, TypeUpdateBehaviour | null>;
}

const EXTRACT = `
import json, os, sys
import cfnlint.data.schemas as schemas
from cfnlint.version import __version__
base = os.path.dirname(schemas.__file__)
with open(os.path.join(base, "providers", "us-east-1.json")) as f:
    providers = json.load(f)
def top(paths):
    return sorted({p.split("/")[2] for p in paths or [] if p.startswith("/properties/")})
types = {}
for name in sys.argv[1:]:
    ref = providers.get(name)
    if ref is None:
        types[name] = None
        continue
    with open(os.path.join(base, "resources", ref + ".json")) as f:
        schema = json.load(f)
    types[name] = {
        "createOnly": top(schema.get("createOnlyProperties")),
        "conditionalCreateOnly": top(schema.get("conditionalCreateOnlyProperties")),
    }
print(json.dumps({"source": "cfn-lint " + __version__ + " resource schemas (us-east-1)", "types": types}))
`;

/** The update behaviour of `types` from the cfn-lint that `python` imports. */
export function extractUpdateBehaviour(python: string, types: readonly string[]): UpdateBehaviourFile {
  const r = spawnSync(python, ['-c', EXTRACT, ...[...types].sort()], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) {
    throw new Error(
      `reading cfn-lint's resource schemas with ${python} failed (exit ${r.status}): ${r.stderr.slice(-1000)}; ` +
        'is cfn-lint installed there (moto[server] brings it)?',
    );
  }
  return JSON.parse(r.stdout) as UpdateBehaviourFile;
}
