/**
 * The project's shared cache rules (one copy for the generator; the cost model implements the
 * same): a prompt is a list of segments, cache entries are prefixes of earlier prompts, and each
 * request reads the longest alive prefix. Anthropic-style caches write entries at the breakpoints
 * (after segment 0 and after the last segment) and bill writes; automatic caches (OpenAI,
 * DeepSeek) keep every prompt, read the longest common prefix rounded down to their granularity,
 * and write for free. Reproduces replay.md §11 exactly (see the test).
 */

export interface Segment {
  readonly id: string;
  readonly tokens: number;
}

export type CacheRules =
  | { readonly kind: 'anthropic'; readonly minTokens: number; readonly ttlMs: number }
  | {
      readonly kind: 'automatic';
      readonly minTokens: number;
      readonly granularityTokens: number;
      readonly ttlMs: number;
    };

export interface CacheUsage {
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly uncachedTokens: number;
}

interface Entry {
  /** Prefix-node ids of the entry's segments (node i identifies the first i+1 segments). */
  readonly nodes: readonly number[];
  readonly cumulative: readonly number[];
  readonly depth: number;
  expiresAtMs: number;
}

/** A session's cache; one instance per session (one model per session, so no model switch). */
export class CacheSimulator {
  private readonly rules: CacheRules;
  private readonly intern = new Map<string, number>();
  private entries: Entry[] = [];
  private lastIds: string[] = [];
  private lastNodes: number[] = [];

  constructor(rules: CacheRules) {
    this.rules = rules;
  }

  /** Prices one successful request at `atMs` and updates the entries (a rejected request must not be passed here). */
  request(segments: readonly Segment[], atMs: number): CacheUsage {
    const nodes: number[] = [];
    const cumulative: number[] = [];
    let parent = 0;
    let total = 0;
    // Prompts mostly extend the previous one: reuse its prefix nodes while the ids agree.
    let shared = 0;
    while (shared < segments.length && shared < this.lastIds.length && segments[shared]?.id === this.lastIds[shared])
      shared++;
    for (const [i, segment] of segments.entries()) {
      let node = i < shared ? this.lastNodes[i] : undefined;
      if (node === undefined) {
        const key = `${parent}\u0000${segment.id}`;
        node = this.intern.get(key);
        if (node === undefined) {
          node = this.intern.size + 1;
          this.intern.set(key, node);
        }
      }
      nodes.push(node);
      total += segment.tokens;
      cumulative.push(total);
      parent = node;
    }
    this.lastIds = segments.map((s) => s.id);
    this.lastNodes = nodes;
    this.entries = this.entries.filter((e) => e.expiresAtMs >= atMs);
    const { rules } = this;
    if (rules.kind === 'anthropic') return this.anthropic(rules, nodes, cumulative, total, atMs);
    return this.automatic(rules, nodes, cumulative, total, atMs);
  }

  private anthropic(
    rules: Extract<CacheRules, { kind: 'anthropic' }>,
    nodes: number[],
    cumulative: number[],
    total: number,
    atMs: number,
  ): CacheUsage {
    if (total < rules.minTokens)
      return { promptTokens: total, cacheReadTokens: 0, cacheWriteTokens: 0, uncachedTokens: total };
    let read = 0;
    for (const entry of this.entries) {
      if (entry.depth <= nodes.length && nodes[entry.depth - 1] === entry.nodes[entry.depth - 1]) {
        entry.expiresAtMs = atMs + rules.ttlMs;
        read = Math.max(read, entry.cumulative[entry.depth - 1] ?? 0);
      }
    }
    // Breakpoints: after the static block (segment 0) and after the last segment.
    for (const depth of new Set([1, nodes.length])) {
      const tokens = cumulative[depth - 1] ?? 0;
      if (tokens < rules.minTokens) continue;
      const existing = this.entries.find((e) => e.depth === depth && e.nodes[depth - 1] === nodes[depth - 1]);
      if (existing !== undefined) existing.expiresAtMs = atMs + rules.ttlMs;
      else this.entries.push({ nodes, cumulative, depth, expiresAtMs: atMs + rules.ttlMs });
    }
    return { promptTokens: total, cacheReadTokens: read, cacheWriteTokens: total - read, uncachedTokens: 0 };
  }

  private automatic(
    rules: Extract<CacheRules, { kind: 'automatic' }>,
    nodes: number[],
    cumulative: number[],
    total: number,
    atMs: number,
  ): CacheUsage {
    let best = 0;
    const hits: { entry: Entry; tokens: number }[] = [];
    for (const entry of this.entries) {
      // Node ids name whole prefixes, so equality at depth d implies equality below d: binary search.
      let lo = 0;
      let hi = Math.min(entry.depth, nodes.length);
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (entry.nodes[mid - 1] === nodes[mid - 1]) lo = mid;
        else hi = mid - 1;
      }
      const common = lo === 0 ? 0 : (cumulative[lo - 1] ?? 0);
      const rounded = Math.floor(common / rules.granularityTokens) * rules.granularityTokens;
      if (rounded >= rules.minTokens) hits.push({ entry, tokens: rounded });
      best = Math.max(best, rounded);
    }
    const read = best >= rules.minTokens ? best : 0;
    for (const hit of hits) hit.entry.expiresAtMs = atMs + rules.ttlMs;
    const same = this.entries.find(
      (e) => e.depth === nodes.length && e.nodes[nodes.length - 1] === nodes[nodes.length - 1],
    );
    if (same !== undefined) same.expiresAtMs = atMs + rules.ttlMs;
    else if (nodes.length > 0)
      this.entries.push({ nodes, cumulative, depth: nodes.length, expiresAtMs: atMs + rules.ttlMs });
    return { promptTokens: total, cacheReadTokens: read, cacheWriteTokens: 0, uncachedTokens: total - read };
  }
}
