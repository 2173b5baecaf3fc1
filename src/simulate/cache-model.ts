/**
 * The provider prompt-cache model (replay.md §5, the project's cache rules): given the cache
 * state, a prompt as segments, its time and model, it splits the prompt into cache read, cache
 * write (5m or 1h) and uncached input, and updates the state.
 *
 * Representation: the entries live in a trie of segment ids. A node is a prefix of some earlier
 * prompt; `entryExpiresAtMs` is the expiry of the entry that ends exactly there (breakpoint
 * caches), `coverExpiresAtMs` the latest expiry of any entry at or below it (automatic caches
 * hit any prefix of an alive entry). One request walks its own path once, comparing segment ids
 * from the start with an early exit, so the cost is O(segments) however many entries are alive.
 * Dead branches are swept when the trie has doubled since the last sweep; sweeping removes only
 * entries that can no longer be read, so it never changes a result.
 *
 * The last walked path is remembered (`PathMemo`): a session's prompts mostly extend the previous
 * one, so the part a prompt shares with that path (the same segments: id and tokens, compared in
 * one pass over two arrays) is not walked again. Its nodes' cover is raised lazily (one value for the whole path, written when a
 * node leaves the path), its tokens are the path's running sums, and a breakpoint cache looks only
 * at the entries on it. The outcome and the trie are exactly those of walking every segment
 * (property-tested against a state without the memo).
 *
 * Mutation, on purpose (the replay calls this ~10^6 times per sweep): `applyCacheRequest`
 * updates the state it is given and returns the same object. Use `cloneCacheState` to branch.
 */
import type { CacheClassTokens } from '../session/cache-class-tokens.js';
import { cutTo, emptyObjectArray } from '../session/packed-array.js';
import type { CacheRules, CacheTtl } from '../provider/cache-rules.js';

/** One part of a provider prompt; the id changes whenever the rendered content changes. */
export type Segment = { readonly id: string; readonly tokens: number };

type CacheNode = {
  readonly id: string;
  /** Expiry of the entry ending at this node; -Infinity when none was ever written here. */
  entryExpiresAtMs: number;
  /** The latest expiry of any entry at or below this node (never below any descendant's). */
  coverExpiresAtMs: number;
  firstChild: CacheNode | null;
  otherChildren: Map<string, CacheNode> | null;
};

/**
 * The path the last request walked (or a longer one, when a request walked only a prefix of it).
 * `segments[i]` is the segment `nodes[i]` was reached by; a later prompt that holds the same
 * segments (same ids and tokens) up to some index reaches the same nodes with the same sums.
 */
type PathMemo = {
  readonly nodes: CacheNode[];
  readonly segments: Segment[];
  /** Tokens of `segments[0..i]`. */
  readonly cumulative: number[];
  /** The indexes `i`, ascending, where `nodes[i]` has an entry (`entryExpiresAtMs` > -Infinity). */
  readonly entries: number[];
  /** Every node of the path covers at least this (not yet written to `coverExpiresAtMs`). */
  cover: number;
};

export type CacheState = {
  /** The model of the last request; a different model finds the cache empty. */
  model: string | null;
  root: CacheNode;
  nodeCount: number;
  sweepAtNodeCount: number;
  /** The latest request time seen: the cache never goes back in time. */
  nowMs: number;
  /** The last walked path (see the module comment); null = none remembered. */
  path: PathMemo | null;
};

export type CacheRequest = {
  readonly prompt: readonly Segment[];
  readonly atMs: number;
  readonly model: string;
  readonly rules: CacheRules;
  /** Breakpoint caches only; automatic caches keep the provider's own TTL. */
  readonly ttl: CacheTtl;
};

/** Usage of one request by cache class; `promptTokens = read + write5m + write1h + uncached`. */
export type CacheOutcome = Omit<CacheClassTokens, 'outputTokens'> & {
  readonly state: CacheState;
  /** Segments of the prompt found in an alive entry before rounding and the minimum (diagnostics: cache busts). */
  readonly matchedPrefixSegments: number;
};

const MIN_SWEEP_NODE_COUNT = 4096;

function newNode(id: string): CacheNode {
  return {
    id,
    entryExpiresAtMs: Number.NEGATIVE_INFINITY,
    coverExpiresAtMs: Number.NEGATIVE_INFINITY,
    firstChild: null,
    otherChildren: null,
  };
}

