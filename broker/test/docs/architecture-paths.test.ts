// docs/architecture.md is the map a newcomer follows, so every file it names must exist: a
// backticked repository path (`broker/src/server/connection.ts`, `lib/user-data.ts`) or a relative
// Markdown link ([design.md](design.md)). Renaming or moving a file then means updating the map.
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const DOC = path.join(REPO_ROOT, 'docs', 'architecture.md');

/** Backticked tokens that look like a file or folder path of the repository (a slash, no spaces or placeholders). */
export function documentedPaths(markdown: string): string[] {
  const paths = new Set<string>();
  for (const [, token] of markdown.matchAll(/`([^`\s]+)`/g)) {
    if (!token!.includes('/') || /[<>*]/.test(token!) || /^(https?:|\/|\.)/.test(token!)) continue;
    if (!/^[\w.-]+\/[\w./-]*$/.test(token!)) continue;
    paths.add(token!);
  }
  return [...paths].sort();
}

/** Relative Markdown link targets, resolved from docs/. */
export function linkedFiles(markdown: string): string[] {
  const links = new Set<string>();
  for (const [, target] of markdown.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
    if (/^[a-z]+:/.test(target!)) continue;
    links.add(path.relative(REPO_ROOT, path.join(path.dirname(DOC), target!)));
  }
  return [...links].sort();
}

describe('docs/architecture.md', () => {
  const text = fs.readFileSync(DOC, 'utf8');

  it('finds the paths it names (the extraction itself works)', () => {
    expect(
      documentedPaths('see `broker/src/a.ts`, `storage/`, `npm test`, `broker/src/<x>.ts` and `FETCH_MAX_BYTES`'),
    ).toEqual(['broker/src/a.ts', 'storage/']);
    expect(documentedPaths(text).length).toBeGreaterThan(40);
  });

  it('names only files and folders that exist', () => {
    const missing = documentedPaths(text).filter((p) => {
      // Folder names of the layer table (`storage/`, `server/handlers/`) live under broker/src.
      const candidates = [path.join(REPO_ROOT, p), path.join(REPO_ROOT, 'broker', 'src', p)];
      return !candidates.some((c) => fs.existsSync(c));
    });
    if (missing.length > 0)
      throw new Error(
        `docs/architecture.md names paths that do not exist: ${missing.join(', ')}; fix the doc or the path`,
      );
  });

  it('links only to files that exist', () => {
    const missing = linkedFiles(text).filter((p) => !fs.existsSync(path.join(REPO_ROOT, p)));
    expect(missing).toEqual([]);
  });
});
