/**
 * Natural-language content: the user's prompts and the assistant's commentary, analyses and
 * final reports, composed from templates and the task's own names so that no long text repeats.
 */
import type { Rng } from './rng.js';
import type { TaskContext } from './task.js';
import { ADJECTIVES, CONNECTIVES, INTENT_OPENERS, NOUNS, OBSERVATION_OPENERS, VERBS } from './vocab.js';

function code(name: string): string {
  return `\`${name}\``;
}

function sym(rng: Rng, task: TaskContext): string {
  return rng.pick(task.symbols);
}

function file(rng: Rng, task: TaskContext): string {
  return rng.pick(task.files);
}

function clause(rng: Rng, task: TaskContext): string {
  const n = rng.pick(NOUNS);
  const a = rng.pick(ADJECTIVES);
  const v = rng.pick(VERBS);
  return rng.pick([
    `${code(sym(rng, task))} ${v}s the ${a} ${n} before the ${rng.pick(NOUNS)} is ready`,
    `the ${n} cache is keyed by ${rng.pick(NOUNS)} id only, not by tenant`,
    `we never ${v} the ${a} ${n} when the ${rng.pick(NOUNS)} list is empty`,
    `${code(sym(rng, task))} returns early for ${a} ${n}s`,
    `the ${n} timestamp is compared in seconds on one side and milliseconds on the other`,
    `the retry loop re-reads the ${n} without the lock held`,
    `the test fixture builds a ${a} ${n} that production code never sees`,
    `${file(rng, task)} still imports the old ${n} helper`,
    `the ${n} schema marks ${code(rng.pick(NOUNS) + 'Id')} as optional but the handler assumes it is set`,
    `the ${a} path skips ${code(sym(rng, task))} entirely`,
    `the batch size of ${rng.pick([50, 100, 250, 500, 1000])} is hard-coded in two places`,
    `the ${n} is ${v}ed twice when two ${rng.pick(NOUNS)}s arrive in the same tick`,
    `errors from ${code(sym(rng, task))} are swallowed and logged at debug level`,
    `the ${a} ${n} flag defaults to true in tests but false in production`,
  ]);
}

/** A one-line statement of what the assistant is about to do with a tool. */
export function intentLine(rng: Rng, task: TaskContext, tool: string, target: string): string {
  const opener = rng.pick(INTENT_OPENERS);
  switch (tool) {
    case 'read':
      return `${opener} ${rng.pick(['read', 'look at', 'open', 'check'])} ${code(target)}${rng.chance(60) ? ` to see how ${code(sym(rng, task))} ${rng.pick(['handles', 'builds', 'validates', 'passes along'])} the ${rng.pick(NOUNS)}` : ''}.`;
    case 'grep':
      return `${opener} search for ${code(target)} to find every caller.`;
    case 'glob':
    case 'ls':
      return `${opener} get an overview of ${code(target)} first.`;
    case 'edit':
      return rng.pick([
        `${opener} fix ${code(sym(rng, task))} in ${code(target)}.`,
        `Now I'll update ${code(target)} so that ${clause(rng, task)} no longer happens.`,
        `Applying the change to ${code(target)}.`,
        `${opener} adjust the ${rng.pick(NOUNS)} handling in ${code(target)}.`,
      ]);
    case 'write':
      return rng.pick([
        `${opener} create ${code(target)} with the new ${rng.pick(NOUNS)} logic.`,
        `I'll write ${code(target)} from scratch; the old version is too tangled to patch.`,
        `Adding ${code(target)} with tests for the ${task.concept} cases.`,
      ]);
    case 'bash':
      return rng.pick([`${opener} run ${code(target)}.`, `Running ${code(target)} to check.`, `${opener} verify with ${code(target)}.`]);
    case 'todowrite':
      return rng.pick(['Let me track the remaining steps.', 'Updating the plan.', 'I will keep a short todo list for this.']);
    default:
      return `${opener} use ${tool}.`;
  }
}

/** One to `maxSentences` sentences of analysis about the task. */
export function observation(rng: Rng, task: TaskContext, maxSentences: number): string {
  const count = rng.int(1, Math.max(1, maxSentences));
  const sentences: string[] = [];
  for (let i = 0; i < count; i++) {
    const kind = rng.int(0, 5);
    if (kind <= 1) sentences.push(`${rng.pick(OBSERVATION_OPENERS)} ${clause(rng, task)}.`);
    else if (kind === 2) sentences.push(`That explains ${rng.pick(['the failure', 'why the test is flaky', 'the duplicate rows', 'the timeout', `the ${rng.pick(NOUNS)} mismatch`])}: ${clause(rng, task)}.`);
    else if (kind === 3) sentences.push(`I ${rng.pick(['checked', 'compared', 'traced', 'went through'])} ${code(file(rng, task))}, ${rng.pick(CONNECTIVES)} ${clause(rng, task)}.`);
    else if (kind === 4) sentences.push(`The ${rng.pick(NOUNS)} ${rng.pick(['is currently', 'was', 'is still', 'should be'])} ${rng.pick(ADJECTIVES)} here, ${rng.pick(CONNECTIVES)} ${clause(rng, task)}.`);
    else sentences.push(`${capital(rng.pick(VERBS))}ing the ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} ${rng.pick(['first', 'up front', 'inside the lock', 'per tenant', 'lazily'])} ${rng.pick(['avoids', 'fixes', 'sidesteps', 'keeps'])} ${rng.pick(['the race', 'the extra query', 'the double write', 'the stale read', 'the N+1'])}.`);
  }
  return sentences.join(' ');
}