/** An empty cache, before the first request of a session. */
export function createCacheState(): CacheState {
  return {
    model: null,
    root: newNode(''),
    nodeCount: 0,
    sweepAtNodeCount: MIN_SWEEP_NODE_COUNT,
    nowMs: Number.NEGATIVE_INFINITY,
    path: null,
  };
}

function sameSegment(a: Segment | undefined, b: Segment | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.id === b.id && a.tokens === b.tokens);
}

function emptyPath(): PathMemo {
  return {
    nodes: emptyObjectArray(),
    segments: emptyObjectArray(),
    cumulative: [],
    entries: [],
    cover: Number.NEGATIVE_INFINITY,
  };
}

/** Writes the path's pending cover into its nodes from index `from` on. */
function writeCover(path: PathMemo, from: number): void {
  const { nodes, cover } = path;
  for (let i = from; i < nodes.length; i++) {
    const node = nodes[i];
    if (node !== undefined && node.coverExpiresAtMs < cover) node.coverExpiresAtMs = cover;
  }
}

/** Writes the pending cover and forgets the path (before the trie is swept, copied or reset). */
function forgetPath(state: CacheState): void {
  if (state.path !== null) writeCover(state.path, 0);
  state.path = null;
}

/** Keeps the first `length` nodes of the path; the others leave it with their pending cover written. */
function truncatePath(path: PathMemo, length: number): void {
  writeCover(path, length);
  cutTo(path.nodes, length);
  cutTo(path.segments, length);
  cutTo(path.cumulative, length);
  const entries = path.entries;
  while (entries.length > 0 && (entries[entries.length - 1] ?? 0) >= length) entries.pop();
}

/** Records that `path.nodes[index]` has an entry (kept ascending). */
function noteEntry(path: PathMemo, index: number): void {
  const entries = path.entries;
  let at = entries.length;
  while (at > 0 && (entries[at - 1] ?? 0) > index) at -= 1;
  if (entries[at - 1] !== index) entries.splice(at, 0, index);
}

/** Raises the cover of the path's first `length` nodes to `expiresAtMs`. */
function coverPath(path: PathMemo, length: number, expiresAtMs: number): void {
  if (expiresAtMs <= path.cover) return;
  if (length === path.nodes.length) {
    path.cover = expiresAtMs;
    return;
  }
  for (let i = 0; i < length; i++) {
    const node = path.nodes[i];
    if (node !== undefined && node.coverExpiresAtMs < expiresAtMs) node.coverExpiresAtMs = expiresAtMs;
  }
}

function findChild(node: CacheNode, id: string): CacheNode | null {
  const first = node.firstChild;
  if (first === null) return null;
  if (first.id === id) return first;
  const other = node.otherChildren;
  return other === null ? null : (other.get(id) ?? null);
}

function addChild(state: CacheState, node: CacheNode, id: string): CacheNode {
  const child = newNode(id);
  state.nodeCount += 1;
  if (node.firstChild === null) {
    node.firstChild = child;
  } else {
    if (node.otherChildren === null) node.otherChildren = new Map();
    node.otherChildren.set(id, child);
  }
  return child;
}

function childrenOf(node: CacheNode): CacheNode[] {
  const children: CacheNode[] = [];
  if (node.firstChild !== null) children.push(node.firstChild);
  if (node.otherChildren !== null) for (const child of node.otherChildren.values()) children.push(child);
  return children;
}

function setChildren(node: CacheNode, children: readonly CacheNode[]): void {
  node.firstChild = children[0] ?? null;
  if (children.length <= 1) {
    node.otherChildren = null;
    return;
  }
  const other = new Map<string, CacheNode>();
  for (let i = 1; i < children.length; i++) {
    const child = children[i];
    if (child !== undefined) other.set(child.id, child);
  }
  node.otherChildren = other;
}

/** Removes every subtree whose entries are all dead at `nowMs` (iterative: paths can be deep). */
function sweep(state: CacheState, nowMs: number): void {
  forgetPath(state);
  let liveNodes = 0;
  const stack: CacheNode[] = [state.root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const alive = childrenOf(node).filter((child) => child.coverExpiresAtMs >= nowMs);
    setChildren(node, alive);
    liveNodes += alive.length;
    for (const child of alive) stack.push(child);
  }
  state.nodeCount = liveNodes;
  state.sweepAtNodeCount = Math.max(MIN_SWEEP_NODE_COUNT, 2 * liveNodes);
}

