/**
 * Natural-language content: the user's prompts and the assistant's commentary, analyses and
 * final reports, composed from templates and the task's own names so that no long text repeats.
 */
import { typescriptStatements } from './code-typescript.js';
import { pythonStatements } from './code-python.js';
import { gerund, participle, plural, thirdPerson, withArticle } from './english.js';
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

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A finding about the code, as a clause (no capital, no final stop). */
function clause(rng: Rng, task: TaskContext): string {
  const n = rng.pick(NOUNS);
  const n2 = rng.pick(NOUNS);
  const a = rng.pick(ADJECTIVES);
  const v = rng.pick(VERBS);
  const s = code(sym(rng, task));
  return rng.pick([
    `${s} ${thirdPerson(v)} the ${a} ${n} before the ${n2} is ready`,
    `the ${n} cache is keyed by ${n2} id only, not by tenant`,
    `we never ${v} the ${a} ${n} when the ${n2} list is empty`,
    `${s} returns early for ${a} ${plural(n)}`,
    `the ${n} timestamp is compared in seconds on one side and milliseconds on the other`,
    `the retry loop re-reads the ${n} without holding the lock`,
    `the test fixture builds ${withArticle(a)} ${n} that production code never sees`,
    `${code(file(rng, task))} still imports the old ${n} helper`,
    `the ${n} schema marks ${code(`${n2}Id`)} as optional but the handler assumes it is set`,
    `the ${a} path skips ${s} entirely`,
    `the batch size of ${rng.pick([50, 100, 250, 500, 1000])} is hard-coded in two places`,
    `the ${n} is ${participle(v)} twice when two ${plural(n2)} arrive in the same tick`,
    `errors from ${s} are swallowed and logged at debug level`,
    `the ${a} ${n} flag defaults to true in tests but false in production`,
    `${s} mutates the ${n} it was given instead of copying it`,
    `the ${n} iterator is consumed once for the count and again for the ${plural(n2)}`,
    `the ${n2} query has no index on ${code(`${n}_id`)}, so it scans the whole table`,
    `the timeout is ${rng.int(2, 30)}s in the client but ${rng.int(31, 120)}s on the server`,
    `${s} compares ${plural(n)} by reference, so equal ${plural(n)} from two sources never match`,
    `the ${n} map is module-level and leaks between tests`,
    `the migration added ${code(`${n}_${n2}`)} as nullable, and old rows still have null there`,
    `the ${a} ${n} is sorted by insertion order, not by ${code('createdAt')}`,
    `the error handler rethrows without the original cause, which is why the trace stops at ${s}`,
    `two callers pass the ${n} in different units`,
    `the ${n2} fallback kicks in before the ${n} has loaded`,
    `the pagination cursor is built from the last ${n} of the previous page, which can be ${a}`,
    `${s} is called once per ${n} instead of once per batch`,
    `nothing ever expires the ${a} ${plural(n)}, so the set grows without bound`,
  ]);
}

/** A one-line statement of what the assistant is about to do with a tool. */
export function intentLine(rng: Rng, task: TaskContext, tool: string, target: string): string {
  const opener = rng.pick(INTENT_OPENERS);
  switch (tool) {
    case 'read':
      return `${opener} ${rng.pick(['read', 'look at', 'open', 'check'])} ${code(target)}${rng.chance(60) ? ` to see how ${code(sym(rng, task))} ${rng.pick(['handles', 'builds', 'validates', 'passes along', 'caches', 'orders'])} the ${rng.pick(NOUNS)}` : ''}.`;
    case 'grep':
      return rng.pick([
        `${opener} search for ${code(target)} to find every caller.`,
        `Where else is ${code(target)} used?`,
        `${opener} find the other uses of ${code(target)}.`,
      ]);
    case 'glob':
    case 'ls':
      return rng.pick([
        `${opener} get an overview of ${code(target)} first.`,
        `Let me see what lives in ${code(target)}.`,
        `${opener} list ${code(target)}.`,
      ]);
    case 'edit':
      return rng.pick([
        `${opener} fix ${code(sym(rng, task))} in ${code(target)}.`,
        `Now I'll update ${code(target)} so that ${clause(rng, task)} no longer happens.`,
        `Applying the change to ${code(target)}.`,
        `${opener} adjust the ${rng.pick(NOUNS)} handling in ${code(target)}.`,
        `Updating ${code(target)}: ${rng.pick(VERBS)} the ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} before ${gerund(rng.pick(VERBS))} it.`,
      ]);
    case 'write':
      return rng.pick([
        `${opener} create ${code(target)} with the new ${rng.pick(NOUNS)} logic.`,
        `I'll rewrite ${code(target)}; the old version is too tangled to patch.`,
        `Adding ${code(target)} with tests for the ${task.concept} cases.`,
      ]);
    case 'bash':
      return rng.pick([
        `${opener} run ${code(target)}.`,
        `Running ${code(target)} to check.`,
        `${opener} verify with ${code(target)}.`,
        `Let's see what ${code(target)} says.`,
      ]);
    case 'todowrite':
      return rng.pick([
        'Let me track the remaining steps.',
        'Updating the plan.',
        'I will keep a short todo list for this.',
      ]);
    default:
      return `${opener} use ${tool}.`;
  }
}

