/**
 * One provider response's content: the assistant's text and its tool calls, chosen by where the
 * run is (exploring, editing, verifying) and sized towards the contribution the growth plan asks
 * for. Under the RC4 truncation only text and call arguments keep their full size in later
 * prompts, so that is what absorbs the growth there (engine.md §9.2: write/edit args carrying
 * code made the runaway's history grow).
 */
import { elaboration, finalReport, intentLine, observation, plan, statusUpdate } from './prose.js';
import type { Repo } from './repo.js';
import type { Rng } from './rng.js';
import type { ResponseKind } from './session-plan.js';
import type { TaskContext } from './task.js';
import { invokeTool, runTests, type ToolInvocation, type ToolName } from './tools.js';

export interface RunProgress {
  readonly changedFiles: Set<string>;
  testsPassed: number;
  testsFailed: number;
}

export interface ComposeInput {
  readonly rng: Rng;
  readonly repo: Repo;
  readonly task: TaskContext;
  readonly kind: ResponseKind;
  readonly index: number;
  readonly count: number;
  /** Desired contribution of this response to later prompts, in characters. */
  readonly desiredChars: number;
  /** RC4 era: results are cut to ~1,000 characters in later prompts, so they cannot carry growth. */
  readonly resultsTruncated: boolean;
  readonly nowMs: number;
  /** How many calls this response may make (1 unless parallel calls are allowed). */
  readonly maxCalls: number;
  readonly progress: RunProgress;
  /** Every call's result must be longer than this (0 = no constraint); see the simulator's RC4 note. */
  readonly minResultChars: number;
}

export interface ComposedResponse {
  readonly text: string;
  readonly calls: ToolInvocation[];
}

function chooseTool(input: ComposeInput): ToolName {
  const phase = input.count <= 1 ? 1 : input.index / (input.count - 1);
  const { rng } = input;
  const weights: [ToolName, number][] =
    phase < 0.25
      ? [
          ['ls', 6],
          ['glob', 6],
          ['grep', 14],
          ['read', 34],
          ['bash', 10],
          ['todowrite', 4],
          ['edit', 8],
          ['write', 3],
        ]
      : phase < 0.8
        ? [
            ['read', 20],
            ['grep', 8],
            ['edit', 30],
            ['write', 8],
            ['bash', 22],
            ['todowrite', 3],
            ['glob', 2],
            ['ls', 1],
          ]
        : [
            ['bash', 38],
            ['edit', 24],
            ['read', 14],
            ['write', 5],
            ['grep', 5],
          ];
  const big = input.desiredChars > 3200;
  // Under RC4 an edit costs its old block twice plus a ~1,000-character echo, so "small" is larger.
  const small = input.desiredChars < (input.resultsTruncated ? 2400 : 1200);
  const adjusted = weights.map(([name, w]): [ToolName, number] => {
    const writes = name === 'edit' || name === 'write';
    if (input.resultsTruncated) {
      if (big && writes) return [name, w * 4];
      if (small && writes) return [name, Math.max(1, Math.floor(w / 3))];
    } else {
      if (big && (name === 'read' || name === 'bash')) return [name, w * 2];
      if (small && (name === 'read' || name === 'bash')) return [name, Math.max(1, Math.floor(w / 2))];
    }
    return [name, w];
  });
  return rng.weighted(adjusted);
}

function composeText(input: ComposeInput, firstTool: ToolInvocation | null, budgetChars: number): string {
  const { rng, task } = input;
  if (input.kind === 'text') {
    const isLast = input.index === input.count - 1;
    let text = isLast
      ? finalReport(rng, task, [...input.progress.changedFiles], input.progress.testsPassed, input.progress.testsFailed)
      : statusUpdate(rng, task);
    while (text.length < Math.min(budgetChars, 4500) - 300) text += `\n\n${elaboration(rng, task)}`;
    return text;
  }
  if (firstTool === null) return '';
  let text = intentLine(rng, task, firstTool.name, firstTool.target);
  if (rng.chance(30)) text = `${observation(rng, task, 2)} ${text}`;
  if (rng.chance(6)) text = `${text}\n\n${plan(rng, task)}`;
  while (text.length < budgetChars - 150 && rng.chance(45))
    text = `${rng.chance(70) ? observation(rng, task, 3) : elaboration(rng, task)}\n\n${text}`;
  return text;
}

/**
 * The size hint that makes a call contribute about `budget` characters to later prompts: an edit
 * carries its old block in the args and echoes the new region in its result; under RC4 a result
 * stays at most ~1,000 characters, so only written code carries growth and other outputs get
 * their natural sizes.
 */
function sizeHint(input: ComposeInput, name: ToolName, budget: number): number {
  const { rng } = input;
  if (input.resultsTruncated) {
    if (name === 'edit') return Math.max(150, budget - 1_500);
    if (name === 'write') return Math.max(150, budget - 600);
    return rng.skewed(1_100, 3_600);
  }
  if (name === 'edit') return Math.max(150, Math.floor((budget - 900) / 2));
  return Math.max(150, budget - 100);
}

/** One response: text and calls, sized towards `desiredChars`. */
export function composeResponse(input: ComposeInput): ComposedResponse {
  const { rng } = input;
  if (input.kind === 'text') return { text: composeText(input, null, input.desiredChars), calls: [] };
  const hasText = input.kind === 'text+tool';
  const expectedText = hasText ? Math.min(1500, Math.max(80, Math.floor(input.desiredChars * 0.12))) : 0;
  const calls: ToolInvocation[] = [];
  const callCount = input.maxCalls > 1 && rng.chance(22) ? rng.int(2, input.maxCalls) : 1;
  const toolBudget = Math.max(200, input.desiredChars - expectedText);
  for (let i = 0; i < callCount; i++) {
    const name: ToolName =
      i > 0
        ? rng.pick<ToolName>(['read', 'read', 'grep', 'glob'])
        : input.index === input.count - 2 && rng.chance(60)
          ? 'bash'
          : chooseTool(input);
    const sizeHintChars = sizeHint(input, name, Math.floor(toolBudget / callCount));
    const ctx = { rng, repo: input.repo, task: input.task, nowMs: input.nowMs, sizeHintChars };
    let call = name === 'bash' && input.index === input.count - 2 ? runTests(ctx) : invokeTool(name, ctx);
    // A result that must be long: the model reaches for another tool (reads and test runs are long).
    for (let tries = 0; call.result.length <= input.minResultChars && tries < 12; tries++) {
      const retry = tries < 8 ? chooseTool(input) : rng.pick<ToolName>(['read', 'bash']);
      call = invokeTool(retry, { ...ctx, sizeHintChars: Math.max(sizeHintChars, input.minResultChars * 3) });
    }
    calls.push(call);
    if (call.tests !== undefined) {
      input.progress.testsPassed = call.tests.passed;
      input.progress.testsFailed = call.tests.failed;
    }
    if (!call.failed && (call.name === 'edit' || call.name === 'write')) input.progress.changedFiles.add(call.target);
  }
  const text = hasText ? composeText(input, calls[0] ?? null, expectedText) : '';
  return { text, calls };
}