/** A deep copy of the state, for callers that need to branch (what-if probes, tests). */
export function cloneCacheState(state: CacheState): CacheState {
  // The pending cover written first (the same state), so that the copies carry it; the copy starts without a path.
  if (state.path !== null) writeCover(state.path, 0);
  const copyOf = (node: CacheNode): CacheNode => ({ ...node, firstChild: null, otherChildren: null });
  const root = copyOf(state.root);
  const stack: [CacheNode, CacheNode][] = [[state.root, root]];
  for (let pair = stack.pop(); pair !== undefined; pair = stack.pop()) {
    const [from, to] = pair;
    const copies = childrenOf(from).map((child) => {
      const copy = copyOf(child);
      stack.push([child, copy]);
      return copy;
    });
    setChildren(to, copies);
  }
  return { ...state, root, path: null };
}

function roundedRead(matchedTokens: number, rules: CacheRules): number {
  const rounded =
    rules.granularityTokens > 1
      ? Math.floor(matchedTokens / rules.granularityTokens) * rules.granularityTokens
      : matchedTokens;
  return rounded < rules.minCacheableTokens ? 0 : rounded;
}

/**
 * The read a provider with transient misses gives on average: the static block (segment 0, kept
 * cached by other sessions) always, the rest of the alive prefix short by `transientMissRate`.
 */
function expectedRead(read: number, floorTokens: number, rules: CacheRules): number {
  if (rules.transientMissRate <= 0 || read <= floorTokens) return read;
  return read - Math.round(rules.transientMissRate * (read - floorTokens));
}

/**
 * Splits one request's prompt into cache classes and updates `state` in place (returned as
 * `state`): the project's cache rules, §1 model switch and expiry, §2 breakpoint caches,
 * §3–§4 automatic caches. Time never runs backwards: an earlier `atMs` counts as the latest seen.
 */
export function applyCacheRequest(state: CacheState, request: CacheRequest): CacheOutcome {
  const { prompt, model, rules } = request;
  if (state.model !== model) {
    // A model switch kills every entry (rule 1): provider caches are per model.
    state.model = model;
    state.root = newNode('');
    state.nodeCount = 0;
    state.sweepAtNodeCount = MIN_SWEEP_NODE_COUNT;
    state.path = null;
  }
  const atMs = Math.max(request.atMs, state.nowMs);
  state.nowMs = atMs;

  const path = (state.path ??= emptyPath());
  // The part of the prompt that is the remembered path's: the same segments (a child per id, so the
  // same nodes; the same tokens, so the same running sums), mostly the very same objects.
  const limit = Math.min(prompt.length, path.segments.length);
  let shared = 0;
  while (shared < limit && sameSegment(prompt[shared], path.segments[shared])) shared += 1;
  let promptTokens = shared === 0 ? 0 : (path.cumulative[shared - 1] ?? 0);
  for (let i = shared; i < prompt.length; i++) promptTokens += prompt[i]?.tokens ?? 0;

  if (promptTokens < rules.minCacheableTokens) {
    // No entry shorter than the minimum exists, so nothing can be read, refreshed or written.
    return {
      state,
      promptTokens,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      uncachedInputTokens: promptTokens,
      matchedPrefixSegments: 0,
    };
  }

  const walk: SharedWalk = { path, shared, prefixOnly: shared === prompt.length && shared <= path.nodes.length };
  const outcome =
    rules.kind === 'anthropic-breakpoints'
      ? applyBreakpointRequest(state, request, atMs, promptTokens, walk)
      : applyAutomaticRequest(state, request, atMs, promptTokens, walk);
  if (state.nodeCount > state.sweepAtNodeCount) sweep(state, atMs);
  return outcome;
}

/**
 * How a request meets the remembered path: its first `shared` segments are the path's; with
 * `prefixOnly` that is the whole prompt (the path stays as long as it is), else the path becomes
 * the prompt's: cut to `shared` (`startWalk`) and extended by the segments walked after it.
 */
type SharedWalk = { readonly path: PathMemo; readonly shared: number; readonly prefixOnly: boolean };

/** Cuts the path to the shared part before the rest of the prompt is walked from it. */
function startWalk(walk: SharedWalk, expiresAtMs: number): void {
  const { path, shared } = walk;
  truncatePath(path, shared);
  // The path's pending cover becomes `expiresAtMs` once walked: written first where it was higher.
  if (expiresAtMs < path.cover) {
    writeCover(path, 0);
    path.cover = Number.NEGATIVE_INFINITY;
  }
}

/** After a walk that made the path the prompt's: every node on it covers `expiresAtMs` (≥ its pending cover). */
function endWalk(walk: SharedWalk, expiresAtMs: number): void {
  walk.path.cover = expiresAtMs;
}