/** One to `maxSentences` sentences of analysis about the task. */
export function observation(rng: Rng, task: TaskContext, maxSentences: number): string {
  const count = rng.int(1, Math.max(1, maxSentences));
  const sentences: string[] = [];
  for (let i = 0; i < count; i++) {
    const kind = rng.int(0, 7);
    if (kind <= 1) sentences.push(`${rng.pick(OBSERVATION_OPENERS)} ${clause(rng, task)}.`);
    else if (kind === 2)
      sentences.push(
        `That explains ${rng.pick(['the failure', 'why the test is flaky', 'the duplicate rows', 'the timeout', `the ${rng.pick(NOUNS)} mismatch`, 'the memory growth', 'the 500s in the logs'])}: ${clause(rng, task)}.`,
      );
    else if (kind === 3)
      sentences.push(
        `I ${rng.pick(['checked', 'compared', 'traced', 'went through'])} ${code(file(rng, task))}, ${rng.pick(CONNECTIVES)} ${clause(rng, task)}.`,
      );
    else if (kind === 4)
      sentences.push(
        `The ${rng.pick(NOUNS)} ${rng.pick(['is currently', 'was', 'is still', 'should be'])} ${rng.pick(ADJECTIVES)} here, ${rng.pick(CONNECTIVES)} ${clause(rng, task)}.`,
      );
    else if (kind === 5)
      sentences.push(
        `${capital(gerund(rng.pick(VERBS)))} the ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} ${rng.pick(['first', 'up front', 'inside the lock', 'per tenant', 'lazily'])} ${rng.pick(['avoids', 'fixes', 'sidesteps', 'removes'])} ${rng.pick(['the race', 'the extra query', 'the double write', 'the stale read', 'the N+1'])}.`,
      );
    else if (kind === 6)
      sentences.push(
        `${capital(clause(rng, task))}, ${rng.pick(['which is the bug', 'and that is not what the spec says', 'which the tests never exercise', 'so the numbers drift over a day'])}.`,
      );
    else
      sentences.push(
        `I'm not sure ${clause(rng, task)}; ${rng.pick(['I will check', 'the next test run will tell', 'let me confirm before changing it'])}.`,
      );
  }
  return sentences.join(' ');
}

/** A numbered plan of 3–6 steps. */
export function plan(rng: Rng, task: TaskContext): string {
  const steps = rng.int(3, 6);
  const lines = [rng.pick(['Plan:', 'Here is what I will do:', 'Steps:', 'My approach:'])];
  for (let i = 1; i <= steps; i++) {
    lines.push(
      `${i}. ${capital(rng.pick(VERBS))} ${rng.pick(['the', 'every', 'each'])} ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} in ${code(file(rng, task))}${rng.chance(40) ? ` (${clause(rng, task)})` : ''}`,
    );
  }
  return lines.join('\n');
}

/** A fenced snippet of code in the task's language, as the assistant quotes a fix. */
export function codeSnippet(rng: Rng, task: TaskContext): string {
  const lines =
    task.language === 'py' ? pythonStatements(rng, '', rng.int(3, 9)) : typescriptStatements(rng, '', rng.int(3, 9));
  return `\`\`\`${task.language === 'py' ? 'python' : 'ts'}\n${lines.join('\n')}\n\`\`\``;
}

