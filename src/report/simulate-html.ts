/**
 * The `simulate` report as one self-contained HTML page (replay.md §8): the assumption, the
 * totals, a sortable table of sessions (date, project, agent, model, bill, best saving, flags with
 * dollars at stake) with a table of contents, and per session a drill-down: each scenario's
 * per-request timeline (prompt split into cache read / cache write / uncached, context size,
 * compaction, overflow and failed-turn markers), its cost by class, and the flags with their
 * evidence. Charts are Vega-Lite rendered to inline SVG; long sessions are downsampled for the
 * chart and the caption says how. Every string from a log is escaped (`escapeHtml`).
 */
import type { TopLevelSpec } from 'vega-lite';
import { amountToUsd, formatUsd, INCOMPLETE_MARK } from '../format/money.js';
import { formatCount, formatPct, formatTokens } from '../format/number.js';
import type { FlagJson } from './flag-json.js';
import { escapeHtml, htmlPage, type Provenance } from './html-page.js';
import type { ScenarioDetail, SessionDetail, TimelinePoint } from './simulate-details.js';
import type { ScenarioResult, SessionReport, SimulateReport, UsageTotals } from './simulate-report.js';
import { renderSvg } from './svg-chart.js';

export { escapeHtml } from './html-page.js';

/** Most requests drawn per scenario timeline; longer ones keep every k-th request and every marker. */
export const MAX_TIMELINE_POINTS = 300;
/** Sessions in the overview chart (largest savings and losses first). */
const MAX_OVERVIEW_SESSIONS = 30;

const CLASS_COLORS = { 'cache read': '#4e79a7', 'cache write': '#f28e2b', uncached: '#e15759' } as const;

export type SimulateHtmlInput = {
  readonly report: SimulateReport;
  /** Per session (same order as `report.sessions`); empty = no drill-down timelines. */
  readonly details: readonly SessionDetail[];
  readonly provenance: Provenance;
};

function money(u: Pick<UsageTotals, 'costUsd' | 'costComplete'>): string {
  const text = formatUsd(u.costUsd, { incomplete: !u.costComplete && u.costUsd !== null });
  return u.costComplete
    ? escapeHtml(text)
    : `<span class="warn" title="leaves out unpriced requests">${escapeHtml(text)}</span>`;
}

function signedMoney(usd: string | null): string {
  if (usd === null) return '–';
  const text = escapeHtml(formatUsd(usd));
  const value = Number(usd);
  return value < 0 && text.startsWith('-')
    ? `<span class="neg">${text}</span>`
    : value > 0
      ? `<span class="pos">${text}</span>`
      : text;
}

function num(value: number): string {
  return `<td data-v="${value}">${formatTokens(value)}</td>`;
}

function usageCells(u: UsageTotals): string {
  return `${num(u.promptTokens)}${num(u.cacheReadTokens)}${num(u.cacheWriteTokens)}${num(u.uncachedInputTokens)}${num(u.outputTokens)}<td>${money(u)}</td>`;
}

function resultRow(r: ScenarioResult): string {
  const recorded = r.scenario === 'recorded';
  const saving = recorded
    ? '<td></td><td></td>'
    : `<td>${signedMoney(r.savingVsRecorded.costUsd)}</td><td>${escapeHtml(formatPct(r.savingVsRecorded.pct))}</td>`;
  const failed = r.failedTurns > 0 ? `<span class="neg">${formatCount(r.failedTurns)}</span>` : '0';
  return `<tr><th scope="row" class="text">${escapeHtml(r.scenario)}</th>${usageCells(r)}${saving}<td>${formatCount(r.compactions)}</td><td>${formatCount(r.blockedCompactions)}</td><td>${formatCount(r.rejectedOverflows)}</td><td>${failed}</td><td class="text">${escapeHtml(r.flags.join(', '))}</td></tr>`;
}

function scenarioTable(bill: UsageTotals & { readonly requests: number }, results: readonly ScenarioResult[]): string {
  const head =
    '<thead><tr><th class="text">scenario</th><th>prompt</th><th>cache read</th><th>cache write</th><th>uncached</th><th>output</th><th>cost</th><th>saved USD</th><th>saved</th><th>compactions</th><th>blocked</th><th>overflows</th><th>failed turns</th><th class="text">flags</th></tr></thead>';
  const billRow =
    bill.requests === 0
      ? '<tr class="bill"><th scope="row" class="text">bill (measured)</th><td colspan="13" class="text">no measured usage in the log</td></tr>'
      : `<tr class="bill"><th scope="row" class="text">bill (measured)</th>${usageCells(bill)}<td colspan="7"></td></tr>`;
  return `<table>${head}<tbody>${billRow}${results.map(resultRow).join('')}</tbody></table>`;
}