function capital(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A numbered plan of 3–6 steps. */
export function plan(rng: Rng, task: TaskContext): string {
  const steps = rng.int(3, 6);
  const lines = [rng.pick(['Plan:', 'Here is what I will do:', 'Steps:', 'My approach:'])];
  for (let i = 1; i <= steps; i++) {
    lines.push(`${i}. ${capital(rng.pick(VERBS))} ${rng.pick(['the', 'every', 'each'])} ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} in ${code(file(rng, task))}${rng.chance(40) ? ` (${clause(rng, task)})` : ''}`);
  }
  return lines.join('\n');
}

/** The end-of-run report: what changed, where, and how it was verified. */
export function finalReport(rng: Rng, task: TaskContext, changedFiles: readonly string[], testsPassed: number, testsFailed: number): string {
  const parts: string[] = [];
  parts.push(
    rng.pick([
      `Done. ${observation(rng, task, 2)}`,
      `I've finished the ${task.concept} change.`,
      `Summary of the ${task.kind === 'investigate' ? 'investigation' : 'changes'}:`,
      `The ${task.concept} work is completed.`,
      `All set: ${clause(rng, task)} is fixed.`,
    ]),
  );
  const files = changedFiles.length > 0 ? changedFiles : task.files.slice(0, 2);
  const bullets = files.slice(0, 6).map((f) => `- ${code(f)}: ${rng.pick(VERBS)}ed the ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} ${rng.pick(['handling', 'path', 'check', 'lookup', 'mapping'])}${rng.chance(40) ? `; ${clause(rng, task)} is now covered` : ''}`);
  parts.push(['Changes:', ...bullets].join('\n'));
  if (testsFailed > 0) parts.push(`${testsPassed} tests pass, ${testsFailed} still failing: ${rng.pick(['they look unrelated (network fixtures)', 'the remaining failure is the flaky clock test', 'I left them for a follow-up'])}.`);
  else if (testsPassed > 0) parts.push(`${rng.pick(['Verified', 'Checked', 'Confirmed'])}: ${testsPassed} tests pass${rng.chance(50) ? ' and the typecheck is clean' : ''}.`);
  if (rng.chance(55)) parts.push(observation(rng, task, 3));
  if (rng.chance(40)) parts.push(`${rng.pick(['Next', 'As a follow-up', 'Later'])}, ${rng.pick(['we could', 'it would be worth it to', 'I would'])} ${rng.pick(VERBS)} the ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}s in ${code(rng.pick(task.files))} too.`);
  return parts.join('\n\n');
}

/** A user prompt for the task; `paste` (a log, a trace) is appended verbatim when given. */
export function userPrompt(rng: Rng, task: TaskContext, paste: string | null, followUp: boolean): string {
  const f = code(file(rng, task));
  const s = code(sym(rng, task));
  const ask = followUp
    ? rng.pick([
        `Thanks. Now ${rng.pick(VERBS)} the ${task.concept} part in ${f} as well.`,
        `That looks right. Can you also check ${s}? ${rng.pick(['Same problem there I think.', 'It has the same smell.', 'Something is off with its tests.'])}`,
        `Next: ${task.concept}. ${rng.pick(['Keep the public API as it is.', 'Please add tests.', 'Small commits please.'])}`,
        `ok, ${rng.pick(['tests pass here too', 'merged that', 'CI is green'])}. ${capital(rng.pick(VERBS))} ${task.concept} next, start with ${f}.`,
        `Hmm, ${s} still ${rng.pick(['fails', 'times out', 'returns the stale value'])} on staging. Look again?`,
      ])
    : rng.pick([
        `I need help with ${task.concept} in ${code(task.packageName)}. ${rng.pick(['The entry point is', 'Start from', 'Most of it lives in'])} ${f}.`,
        `${s} ${rng.pick(['is broken', 'fails intermittently', 'got slow', 'returns wrong totals'])} since ${rng.pick(['the last release', 'we upgraded the driver', 'Friday', 'the schema migration'])}. Can you find out why and fix it?`,
        `Please ${rng.pick(['implement', 'add', 'finish'])} ${task.concept}. ${rng.pick(['There is a half-done branch of it in', 'See the TODOs in', 'The spec is in the docs, code goes in'])} ${f}.`,
        `Refactor ${f}: ${clause(rng, task)}, and the file is too long. Keep behaviour identical.`,
        `We are getting "${task.errorText}" in production. ${rng.pick(['Investigate and fix.', 'What is going on?', 'Can you track it down?'])}`,
      ]);
  const extra = rng.chance(35) ? ` ${rng.pick(['Run the tests when you are done.', 'Do not touch the migrations.', 'Use the existing logger.', 'Prefer small, focused changes.', 'Explain what you changed at the end.'])}` : '';
  return paste === null ? `${ask}${extra}` : `${ask}${extra}\n\n${paste}`;
}

/** A short mid-run status update with no tool call (the todo nudge keeps the run going). */
export function statusUpdate(rng: Rng, task: TaskContext): string {
  return rng.pick([
    `Quick status: I'm currently working on ${code(sym(rng, task))}; ${clause(rng, task)}.`,
    `Progress so far: the ${task.concept} change is in progress. ${observation(rng, task, 2)}`,
    `I've completed the first part. ${observation(rng, task, 2)} Continuing with the tests.`,
    `Still working on it. ${observation(rng, task, 3)}`,
  ]);
}