/** More analysis for a long message: sentences, a quoted fix or a list of notes. */
export function elaboration(rng: Rng, task: TaskContext): string {
  switch (rng.int(0, 3)) {
    case 0:
      return `${rng.pick(['The relevant part now reads:', 'The fix, in short:', 'This is the shape of the change:'])}\n\n${codeSnippet(rng, task)}`;
    case 1:
      return ['Notes:', ...Array.from({ length: rng.int(2, 4) }, () => `- ${capital(clause(rng, task))}.`)].join('\n');
    default:
      return observation(rng, task, 4);
  }
}

/** The end-of-run report: what changed, where, and how it was verified. */
export function finalReport(
  rng: Rng,
  task: TaskContext,
  changedFiles: readonly string[],
  testsPassed: number,
  testsFailed: number,
): string {
  const parts: string[] = [];
  parts.push(
    rng.pick([
      `Done. ${observation(rng, task, 2)}`,
      `I've finished the ${task.concept} change.`,
      `Summary of the ${task.kind === 'investigate' ? 'investigation' : 'changes'}:`,
      `The ${task.concept} work is completed.`,
      `All set: ${clause(rng, task)} is fixed.`,
      `Here's where things stand after this round.`,
    ]),
  );
  const files = changedFiles.length > 0 ? changedFiles : task.files.slice(0, 2);
  const bullets = files
    .slice(0, 6)
    .map(
      (f) =>
        `- ${code(f)}: ${rng.pick(VERBS)} the ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} ${rng.pick(['handling', 'path', 'check', 'lookup', 'mapping', 'ordering'])}${rng.chance(40) ? `; ${clause(rng, task)} is now covered` : ''}`,
    );
  parts.push([rng.pick(['Changes:', 'What changed:', 'Files touched:']), ...bullets].join('\n'));
  if (testsFailed > 0)
    parts.push(
      `${testsPassed} tests pass, ${testsFailed} still failing: ${rng.pick(['they look unrelated (network fixtures)', 'the remaining failure is the flaky clock test', 'I left them for a follow-up'])}.`,
    );
  else if (testsPassed > 0)
    parts.push(
      `${rng.pick(['Verified', 'Checked', 'Confirmed'])}: ${testsPassed} tests pass${rng.chance(50) ? ' and the typecheck is clean' : ''}.`,
    );
  if (rng.chance(45)) parts.push(elaboration(rng, task));
  if (rng.chance(40))
    parts.push(
      `${rng.pick(['Next', 'As a follow-up', 'Later'])}, ${rng.pick(['we could', 'it would be worth it to', 'I would'])} ${rng.pick(VERBS)} the ${rng.pick(ADJECTIVES)} ${plural(rng.pick(NOUNS))} in ${code(rng.pick(task.files))} too.`,
    );
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
        `Can you explain why ${s} needs the ${rng.pick(NOUNS)} at all? If it doesn't, remove it.`,
        `One more thing in ${code(task.packageName)}: ${task.concept}. The ticket says "${task.errorText}" shows up under load.`,
      ])
    : rng.pick([
        `I need help with ${task.concept} in ${code(task.packageName)}. ${rng.pick(['The entry point is', 'Start from', 'Most of it lives in'])} ${f}.`,
        `${s} ${rng.pick(['is broken', 'fails intermittently', 'got slow', 'returns wrong totals'])} since ${rng.pick(['the last release', 'we upgraded the driver', 'Friday', 'the schema migration'])}. Can you find out why and fix it?`,
        `Please ${rng.pick(['implement', 'add', 'finish'])} ${task.concept}. ${rng.pick(['There is a half-done branch of it in', 'See the TODOs in', 'The spec is in the docs, code goes in'])} ${f}.`,
        `Refactor ${f}: ${clause(rng, task)}, and the file is too long. Keep behaviour identical.`,
        `We are getting "${task.errorText}" in production. ${rng.pick(['Investigate and fix.', 'What is going on?', 'Can you track it down?'])}`,
      ]);
  const extra = rng.chance(35)
    ? ` ${rng.pick(['Run the tests when you are done.', 'Do not touch the migrations.', 'Use the existing logger.', 'Prefer small, focused changes.', 'Explain what you changed at the end.'])}`
    : '';
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