function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

/** The last two segments of a project path (the whole path is in the title). */
function shortProject(project: string | null): string {
  if (project === null || project === '') return '–';
  const parts = project.split(/[\\/]/).filter((p) => p !== '');
  return parts.length <= 2 ? project : `…/${parts.slice(-2).join('/')}`;
}

function dateText(ms: number | null): string {
  return ms === null ? '–' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

/** The scenario with the largest saving against `recorded` (priced only). */
function bestSaving(s: SessionReport): ScenarioResult | null {
  let best: ScenarioResult | null = null;
  for (const r of s.results) {
    if (r.scenario === 'recorded' || r.savingVsRecorded.costUsd === null) continue;
    if (best === null || Number(r.savingVsRecorded.costUsd) > Number(best.savingVsRecorded.costUsd)) best = r;
  }
  return best;
}

/** The largest dollar figure among flags (they overlap, so they are never added). */
function worstStake(flags: readonly FlagJson[]): string | null {
  let worst: string | null = null;
  for (const f of flags)
    if (f.atStakeUsd !== null && (worst === null || Number(f.atStakeUsd) > Number(worst))) worst = f.atStakeUsd;
  return worst;
}

function anchor(i: number): string {
  return `s-${i + 1}`;
}

function sessionsTable(report: SimulateReport, details: ReadonlyMap<string, SessionDetail>): string {
  const head = `<thead><tr><th class="text">session</th><th class="text">date (UTC)</th><th class="text">project</th><th class="text">agent</th><th class="text">model</th><th data-type="num">bill</th><th data-type="num">best saving</th><th class="text">scenario</th><th data-type="num">flags</th><th data-type="num">at stake</th></tr></thead>`;
  const rows = report.sessions.map((s, i) => {
    const d = details.get(s.sessionId);
    const best = bestSaving(s);
    const recordedFlags = (d?.flags ?? []).filter((f) => f.scenario === 'recorded');
    const stake = worstStake(recordedFlags);
    const bill = s.recorded.requests === 0 ? null : s.recorded.costUsd;
    return (
      `<tr id="row-${anchor(i)}"><td class="text"><a href="#${anchor(i)}" title="${escapeHtml(s.sessionId)}">${escapeHtml(shortId(s.sessionId))}</a></td>` +
      `<td class="text" data-v="${d?.startedAtMs ?? ''}">${escapeHtml(dateText(d?.startedAtMs ?? null))}</td>` +
      `<td class="text" title="${escapeHtml(d?.project ?? '')}">${escapeHtml(shortProject(d?.project ?? null))}</td>` +
      `<td class="text">${escapeHtml(s.source)}</td><td class="text">${escapeHtml(s.model)}</td>` +
      `<td data-v="${bill === null ? '' : amountToUsd(bill)}">${s.recorded.requests === 0 ? 'no usage' : money(s.recorded)}</td>` +
      `<td data-v="${best === null ? '' : amountToUsd(best.savingVsRecorded.costUsd ?? '0')}">${best === null ? '–' : signedMoney(best.savingVsRecorded.costUsd)}</td>` +
      `<td class="text">${best === null ? '–' : escapeHtml(best.scenario)}</td>` +
      `<td data-v="${recordedFlags.length}">${recordedFlags.length === 0 ? '–' : escapeHtml(recordedFlags.map((f) => f.kind).join(', '))}</td>` +
      `<td data-v="${stake === null ? '' : amountToUsd(stake)}">${stake === null ? '–' : escapeHtml(formatUsd(stake))}</td></tr>`
    );
  });
  return `<table class="sortable" id="sessions">${head}<tbody>${rows.join('')}</tbody></table>`;
}

/** Best saving per session as diverging bars: which sessions the choice of policy matters for. */
export function overviewChartSpec(report: SimulateReport): TopLevelSpec | null {
  const values = report.sessions
    .map((s, i) => ({ s, i, best: bestSaving(s) }))
    .filter((x) => x.best !== null)
    .map((x) => ({
      label: `${x.i + 1}. ${shortId(x.s.sessionId)}`,
      scenario: x.best?.scenario ?? '',
      savingUsd: amountToUsd(x.best?.savingVsRecorded.costUsd ?? '0'),
    }))
    .sort((a, b) => Math.abs(b.savingUsd) - Math.abs(a.savingUsd) || a.label.localeCompare(b.label))
    .slice(0, MAX_OVERVIEW_SESSIONS);
  if (values.length === 0) return null;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Best saving per session against the simulated recorded policy',
      subtitle:
        values.length < report.sessions.length
          ? `the ${values.length} largest of ${report.sessions.length} sessions`
          : '',
      anchor: 'start',
    },
    background: 'white',
    padding: 8,
    width: 640,
    height: { step: 18 },
    data: { values },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'label', type: 'nominal', sort: null, title: null, axis: { labelLimit: 160 } },
      x: { field: 'savingUsd', type: 'quantitative', title: 'saving (USD)', axis: { format: '$,.2f' } },
      color: { condition: { test: 'datum.savingUsd < 0', value: '#b3261e' }, value: '#1e6b35' },
      tooltip: [{ field: 'label' }, { field: 'scenario' }, { field: 'savingUsd', format: '$,.4f' }],
    },
  };
}

