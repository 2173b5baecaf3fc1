#!/usr/bin/env node
// Cross-check of `cachecost report --by session` with ccusage (replay.md §3: the bill must agree with the provider's). Needs the network once
// (npm), so it is a bench script, not part of `npm test`; the differences it names are also
// computed without ccusage in test/cost/bill-ccusage.test.ts.
//
// 1. Installs ccusage@20.0.24 into a temporary directory (never a project dependency); if that
//    fails, prints why and exits 0 ("skipped").
// 2. Runs `ccusage claude session --json --offline` with CLAUDE_CONFIG_DIR set to the logs and
//    HOME set to an empty temp dir (so nothing else on the machine is read).
// 3. Runs `cachecost report <logs> --by session --json` (from dist/: `npm run build` first).
// 4. Compares per session: input, output, cache creation (= cachecost 5m + 1h + unknown TTL) and
//    cache read tokens, and the cost. Every difference must be one of the named, deliberate ones:
//      - dedupe: cachecost keeps the line with the LARGEST output of a response across every file
//        of the session (acompact / aside_question copies included); ccusage 20.x keeps the line
//        with the largest token total (its TypeScript releases the first), which can undercount
//        output on 2.1.x transcripts;
//      - long context: above a tier's threshold cachecost bills the WHOLE request at the tier
//        (Anthropic's rule); ccusage tiers each token class separately above 200K;
//      - 1h writes: ccusage reports one cache-creation column; cachecost splits it 5m / 1h /
//        unknown TTL (20.0.24 prices 1h writes at 2x like cachecost, so the cost agrees).
//    Anything else (a missing session, different input or cache tokens) is reported as
//    UNEXPLAINED and the script exits 1.
// 5. Does the same on a tiny invented transcript (a streamed response, a 1h write, a request
//    above 200K, a response whose final line is only in an acompact copy, an all-zero stream) to
//    show each difference once.
//
// Usage: node bench/ccusage-compare.mjs [claude-config-dir]   (default ../shared/real-logs/claude-code)
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..');
const logs = resolve(process.argv[2] ?? join(repo, '..', 'shared', 'real-logs', 'claude-code'));
const VERSION = '20.0.24';
const COST_TOLERANCE_USD = 1e-6;

const cachecostMain = join(repo, 'dist', 'cli', 'main.js');
if (!existsSync(cachecostMain)) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}

const work = await mkdtemp(join(tmpdir(), 'cachecost-ccusage-'));
const emptyHome = join(work, 'home');
await mkdir(emptyHome);

try {
  try {
    await run(
      'npm',
      ['install', '--prefix', work, `ccusage@${VERSION}`, '--no-audit', '--no-fund', '--loglevel=error'],
      { timeout: 300_000 },
    );
  } catch (error) {
    console.log(`skipped: cannot install ccusage@${VERSION} (${firstLine(error)})`);
    process.exit(0);
  }
  const ccusageBin = join(work, 'node_modules', '.bin', 'ccusage');

  console.log(`ccusage ${VERSION} vs cachecost on ${logs}`);
  const real = await compare(ccusageBin, logs);
  printComparison(real);

  console.log(
    '\nInvented transcript (a streamed response with a 1h write, a request above 200K, a final line only in an acompact copy, an all-zero stream):',
  );
  const invented = join(work, 'invented');
  await writeInventedTranscript(invented);
  printComparison(await compare(ccusageBin, invented));

  const unexplained = real.filter((row) => row.verdict.startsWith('UNEXPLAINED'));
  if (unexplained.length > 0) {
    console.log(`\n${unexplained.length} session(s) differ for no named reason`);
    process.exitCode = 1;
  }
} finally {
  await rm(work, { recursive: true, force: true });
}

function firstLine(error) {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0];
}

async function compare(ccusageBin, configDir) {
  const env = { ...process.env, HOME: emptyHome, CLAUDE_CONFIG_DIR: configDir, NO_COLOR: '1' };
  const theirs = JSON.parse(
    (await run(ccusageBin, ['claude', 'session', '--json', '--offline'], { env, maxBuffer: 64 * 2 ** 20 })).stdout,
  );
  const ours = JSON.parse(
    (
      await run(process.execPath, [cachecostMain, 'report', configDir, '--by', 'session', '--json'], {
        maxBuffer: 64 * 2 ** 20,
      })
    ).stdout,
  );
  const ourSessions = new Map(ours.lines.map((line) => [line.key, line]));
  const rows = [];
  for (const session of theirs.sessions) {
    const mine = ourSessions.get(session.sessionId);
    ourSessions.delete(session.sessionId);
    if (mine === undefined) {
      rows.push({ session: session.sessionId, verdict: 'UNEXPLAINED: only ccusage has this session' });
      continue;
    }
    const creation = mine.cacheWrite5mTokens + mine.cacheWrite1hTokens + mine.cacheWriteUnknownTtlTokens;
    const costDiff = Number(mine.costUsd ?? 'NaN') - session.totalCost;
    const reasons = [];
    if (
      mine.uncachedInputTokens !== session.inputTokens ||
      mine.cacheReadTokens !== session.cacheReadTokens ||
      creation !== session.cacheCreationTokens
    ) {
      reasons.push(
        `UNEXPLAINED: input/cache tokens differ (ours ${mine.uncachedInputTokens}/${mine.cacheReadTokens}/${creation}, ccusage ${session.inputTokens}/${session.cacheReadTokens}/${session.cacheCreationTokens})`,
      );
    }
    if (mine.outputTokens !== session.outputTokens)
      reasons.push(`dedupe: output ${mine.outputTokens} (largest line) vs ${session.outputTokens}`);
    if (!(Math.abs(costDiff) <= COST_TOLERANCE_USD)) {
      if (mine.longContextRequests > 0)
        reasons.push(`long context: ${mine.longContextRequests} request(s) billed whole at the tier`);
      else if (mine.outputTokens === session.outputTokens)
        reasons.push('UNEXPLAINED: cost differs with equal tokens and no long-context request');
    }
    if (mine.cacheWrite1hTokens > 0)
      reasons.push(`1h writes: ${mine.cacheWrite1hTokens} of ${creation} written tokens`);
    rows.push({
      session: session.sessionId,
      tokens: [mine.uncachedInputTokens, mine.outputTokens, creation, mine.cacheReadTokens],
      theirTokens: [session.inputTokens, session.outputTokens, session.cacheCreationTokens, session.cacheReadTokens],
      ourCost: mine.costUsd,
      theirCost: session.totalCost,
      verdict:
        reasons.length === 0
          ? 'agree'
          : reasons
              .sort((a, b) => Number(b.startsWith('UNEXPLAINED')) - Number(a.startsWith('UNEXPLAINED')))
              .join('; '),
    });
  }
  for (const key of ourSessions.keys())
    rows.push({ session: key, verdict: 'UNEXPLAINED: only cachecost has this session' });
  return rows;
}

