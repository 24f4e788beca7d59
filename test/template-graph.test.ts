import { App, CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { waitsFor } from './helpers/template-graph';
import { kitTempDir } from './helpers/temp-dirs';

// The dependency helpers the gating tests rely on must be able to see what they look for.
const topics = (wire: (a: CfnResource, b: CfnResource, c: CfnResource) => void): Template => {
  const stack = new Stack(new App({ outdir: kitTempDir('minnow-cdk-') }), 'S');
  const [a, b, c] = ['A', 'B', 'C'].map((id) => new CfnResource(stack, id, { type: 'AWS::SNS::Topic' })) as [
    CfnResource,
    CfnResource,
    CfnResource,
  ];
  wire(a, b, c);
  return Template.fromStack(stack);
};

test('a DependsOn, a Ref, a GetAtt and a Sub are dependencies; waitsFor follows them transitively', () => {
  const template = topics((a, b, c) => {
    a.addPropertyOverride('DisplayName', { 'Fn::Sub': '${B.TopicName}' });
    b.addPropertyOverride('TopicName', c.getAtt('TopicName'));
  });
  expect(waitsFor(template, 'A', 'C')).toBe(true);
  expect(waitsFor(template, 'C', 'A')).toBe(false);
});

test('Template.fromStack and Template.fromJSON refuse a dependency cycle, so no template in the tests has one', () => {
  const stack = new Stack(new App({ outdir: kitTempDir('minnow-cdk-') }), 'S');
  const [a, b, c] = ['A', 'B', 'C'].map((id) => new CfnResource(stack, id, { type: 'AWS::SNS::Topic' })) as [
    CfnResource,
    CfnResource,
    CfnResource,
  ];
  a.addOverride('DependsOn', ['B']);
  b.addPropertyOverride('TopicName', c.ref);
  c.addOverride('DependsOn', 'A');
  expect(() => Template.fromStack(stack)).toThrow(/dependency cycle: A -> B -> C -> A/);
  // The templates the run cache shares (test/helpers/run-cache.ts) are read back with fromJSON.
  const json = Template.fromStack(stack, { skipCyclicalDependenciesCheck: true }).toJSON();
  expect(() => Template.fromJSON(json)).toThrow(/dependency cycle: A -> B -> C -> A/);
});