type ChartPoint = {
  scenario: string;
  n: number;
  read: number;
  write: number;
  uncached: number;
  context: number;
  compaction: boolean;
  overflow: boolean;
  failed: boolean;
};

/** Keeps every k-th request and every marked one (compaction, overflow, failed turn, summarizer). */
export function downsample(
  points: readonly TimelinePoint[],
  max: number,
): { readonly kept: readonly (TimelinePoint & { readonly n: number })[]; readonly stride: number } {
  const numbered = points.map((p, i) => ({ ...p, n: i + 1 }));
  if (numbered.length <= max) return { kept: numbered, stride: 1 };
  const stride = Math.ceil(numbered.length / max);
  const kept = numbered.filter(
    (p, i) => i % stride === 0 || i === numbered.length - 1 || p.compactionBefore || p.kind !== 'request' || p.failed,
  );
  return { kept, stride };
}

/** One session's timelines, one row per scenario. */
export function timelineSpec(scenarios: readonly ScenarioDetail[]): TopLevelSpec {
  const values: ChartPoint[] = scenarios.flatMap((sc) =>
    downsample(sc.points, MAX_TIMELINE_POINTS).kept.map((p) => ({
      scenario: sc.scenario,
      n: p.n,
      read: p.cacheReadTokens,
      write: p.cacheWriteTokens,
      uncached: p.uncachedInputTokens,
      context: p.contextTokens,
      compaction: p.compactionBefore,
      overflow: p.kind === 'rejected_overflow',
      failed: p.failed,
    })),
  );
  const x = {
    field: 'n',
    type: 'quantitative',
    title: 'request (in order)',
    axis: { format: 'd', tickMinStep: 1 },
  } as const;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    background: 'white',
    padding: 8,
    data: { values },
    facet: {
      row: {
        field: 'scenario',
        type: 'nominal',
        sort: scenarios.map((s) => s.scenario),
        title: null,
        header: { labelAngle: 0, labelAlign: 'left', labelFontWeight: 'bold' },
      },
    },
    spec: {
      width: 720,
      height: 120,
      layer: [
        {
          transform: [
            { fold: ['read', 'write', 'uncached'], as: ['part', 'tokens'] },
            {
              calculate: "datum.part === 'read' ? 'cache read' : datum.part === 'write' ? 'cache write' : 'uncached'",
              as: 'class',
            },
            { calculate: "indexof(['read', 'write', 'uncached'], datum.part)", as: 'stackOrder' },
          ],
          mark: { type: 'area', interpolate: 'step-after', opacity: 0.85 },
          encoding: {
            x,
            y: { field: 'tokens', type: 'quantitative', stack: 'zero', title: 'prompt tokens', axis: { format: '~s' } },
            color: {
              field: 'class',
              type: 'nominal',
              title: 'prompt',
              scale: { domain: Object.keys(CLASS_COLORS), range: Object.values(CLASS_COLORS) },
            },
            order: { field: 'stackOrder', type: 'quantitative' },
          },
        },
        {
          mark: { type: 'line', color: '#222', strokeWidth: 1.2, interpolate: 'step-after' },
          encoding: { x, y: { field: 'context', type: 'quantitative' } },
        },
        {
          transform: [{ filter: 'datum.compaction' }],
          mark: { type: 'rule', color: '#555', strokeDash: [3, 3] },
          encoding: { x },
        },
        {
          transform: [{ filter: 'datum.overflow' }],
          mark: { type: 'point', shape: 'triangle-up', filled: true, color: '#b3261e', size: 60 },
          encoding: { x, y: { field: 'context', type: 'quantitative' } },
        },
        {
          transform: [{ filter: 'datum.failed' }],
          mark: { type: 'point', shape: 'cross', filled: true, color: '#b3261e', size: 90 },
          encoding: { x, y: { value: 6 } },
        },
      ],
    },
    resolve: { scale: { y: 'independent' } },
  };
}