function printComparison(rows) {
  for (const row of rows) {
    const cost = row.ourCost === undefined ? '' : `  $${row.ourCost} vs $${row.theirCost.toFixed(6)}`;
    const tokens =
      row.tokens === undefined ? '' : `  in/out/write/read ${row.tokens.join('/')} vs ${row.theirTokens.join('/')}`;
    console.log(`${row.session.slice(0, 8)}  ${row.verdict}${tokens}${cost}`);
  }
  const agree = rows.filter((row) => row.verdict === 'agree').length;
  console.log(`${agree} of ${rows.length} session(s) agree exactly (tokens and cost within $${COST_TOLERANCE_USD})`);
}

// Compact JSON: ccusage 20.0.24 skips lines written with spaces after ':' (it prefilters raw text).
async function writeInventedTranscript(root) {
  const session = '11111111-2222-4333-8444-555555555555';
  const dir = join(root, 'projects', '-tmp-demo');
  await mkdir(dir, { recursive: true });
  const assistant = (uuid, at, id, usage) => ({
    type: 'assistant',
    uuid,
    parentUuid: null,
    isSidechain: false,
    sessionId: session,
    version: '2.1.87',
    cwd: '/tmp/demo',
    timestamp: at,
    requestId: `req_${id}`,
    message: {
      id: `msg_${id}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: 'x' }],
      stop_reason: null,
      usage,
    },
  });
  const split = (w5m, w1h) => ({
    cache_creation_input_tokens: w5m + w1h,
    cache_creation: { ephemeral_5m_input_tokens: w5m, ephemeral_1h_input_tokens: w1h },
  });
  const lines = [
    {
      type: 'user',
      uuid: 'u1',
      parentUuid: null,
      sessionId: session,
      cwd: '/tmp/demo',
      timestamp: '2026-01-01T00:00:00.000Z',
      message: { role: 'user', content: 'hi' },
    },
    assistant('a1', '2026-01-01T00:00:01.000Z', '1', {
      input_tokens: 3,
      cache_read_input_tokens: 20_000,
      ...split(0, 500),
      output_tokens: 2,
    }),
    assistant('a2', '2026-01-01T00:00:02.000Z', '1', {
      input_tokens: 3,
      cache_read_input_tokens: 20_000,
      ...split(0, 500),
      output_tokens: 180,
    }),
    assistant('a3', '2026-01-01T00:01:00.000Z', '2', {
      input_tokens: 10,
      cache_read_input_tokens: 195_000,
      ...split(10_000, 0),
      output_tokens: 1_000,
    }),
  ];
  // A response whose main-transcript line is partial (output 5) while its final line (output 900)
  // exists only in the compaction summariser's copy; and a stream that never finished (all zero).
  lines.push(
    assistant('a4', '2026-01-01T00:02:00.000Z', '3', {
      input_tokens: 4,
      cache_read_input_tokens: 20_500,
      ...split(0, 0),
      output_tokens: 5,
    }),
    assistant('a5', '2026-01-01T00:03:00.000Z', '4', {
      input_tokens: 0,
      cache_read_input_tokens: 0,
      ...split(0, 0),
      output_tokens: 0,
    }),
  );
  await writeFile(join(dir, `${session}.jsonl`), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  const copy = join(dir, session, 'subagents');
  await mkdir(copy, { recursive: true });
  const final = {
    ...assistant('c1', '2026-01-01T00:02:00.000Z', '3', {
      input_tokens: 4,
      cache_read_input_tokens: 20_500,
      ...split(0, 0),
      output_tokens: 900,
    }),
    isSidechain: true,
    agentId: 'acompact-1',
  };
  await writeFile(join(copy, 'agent-acompact-1.jsonl'), `${JSON.stringify(final)}\n`);
}