/** A breakpoint write at a node of the shared part (rule 2: after segment 0 and after the last segment). */
function writeBreakpoint(path: PathMemo, index: number, expiresAtMs: number, minTokens: number): void {
  const node = path.nodes[index];
  if (node === undefined) throw new Error('invariant: a breakpoint on the remembered path');
  if ((path.cumulative[index] ?? 0) < minTokens || node.entryExpiresAtMs >= expiresAtMs) return;
  const fresh = node.entryExpiresAtMs === Number.NEGATIVE_INFINITY;
  node.entryExpiresAtMs = expiresAtMs;
  if (fresh) noteEntry(path, index);
}

/** Rule 2: read the longest alive entry that is exactly a prefix; write entries after segment 0 and at the end. */
function applyBreakpointRequest(
  state: CacheState,
  request: CacheRequest,
  atMs: number,
  promptTokens: number,
  walk: SharedWalk,
): CacheOutcome {
  const { prompt, rules } = request;
  // Both lifetimes read on every request, so the optimized code has seen them whatever TTL came first.
  const ttl1hMs = rules.ttl1hMs;
  const ttlMs = rules.ttlMs;
  const oneHour = request.ttl === '1h' && ttl1hMs !== null;
  const expiresAtMs = atMs + (oneHour && ttl1hMs !== null ? ttl1hMs : ttlMs);
  const lastIndex = prompt.length - 1;
  const minTokens = rules.minCacheableTokens;
  const { path, shared, prefixOnly } = walk;
  if (!prefixOnly) startWalk(walk, expiresAtMs);

  let matchedTokens = 0;
  let matchedPrefixSegments = 0;
  // The shared part: only its entries can be read, and each alive one is refreshed (TTL resets on hit).
  for (const index of path.entries) {
    if (index >= shared) break;
    const node = path.nodes[index];
    const cumulativeTokens = path.cumulative[index] ?? 0;
    if (node !== undefined && node.entryExpiresAtMs >= atMs && cumulativeTokens >= minTokens) {
      matchedTokens = cumulativeTokens;
      matchedPrefixSegments = index + 1;
      if (node.entryExpiresAtMs < expiresAtMs) node.entryExpiresAtMs = expiresAtMs;
    }
  }
  // Breakpoints: after the static block (segment 0) and after the last segment (engine.md §5.8).
  if (shared > 0) writeBreakpoint(path, 0, expiresAtMs, minTokens);
  if (lastIndex > 0 && lastIndex < shared) writeBreakpoint(path, lastIndex, expiresAtMs, minTokens);

  if (prefixOnly) {
    coverPath(path, shared, expiresAtMs);
  } else {
    // The rest of the prompt, walked segment by segment; the path becomes the prompt's.
    let node = shared === 0 ? state.root : (path.nodes[shared - 1] ?? state.root);
    let cumulativeTokens = shared === 0 ? 0 : (path.cumulative[shared - 1] ?? 0);
    let onExistingPath = true;
    for (let i = shared; i <= lastIndex; i++) {
      const segment = prompt[i];
      if (segment === undefined) break;
      cumulativeTokens += segment.tokens;
      let child = onExistingPath ? findChild(node, segment.id) : null;
      if (child === null) {
        onExistingPath = false;
        child = addChild(state, node, segment.id);
      } else if (child.entryExpiresAtMs >= atMs && cumulativeTokens >= minTokens) {
        // An alive entry that is a prefix of this prompt: a read candidate, refreshed (TTL resets on hit).
        matchedTokens = cumulativeTokens;
        matchedPrefixSegments = i + 1;
        if (child.entryExpiresAtMs < expiresAtMs) child.entryExpiresAtMs = expiresAtMs;
      }
      // The whole-prompt entry is written below (promptTokens ≥ minimum here), so every node on the path is covered.
      if (child.coverExpiresAtMs < expiresAtMs) child.coverExpiresAtMs = expiresAtMs;
      const isBreakpoint = i === 0 || i === lastIndex;
      if (isBreakpoint && cumulativeTokens >= minTokens && child.entryExpiresAtMs < expiresAtMs) {
        child.entryExpiresAtMs = expiresAtMs;
      }
      extendPath(path, child, segment, cumulativeTokens, i);
      node = child;
    }
    endWalk(walk, expiresAtMs);
  }
  if (state.root.coverExpiresAtMs < expiresAtMs) state.root.coverExpiresAtMs = expiresAtMs;

  const cacheReadTokens = roundedRead(matchedTokens, rules);
  const rest = promptTokens - cacheReadTokens;
  return {
    state,
    promptTokens,
    cacheReadTokens,
    cacheWrite5mTokens: rules.writesBilled && !oneHour ? rest : 0,
    cacheWrite1hTokens: rules.writesBilled && oneHour ? rest : 0,
    uncachedInputTokens: rules.writesBilled ? 0 : rest,
    matchedPrefixSegments,
  };
}

