// What differs between two synthesized CloudFormation templates, resource by resource and property
// by property: the input of the "what each change does" table (docs/deploy.md).
import { isDeepStrictEqual } from 'node:util';

export interface TemplateJson {
  readonly Resources?: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  readonly Parameters?: Record<string, unknown>;
  readonly Outputs?: Record<string, unknown>;
}

export interface ResourceChange {
  /** The logical id without CDK's hash suffix and with release ids elided, e.g. BrokerInstance. */
  readonly name: string;
  readonly type: string;
  /**
   * modify: same logical id, some properties differ; add/remove: only in the changed or the base
   * template; renew: a resource of the same name and type under a new logical id (CloudFormation
   * creates the new one and deletes the old: the release's wait condition).
   */
  readonly action: 'modify' | 'add' | 'remove' | 'renew';
  /** The top-level properties that differ (modify only). */
  readonly properties: readonly string[];
}

/**
 * A logical id as a reader knows it: CDK appends 8 hex digits of the construct path's hash, and
 * release-keyed resources end in 16 lowercase hex digits of the release id (BrokerReleaseBoot<16 hex>).
 */
export function readableName(logicalId: string): string {
  return logicalId.replace(/[0-9A-F]{8}$/, '').replace(/[0-9a-f]{16}$/, '…');
}

function changedProperties(base: Record<string, unknown>, changed: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(base), ...Object.keys(changed)]);
  return [...keys].filter((k) => !isDeepStrictEqual(base[k], changed[k])).sort();
}

export function diffTemplates(base: TemplateJson, changed: TemplateJson): ResourceChange[] {
  const before = base.Resources ?? {};
  const after = changed.Resources ?? {};
  const changes: ResourceChange[] = [];
  const added = Object.keys(after).filter((id) => !(id in before));
  const removed = Object.keys(before).filter((id) => !(id in after));
  for (const [id, resource] of Object.entries(before)) {
    const other = after[id];
    if (!other) continue;
    if (other.Type !== resource.Type) {
      changes.push({ name: readableName(id), type: other.Type, action: 'renew', properties: [] });
      continue;
    }
    const properties = changedProperties(resource.Properties ?? {}, other.Properties ?? {});
    if (properties.length > 0)
      changes.push({ name: readableName(id), type: resource.Type, action: 'modify', properties });
  }
  const key = (id: string, type: string) => `${readableName(id)}\0${type}`;
  const removedKeys = new Set(removed.map((id) => key(id, before[id]?.Type ?? '')));
  const renewedKeys = new Set<string>();
  for (const id of added) {
    const type = after[id]?.Type ?? '';
    if (removedKeys.has(key(id, type))) {
      renewedKeys.add(key(id, type));
      changes.push({ name: readableName(id), type, action: 'renew', properties: [] });
    } else {
      changes.push({ name: readableName(id), type, action: 'add', properties: [] });
    }
  }
  for (const id of removed) {
    const type = before[id]?.Type ?? '';
    if (!renewedKeys.has(key(id, type)))
      changes.push({ name: readableName(id), type, action: 'remove', properties: [] });
  }
  return changes.sort((a, b) => a.name.localeCompare(b.name) || a.type.localeCompare(b.type));
}

/** The resource types of a template, sorted. */
export function templateTypes(template: TemplateJson): string[] {
  return [...new Set(Object.values(template.Resources ?? {}).map((r) => r.Type))].sort();
}
