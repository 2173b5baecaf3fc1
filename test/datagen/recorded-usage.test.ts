/**
 * Differential test: every recorded request of the never-compacted sessions is recomputed from
 * the files alone (store content, rollout timestamps) with a deliberately naive implementation of
 * the shared token and cache rules and of RC3/RC4, and must match the recorded usage exactly.
 * This is what the replay needs to be able to do; it proves the files carry everything.
 * Also: usage invariants on every request of every session.
 */
import { describe, expect, it } from 'vitest';
import { datasetScenarios } from '../../src/datagen/scenarios.js';
import {
  DATASET_DIR,
  num,
  optionalNum,
  readHome,
  type HomeSession,
  type RolloutEvent,
  type StoreLine,
} from './read-home.js';

const home = readHome(DATASET_DIR);
const plans = new Map(datasetScenarios().map((s) => [s.plan.name, s.plan]));

interface NaiveSegment {
  readonly id: string;
  readonly tokens: number;
}

type NaiveRules = { kind: 'breakpoints'; min: number } | { kind: 'automatic'; min: number; step: number };

interface NaiveEntry {
  ids: string[];
  cumulative: number[];
  expires: number;
}

/** The shared cache rules, written as plainly as possible (arrays compared element by element). */
class NaiveCache {
  private entries: NaiveEntry[] = [];
  constructor(
    private readonly rules: NaiveRules,
    private readonly ttlMs: number,
  ) {}

  request(prompt: readonly NaiveSegment[], at: number): { read: number; write: number } {
    this.entries = this.entries.filter((e) => e.expires >= at);
    const ids = prompt.map((s) => s.id);
    const cumulative: number[] = [];
    let total = 0;
    for (const s of prompt) cumulative.push((total += s.tokens));
    if (this.rules.kind === 'breakpoints') {
      if (total < this.rules.min) return { read: 0, write: 0 };
      let read = 0;
      for (const e of this.entries) {
        const isPrefix = e.ids.length <= ids.length && e.ids.every((id, i) => ids[i] === id);
        if (isPrefix) {
          e.expires = at + this.ttlMs;
          read = Math.max(read, e.cumulative[e.cumulative.length - 1] ?? 0);
        }
      }
      for (const depth of [1, ids.length]) {
        if ((cumulative[depth - 1] ?? 0) < this.rules.min) continue;
        const prefix = ids.slice(0, depth);
        const existing = this.entries.find((e) => e.ids.length === depth && e.ids.every((id, i) => prefix[i] === id));
        if (existing !== undefined) existing.expires = at + this.ttlMs;
        else this.entries.push({ ids: prefix, cumulative: cumulative.slice(0, depth), expires: at + this.ttlMs });
      }
      return { read, write: total - read };
    }
    const rules = this.rules;
    let best = 0;
    for (const e of this.entries) {
      let common = 0;
      while (common < e.ids.length && common < ids.length && e.ids[common] === ids[common]) common++;
      const tokens = common === 0 ? 0 : (cumulative[common - 1] ?? 0);
      const rounded = Math.floor(tokens / rules.step) * rules.step;
      if (rounded >= rules.min) e.expires = at + this.ttlMs;
      best = Math.max(best, rounded);
    }
    const same = this.entries.find((e) => e.ids.length === ids.length && e.ids.every((id, i) => ids[i] === id));
    if (same !== undefined) same.expires = at + this.ttlMs;
    else this.entries.push({ ids, cumulative, expires: at + this.ttlMs });
    return { read: best >= rules.min ? best : 0, write: 0 };
  }
}

function tokens(chars: number, cptHundredths: number): number {
  return chars <= 0 ? 0 : Math.ceil((chars * 100) / cptHundredths - 1e-9);
}

/** Assigns each assistant store line to its provider response, walking `model.response` events in order. */
function responseOfLine(store: readonly StoreLine[], responses: readonly RolloutEvent[]): Map<string, number> {
  const out = new Map<string, number>();
  const assistants = store.filter((m) => m.role === 'assistant');
  let cursor = 0;
  responses.forEach((r, index) => {
    const calls = (r['toolCalls'] as unknown[]).length; // test boundary: rollout field
    const lines = (num(r, 'textChars') > 0 || calls === 0 ? 1 : 0) + calls;
    for (let k = 0; k < lines; k++) {
      const line = assistants[cursor++];
      if (line !== undefined) out.set(line.id, index);
    }
  });
  expect(cursor).toBe(assistants.length);
  return out;
}

