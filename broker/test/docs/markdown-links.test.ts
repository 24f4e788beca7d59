// Every relative link and anchor in README.md, BENCHMARKS.md and docs/*.md must resolve: sections
// move between these files (issue 31 moved most of the README into docs/), and a dead link or
// anchor is silent on GitHub. Anchors follow GitHub's heading slugs: lowercase, punctuation dropped,
// spaces to '-', a repeated heading gets -1, -2, ...
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../../..');
const DOCS = [
  'README.md',
  'BENCHMARKS.md',
  ...fs
    .readdirSync(path.join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text with fenced code blocks blanked (their lines kept, so line numbers stay right). */
function withoutFences(md: string): string[] {
  let fence: string | undefined;
  return md.split('\n').map((line) => {
    const mark = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fence === undefined && mark) {
      fence = mark;
      return '';
    }
    if (fence !== undefined) {
      if (mark === fence) fence = undefined;
      return '';
    }
    return line;
  });
}

/** GitHub's anchor for a heading's text. */
export function githubSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link in a heading counts by its text
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a document offers: its headings' slugs (numbered when repeated) and HTML ids. */
export function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of withoutFences(md)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = githubSlug(heading);
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      anchors.add(n === 0 ? slug : `${slug}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  return anchors;
}

interface Link {
  line: number;
  target: string;
}

/** The document's inline links and images, outside code blocks and code spans. */
export function linksOf(md: string): Link[] {
  const links: Link[] = [];
  withoutFences(md).forEach((text, i) => {
    const prose = text.replace(/`+[^`]*`+/g, (code) => ' '.repeat(code.length));
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line: i + 1, target: m[1]! });
    }
  });
  return links;
}

/** What is wrong with one link from `fromDoc` (a repository path), or undefined when it resolves. */
function problem(fromDoc: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: ...
  const [file = '', anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = file === '' ? path.join(REPO, fromDoc) : path.resolve(REPO, path.dirname(fromDoc), file);
  if (!resolved.startsWith(REPO)) return `leaves the repository (${path.relative(REPO, resolved)})`;
  if (!fs.existsSync(resolved)) return `${path.relative(REPO, resolved)} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!resolved.endsWith('.md')) return undefined; // GitHub's line anchors in code files (#L10)
  const anchors = anchorsOf(fs.readFileSync(resolved, 'utf8'));
  if (anchors.has(decodeURIComponent(anchor))) return undefined;
  return `${path.relative(REPO, resolved)} has no heading with anchor #${anchor}`;
}

describe('relative links in the docs', () => {
  it.each(DOCS)('%s: every relative link and anchor resolves', (doc) => {
    const md = fs.readFileSync(path.join(REPO, doc), 'utf8');
    const broken = linksOf(md).flatMap(({ line, target }) => {
      const why = problem(doc, target);
      return why ? [`${doc}:${line}: (${target}) ${why}`] : [];
    });
    if (broken.length > 0) {
      throw new Error(
        `${broken.length} broken link(s); fix the link, or the heading it points to moved (grep the repo for the old anchor):\n${broken.join('\n')}`,
      );
    }
  });
});

describe('the link checker itself', () => {
  it("slugs headings as GitHub does (punctuation dropped, '-' and '_' kept, spaces to '-')", () => {
    expect(githubSlug('Context values (`-c name=value`)')).toBe('context-values--c-namevalue');
    expect(githubSlug('Limits and failure behaviour')).toBe('limits-and-failure-behaviour');
    expect(githubSlug('Storage: one SQLite file')).toBe('storage-one-sqlite-file');
    expect(githubSlug('minnow beside Apache Kafka (`npm run bench:peers`)')).toBe(
      'minnow-beside-apache-kafka-npm-run-benchpeers',
    );
    expect(githubSlug('Topic and broker configs (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs)')).toBe(
      'topic-and-broker-configs-describeconfigs-alterconfigs-incrementalalterconfigs',
    );
  });

  it('numbers repeated headings and ignores headings inside code blocks', () => {
    const anchors = anchorsOf('# A\n## Notes\n```sh\n# not a heading\n```\n## Notes\n');
    expect([...anchors]).toEqual(['a', 'notes', 'notes-1']);
  });

  it('finds links outside code only', () => {
    const md = 'see [a](docs/a.md#x) and `[b](c.md)`\n```\n[d](e.md)\n```\n![img](f.svg "t")\n';
    expect(linksOf(md)).toEqual([
      { line: 1, target: 'docs/a.md#x' },
      { line: 5, target: 'f.svg' },
    ]);
  });

  it('reports a missing file and a missing anchor', () => {
    expect(problem('README.md', 'docs/nope.md')).toBe('docs/nope.md does not exist');
    expect(problem('README.md', 'docs/README.md#no-such-heading')).toBe(
      'docs/README.md has no heading with anchor #no-such-heading',
    );
    expect(problem('docs/README.md', '../README.md')).toBeUndefined();
    expect(problem('README.md', 'https://example.com/x#y')).toBeUndefined();
  });
});
