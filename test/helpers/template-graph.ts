import type { Template } from 'aws-cdk-lib/assertions';

// No cycle finder: Template.fromStack and fromJSON already refuse a template with a dependency cycle
// (TemplateParsingOptions.skipCyclicalDependenciesCheck, false by default; test/template-graph.test.ts).

type Resources = Record<string, { Type: string; Properties?: unknown; DependsOn?: string | string[] }>;

/** The resources one resource waits for: its DependsOn, and every Ref, Fn::GetAtt and Fn::Sub name. */
export function dependenciesOf(template: Template, logicalId: string): Set<string> {
  const resources = template.toJSON().Resources as Resources;
  const resource = resources[logicalId];
  if (!resource) throw new Error(`no resource ${logicalId} in the template`);
  const found = new Set<string>([resource.DependsOn ?? []].flat());
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string') found.add(inner);
      else if (key === 'Fn::GetAtt' && Array.isArray(inner)) found.add(String(inner[0]));
      else if (key === 'Fn::Sub') {
        const text = Array.isArray(inner) ? String(inner[0]) : String(inner);
        for (const m of text.matchAll(/\$\{([^!}.]+)[^}]*\}/g)) found.add(m[1]!);
        if (Array.isArray(inner)) walk(inner[1]);
      } else walk(inner);
    }
  };
  walk(resource.Properties);
  return new Set([...found].filter((id) => id in resources));
}

/** Whether `from` waits for `to`, directly or through other resources. */
export function waitsFor(template: Template, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const id = stack.pop()!;
    for (const next of dependenciesOf(template, id)) {
      if (next === to) return true;
      if (!seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return false;
}