function recompute(s: HomeSession): void {
  const plan = plans.get(s.name);
  if (plan === undefined) throw new Error(`no plan for ${s.name}`);
  const cpt = plan.cptHundredths;
  const rules: NaiveRules =
    plan.model.cache.kind === 'anthropic'
      ? { kind: 'breakpoints', min: plan.model.cache.minTokens }
      : { kind: 'automatic', min: plan.model.cache.minTokens, step: plan.model.cache.granularityTokens };
  const cache = new NaiveCache(rules, plan.model.cache.ttlMs);
  const requests = s.events.filter((e) => e.type === 'model.request');
  const responses = s.events.filter((e) => e.type === 'model.response');
  expect(requests).toHaveLength(responses.length);
  const responseOf = responseOfLine(s.store, responses);
  const legacy = plan.legacy;
  let cleared = new Set<string>();
  let runStart = -1;
  requests.forEach((request, k) => {
    const at = request.timestamp;
    const visible = s.store.filter((m) => m.timestamp < at);
    // RC3: evaluated when a new user message starts a run.
    const lastUser = visible.map((m) => m.role).lastIndexOf('user');
    if (lastUser !== runStart) {
      runStart = lastUser;
      cleared = new Set();
      const previous = visible[lastUser - 1];
      const user = visible[lastUser];
      if (
        legacy.microcompact &&
        previous !== undefined &&
        user !== undefined &&
        user.timestamp - previous.timestamp > 300_000
      ) {
        for (const m of visible.slice(0, lastUser))
          if (m.parts.some((p) => p.type === 'tool' && (p.result ?? '').length > 200)) cleared.add(m.id);
      }
    }
    const recent = new Set<number>();
    for (let i = visible.length - 1; i >= 0 && recent.size < 2; i--) {
      const r = responseOf.get(visible[i]?.id ?? '');
      if (r !== undefined) recent.add(r);
    }
    const prompt: NaiveSegment[] = [{ id: 'S', tokens: plan.staticTokens }];
    for (const m of visible) {
      m.parts.forEach((p, i) => {
        if (p.type === 'text') prompt.push({ id: `${m.id}#${i}`, tokens: tokens((p.content ?? '').length, cpt) });
        else {
          prompt.push({
            id: `${m.id}#${i}c`,
            tokens: tokens((p.tool?.name ?? '').length + JSON.stringify(p.tool?.args).length, cpt),
          });
          const result = p.result ?? '';
          let shown = result;
          if (cleared.has(m.id)) shown = '[Old tool result content cleared]';
          else if (legacy.slidingTruncation && !recent.has(responseOf.get(m.id) ?? -1) && result.length > 1000)
            shown = `${result.slice(0, 1000)}\n[truncated]`;
          prompt.push({
            id: `${m.id}#${i}r:${shown === result ? 'full' : shown.length}`,
            tokens: tokens(shown.length, cpt),
          });
        }
      });
    }
    const promptTokens = prompt.reduce((n, x) => n + x.tokens, 0);
    const usage = cache.request(prompt, at);
    const response = responses[k];
    if (response === undefined) throw new Error('missing response');
    expect({
      k,
      input: num(response, 'inputTokens'),
      read: num(response, 'cacheReadTokens'),
      write: optionalNum(response, 'cacheWriteTokens') ?? 0,
    }).toEqual({ k, input: promptTokens, read: usage.read, write: usage.write });
  });
}

describe('recorded usage is the shared rules applied to the files', () => {
  it.each(['runaway', 'runaway-65f171fa', 'runaway-08e19c43', 'cache-bust-pruning', 'blocked-hook-storm'])(
    '%s: every request recomputed from store + rollout',
    (name) => {
      const s = home.get(name);
      if (s === undefined) throw new Error(`no session ${name}`);
      recompute(s);
    },
  );
});

describe('usage invariants on every request', () => {
  it('inclusive input = read + write + uncached ≥ read + write; read ≤ previous prompt; classes per cache style', () => {
    for (const s of home.values()) {
      const plan = plans.get(s.name);
      if (plan === undefined) throw new Error(`no plan for ${s.name}`);
      let previous = Number.POSITIVE_INFINITY;
      for (const r of s.events.filter((e) => e.type === 'model.response')) {
        const input = num(r, 'inputTokens');
        const read = num(r, 'cacheReadTokens');
        const write = optionalNum(r, 'cacheWriteTokens');
        expect(input).toBeGreaterThanOrEqual(read + (write ?? 0));
        expect(read).toBeLessThanOrEqual(previous);
        expect(num(r, 'outputTokens')).toBeGreaterThan(0);
        if (plan.model.cache.kind === 'anthropic') {
          expect(write).toBeDefined();
          expect(read + (write ?? 0)).toBe(input);
        } else {
          expect(write).toBeUndefined();
          expect(read % plan.model.cache.granularityTokens).toBe(0);
          expect(read === 0 || read >= plan.model.cache.minTokens).toBe(true);
        }
        previous = input;
      }
    }
  });

  it('store usage (when the generation has it) equals the rollout usage of the same response', () => {
    for (const s of home.values()) {
      const withUsage = s.store.filter((m) => m.usage !== undefined);
      if (withUsage.length === 0) continue;
      const responses = s.events.filter((e) => e.type === 'model.response');
      // The store may have been trimmed by compactions: match from the end.
      const tail = responses.slice(responses.length - withUsage.length);
      withUsage.forEach((m, i) => {
        const r = tail[i];
        if (r === undefined || m.usage === undefined) throw new Error('unmatched usage');
        expect(m.usage['inputTokens']).toBe(num(r, 'inputTokens'));
        expect(m.usage['outputTokens']).toBe(num(r, 'outputTokens'));
        expect(m.usage['cacheReadInputTokens']).toBe(num(r, 'cacheReadTokens'));
        expect(m.usage['cacheWriteInputTokens'] ?? m.usage['cacheCreationInputTokens']).toBe(
          optionalNum(r, 'cacheWriteTokens'),
        );
      });
    }
  });

  it('output tokens follow the response text and call arguments at the session ratio', () => {
    const s = home.get('runaway');
    const plan = plans.get('runaway');
    if (s === undefined || plan === undefined) throw new Error('no runaway');
    const calls = s.events.filter((e) => e.type === 'function.call');
    let callIndex = 0;
    for (const r of s.events.filter((e) => e.type === 'model.response')) {
      let chars = num(r, 'textChars');
      for (const name of r['toolCalls'] as string[]) {
        // test boundary: rollout field
        const call = calls[callIndex++];
        chars += name.length + JSON.stringify(call?.['args']).length;
      }
      expect(num(r, 'outputTokens')).toBe(Math.max(1, tokens(chars, plan.cptHundredths)));
    }
  });
});
