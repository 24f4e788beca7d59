import { main, type CliDeps } from '../../bin/ops';
import { CLUSTER, clusterMocks } from './cluster-fixtures';
import { clients, fakeRuntime } from './fixtures';

function run(argv: string[]) {
  const out: string[] = [];
  const runtime = fakeRuntime();
  const deps: CliDeps = { clients: () => clients(), runtime, out: (t) => out.push(t) };
  return main(argv, deps).then((code) => ({ code, out: out.join('\n'), err: runtime.lines.join('\n') }));
}

test('scale on a cluster prints the deploy that rolls the new type through the brokers', async () => {
  const { ec2, rds } = clusterMocks();
  const { code, out } = await run(['scale', '--stack', CLUSTER, '--to', 't3.small']);
  expect(code).toBe(0);
  expect(out).toContain('To change the brokers of cluster MinnowCluster to t3.small (CloudFormation stops');
  expect(out).toContain('npx cdk deploy -c stackName=MinnowCluster -c storage=postgres -c instanceType=t3.small');
  expect(out).toContain("The database's class: --to db.t4g.small prints that deploy.");
  expect(ec2.calls()).toHaveLength(0);
  expect(rds.calls()).toHaveLength(0);
});

test('scale --to db.CLASS on a cluster prints the database deploy', async () => {
  clusterMocks();
  const { code, out } = await run(['scale', '--stack', CLUSTER, '--to', 'db.t4g.small']);
  expect(code).toBe(0);
  expect(out).toContain('To change the database of cluster MinnowCluster to db.t4g.small (RDS modifies it in place');
  expect(out).toContain('npx cdk deploy -c stackName=MinnowCluster -c storage=postgres -c dbInstanceType=db.t4g.small');
});

test('scale --apply on a cluster is refused with the deploy to run instead, and changes nothing', async () => {
  const { ec2, rds } = clusterMocks();
  const { code, out, err } = await run(['scale', '--stack', CLUSTER, '--to', 't3.small', '--apply']);
  expect(code).toBe(1);
  expect(out).toBe('');
  expect(err).toMatch(/^ops scale: scale --apply works on single-instance stacks only/);
  expect(err).toContain('-c storage=postgres -c instanceType=t3.small');
  expect(ec2.calls()).toHaveLength(0);
  expect(rds.calls()).toHaveLength(0);
});

test('a database class on a single-instance stack, and a bad type, are refused', async () => {
  clusterMocks();
  const single = await run(['scale', '--to', 'db.t4g.small']);
  expect([single.code, single.err]).toEqual([
    1,
    'ops scale: --to db.t4g.small is a database class, but stack "Minnow" is a single instance',
  ]);
  const bad = await run(['scale', '--stack', CLUSTER, '--to', 'huge']);
  expect(bad.err).toContain('"huge" is not an EC2 instance type');
});
