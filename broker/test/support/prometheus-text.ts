// Reads Prometheus text exposition (what GET /metrics answers) with parse-prometheus-text-format,
// the parser ported from Prometheus's own Python client, into samples a test can look up.
const parsePrometheusTextFormat = require('parse-prometheus-text-format') as (text: string) => ParsedFamily[];

interface ParsedFamily {
  name: string;
  help: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string> }[];
}

export interface MetricFamily {
  type: string;
  samples: { labels: Record<string, string>; value: number }[];
}

export class ScrapedMetrics {
  readonly families = new Map<string, MetricFamily>();

  constructor(text: string) {
    for (const f of parsePrometheusTextFormat(text)) {
      this.families.set(f.name, {
        type: f.type.toLowerCase(),
        samples: f.metrics.map((m) => ({ labels: m.labels ?? {}, value: Number(m.value) })),
      });
    }
  }

  /** The value of the one sample of `name` whose labels include `labels`; undefined if none. */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    const matching = (this.families.get(name)?.samples ?? []).filter((s) =>
      Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
    if (matching.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${matching.length} samples`);
    return matching[0]?.value;
  }

  type(name: string): string | undefined {
    return this.families.get(name)?.type;
  }
}