function costByClassTable(d: SessionDetail): string {
  const rows = d.scenarios.map((sc) => {
    const c = sc.costByClass;
    const cell = (usd: string | null) => `<td data-v="${usd ?? ''}">${escapeHtml(formatUsd(usd))}</td>`;
    return `<tr><th scope="row" class="text">${escapeHtml(sc.scenario)}</th>${cell(c.cacheRead)}${cell(c.cacheWrite)}${cell(c.uncachedInput)}${cell(c.output)}</tr>`;
  });
  return `<table class="classes"><thead><tr><th class="text">scenario</th><th>cache read</th><th>cache write</th><th>uncached input</th><th>output</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function flagsList(flags: readonly FlagJson[]): string {
  if (flags.length === 0) return '<p class="muted">No flags.</p>';
  return flags
    .map((f) => {
      const stake =
        f.atStakeUsd === null
          ? f.stakeNote === 'unpriced'
            ? 'unpriced'
            : 'no dollar figure'
          : `${formatUsd(f.atStakeUsd)} at stake${f.stakeAgainst === null ? '' : ` against ${f.stakeAgainst}`}`;
      const range =
        f.requests.first === f.requests.last
          ? `request ${f.requests.first}`
          : `requests ${f.requests.first}–${f.requests.last}`;
      const evidence = Object.entries(f.evidence)
        .map(
          ([name, value]) => `<dt>${escapeHtml(name)}</dt><dd>${value === null ? '–' : escapeHtml(String(value))}</dd>`,
        )
        .join('');
      return `<div class="flag"><p><span class="sev-${escapeHtml(f.severity)}">${escapeHtml(f.severity)}</span> <strong>${escapeHtml(f.title)}</strong> on <code>${escapeHtml(f.scenario)}</code>, ${escapeHtml(range)}: ${escapeHtml(stake)}.</p><p>${escapeHtml(f.summary)}</p><dl class="evidence">${evidence}</dl></div>`;
    })
    .join('');
}

async function timelineFigure(d: SessionDetail): Promise<string> {
  if (d.scenarios.every((sc) => sc.points.length === 0)) return '<p class="muted">No requests to draw.</p>';
  const svg = await renderSvg(timelineSpec(d.scenarios));
  const notes = d.scenarios.map((sc) => {
    const { kept, stride } = downsample(sc.points, MAX_TIMELINE_POINTS);
    return stride === 1
      ? `${sc.scenario}: all ${formatCount(sc.points.length)} requests`
      : `${sc.scenario}: ${formatCount(kept.length)} of ${formatCount(sc.points.length)} requests (every ${stride}th, and every compaction, overflow and failed turn)`;
  });
  return `<figure class="chart timeline">${svg}<figcaption>Prompt of each request split into cache read, cache write and uncached tokens; the black line is the context after it; dashed rules: a compaction before the request; red triangles: an overflow the provider rejected; red crosses: a failed turn. Drawn: ${escapeHtml(notes.join('; '))}.</figcaption></figure>`;
}

async function sessionSection(s: SessionReport, i: number, detail: SessionDetail | undefined): Promise<string> {
  // Scenarios in the report's order (recorded first), whatever order the tables returned.
  const order = (scenario: string) => {
    const at = s.results.findIndex((r) => r.scenario === scenario);
    return at === -1 ? Number.MAX_SAFE_INTEGER : at;
  };
  const d =
    detail === undefined
      ? undefined
      : { ...detail, scenarios: [...detail.scenarios].sort((a, b) => order(a.scenario) - order(b.scenario)) };
  const f = s.fidelity;
  const meta = `<p>${escapeHtml(s.source)}, ${escapeHtml(s.model)}${d?.project ? `, project <code>${escapeHtml(d.project)}</code>` : ''}${d?.startedAtMs === undefined || d.startedAtMs === null ? '' : `, started ${escapeHtml(dateText(d.startedAtMs))} UTC`}; ${formatCount(s.recorded.requests)} measured requests; recorded policy: ${escapeHtml(s.recordedPolicy)}.</p>`;
  const fidelity = `<p class="muted">Fidelity of the recorded replay: prompt tokens ${escapeHtml(formatPct(f.promptTokensErrorPct, { signed: true }))}, cost ${escapeHtml(formatPct(f.costErrorPct, { signed: true }))}, median request ${escapeHtml(formatPct(f.medianRequestErrorPct, { digits: 2 }))}${f.note === null ? '' : ` (${escapeHtml(f.note)})`}.</p>`;
  const body =
    d === undefined
      ? ''
      : `<h3>Timeline</h3>${await timelineFigure(d)}<h3>Cost by class</h3>${costByClassTable(d)}<h3>Flags</h3>${flagsList(d.flags)}`;
  return `<details class="session" id="${anchor(i)}"><summary>${i + 1}. ${escapeHtml(shortId(s.sessionId))} · ${escapeHtml(s.model)} · bill ${s.recorded.requests === 0 ? 'no usage' : money(s.recorded)}</summary>
<p class="muted">Session <code>${escapeHtml(s.sessionId)}</code> · <a href="#sessions">back to the table</a></p>${meta}${fidelity}${scenarioTable(s.recorded, s.results)}${body}</details>`;
}

/** The whole page. */
export async function renderSimulateHtml(input: SimulateHtmlInput): Promise<string> {
  const { report } = input;
  const details = new Map(input.details.map((d) => [d.sessionId, d]));
  const overview = overviewChartSpec(report);
  const chart =
    overview === null
      ? ''
      : `<figure class="chart overview">${await renderSvg(overview)}<figcaption>Green: the scenario is cheaper than the recorded policy; red: dearer. Sessions without a priced saving are left out.</figcaption></figure>`;
  const sections: string[] = [];
  for (const [i, s] of report.sessions.entries()) sections.push(await sessionSection(s, i, details.get(s.sessionId)));
  const toc = report.sessions
    .map(
      (s, i) =>
        `<li><a href="#${anchor(i)}">${escapeHtml(shortId(s.sessionId))}</a> <span class="muted">${escapeHtml(s.model)}</span></li>`,
    )
    .join('');
  const n = report.totals.sessions;
  const body = `<header><h1>cachecost simulate</h1><p class="muted">${escapeHtml(report.assumption)}</p></header>
<nav class="toc" aria-label="contents"><strong>Contents</strong><ol><li><a href="#overview">Overview</a></li><li><a href="#sessions">Sessions</a></li><li><a href="#drill-down">Per session</a><ol>${toc}</ol></li><li><a href="#provenance">Provenance</a></li></ol></nav>
<h2 id="overview">Overview: ${formatCount(n)} session${n === 1 ? '' : 's'}</h2>
${scenarioTable(report.totals.recorded, report.totals.results)}
<p class="muted">Savings are against the simulated <code>recorded</code> scenario (modelling error cancels); the bill is the log's measured usage, priced. A cost ending in ${INCOMPLETE_MARK} leaves out unpriced requests; <code>unpriced</code> means no request could be priced (never $0). ${formatCount(report.issues.length)} ingest issue${report.issues.length === 1 ? '' : 's'}.</p>
${chart}
<h2 id="sessions-title">Sessions</h2>
<p class="muted">Click a header to sort; click a session to open its drill-down. Flags are those of the recorded data; their dollars overlap, so the largest is shown.</p>
${sessionsTable(report, details)}
<h2 id="drill-down">Per session</h2>
${sections.join('\n')}`;
  return htmlPage('cachecost simulate', body, input.provenance);
}