/** Appends the walk's step `index` to the path: its node, segment and running token total, and whether it holds an entry. */
function extendPath(path: PathMemo, child: CacheNode, segment: Segment, cumulativeTokens: number, index: number): void {
  path.nodes.push(child);
  path.segments.push(segment);
  path.cumulative.push(cumulativeTokens);
  if (child.entryExpiresAtMs !== Number.NEGATIVE_INFINITY) path.entries.push(index);
}

/**
 * Rules 3–4: read the longest common prefix with any alive entry (rounded down, 0 below the
 * minimum); the whole prompt becomes an entry. The hit prefix is refreshed through that new
 * entry; the unmatched tail of an older entry keeps its own expiry (providers cache prefix
 * blocks, not whole prompts), which the rules' "entries that gave a hit are refreshed" leaves open.
 */
function applyAutomaticRequest(
  state: CacheState,
  request: CacheRequest,
  atMs: number,
  promptTokens: number,
  walk: SharedWalk,
): CacheOutcome {
  const { prompt, rules } = request;
  const expiresAtMs = atMs + rules.ttlMs;
  const { path, shared, prefixOnly } = walk;

  // The shared part matches as far as its nodes cover `atMs` (all of it when the path's pending cover does).
  let matchedPrefixSegments = 0;
  if (path.cover >= atMs) matchedPrefixSegments = shared;
  else {
    while (matchedPrefixSegments < shared && (path.nodes[matchedPrefixSegments]?.coverExpiresAtMs ?? 0) >= atMs)
      matchedPrefixSegments += 1;
  }
  let matchedTokens = matchedPrefixSegments === 0 ? 0 : (path.cumulative[matchedPrefixSegments - 1] ?? 0);
  let matching = matchedPrefixSegments === shared;

  let node = shared === 0 ? state.root : (path.nodes[shared - 1] ?? state.root);
  if (prefixOnly) {
    coverPath(path, shared, expiresAtMs);
  } else {
    startWalk(walk, expiresAtMs);
    let cumulativeTokens = shared === 0 ? 0 : (path.cumulative[shared - 1] ?? 0);
    let onExistingPath = true;
    for (let i = shared; i < prompt.length; i++) {
      const segment = prompt[i];
      if (segment === undefined) break;
      cumulativeTokens += segment.tokens;
      let child = onExistingPath ? findChild(node, segment.id) : null;
      if (child === null) {
        onExistingPath = false;
        matching = false;
        child = addChild(state, node, segment.id);
      } else if (matching && child.coverExpiresAtMs >= atMs) {
        matchedTokens += segment.tokens;
        matchedPrefixSegments += 1;
      } else {
        matching = false;
      }
      if (child.coverExpiresAtMs < expiresAtMs) child.coverExpiresAtMs = expiresAtMs;
      extendPath(path, child, segment, cumulativeTokens, i);
      node = child;
    }
    endWalk(walk, expiresAtMs);
  }
  if (node.entryExpiresAtMs < expiresAtMs) {
    const fresh = node.entryExpiresAtMs === Number.NEGATIVE_INFINITY;
    node.entryExpiresAtMs = expiresAtMs;
    if (fresh && node !== state.root) noteEntry(path, prompt.length - 1);
  }
  if (state.root.coverExpiresAtMs < expiresAtMs) state.root.coverExpiresAtMs = expiresAtMs;

  const firstSegmentTokens = matchedPrefixSegments > 0 ? (prompt[0]?.tokens ?? 0) : 0;
  const cacheReadTokens = expectedRead(
    roundedRead(matchedTokens, rules),
    roundedRead(firstSegmentTokens, rules),
    rules,
  );
  const rest = promptTokens - cacheReadTokens;
  return {
    state,
    promptTokens,
    cacheReadTokens,
    // Automatic caches with billed writes are not a known provider shape; kept general for data-only families.
    cacheWrite5mTokens: rules.writesBilled ? rest : 0,
    cacheWrite1hTokens: 0,
    uncachedInputTokens: rules.writesBilled ? 0 : rest,
    matchedPrefixSegments,
  };
}
