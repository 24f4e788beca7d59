// Summarizes a V8 .cpuprofile (node --cpu-prof): self time per function, heaviest first, so the
// benchmark note can say where the broker's CPU goes without opening DevTools.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface HotSpot {
  name: string;
  where: string;
  selfMs: number;
  /** Share of busy (non-idle) time. */
  percent: number;
}

export interface ProfileSummary {
  totalMs: number;
  busyMs: number;
  idleMs: number;
  top: HotSpot[];
  /** Self time by source file (native and node internals grouped by their label). */
  byFile: { file: string; selfMs: number; percent: number }[];
}

/** Leave out the first `skipStartMs` and the last `skipEndMs` of the profile (start-up, shutdown). */
export interface ProfileWindow {
  skipStartMs: number;
  skipEndMs: number;
}

export function summarizeProfile(
  profile: Profile,
  topN = 15,
  window: ProfileWindow = { skipStartMs: 0, skipEndMs: 0 },
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const from = profile.startTime + window.skipStartMs * 1000;
  const to = profile.endTime - window.skipEndMs * 1000;
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (t >= from && t <= to) self.set(id, (self.get(id) ?? 0) + delta / 1000);
  });
  const byFunction = new Map<string, HotSpot>();
  const byFile = new Map<string, number>();
  let idleMs = 0;
  let totalMs = 0;
  for (const [id, ms] of self) {
    const n = byId.get(id)!;
    totalMs += ms;
    const fn = n.callFrame.functionName || '(anonymous)';
    if (fn === '(idle)') {
      idleMs += ms;
      continue;
    }
    const file = n.callFrame.url
      ? basename(n.callFrame.url.replace(/^file:\/\//, ''))
      : fn.startsWith('(')
        ? fn
        : '(native)';
    const where = n.callFrame.url ? `${file}:${n.callFrame.lineNumber + 1}` : file;
    const key = `${fn}@${where}`;
    const h = byFunction.get(key) ?? { name: fn, where, selfMs: 0, percent: 0 };
    h.selfMs += ms;
    byFunction.set(key, h);
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
  }
  const busyMs = totalMs - idleMs;
  const pct = (ms: number) => (busyMs > 0 ? (ms / busyMs) * 100 : 0);
  const top = [...byFunction.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, topN);
  for (const h of top) h.percent = pct(h.selfMs);
  return {
    totalMs,
    busyMs,
    idleMs,
    top,
    byFile: [...byFile]
      .map(([file, selfMs]) => ({ file, selfMs, percent: pct(selfMs) }))
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, topN),
  };
}

export function summarizeProfileFile(path: string, topN = 15, window?: ProfileWindow): ProfileSummary {
  return summarizeProfile(JSON.parse(readFileSync(path, 'utf8')) as Profile, topN, window);
}
