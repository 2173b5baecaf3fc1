/**
 * `tune --chart <file.svg>`: the cost curve drawn by a charting library (Vega-Lite compiled to
 * Vega, rendered headless to SVG; no canvas, no browser). Top: cost against target for every
 * swept series, the reference scenarios (`recorded`, `none`, …) as dashed lines, each curve's
 * knee and the recommended target. Bottom: the cost of the recommended series split by what it
 * paid for, which shows the trade-off itself: cache writes and summarizer calls of frequent
 * compactions on the left, cache reads of an ever longer prefix on the right.
 */
import type { TopLevelSpec } from 'vega-lite';
import { picoUsdToUsd } from '../cost/money.js';
import { formatUsd } from '../format/money.js';
import { formatTokens } from '../tune/recommend.js';
import type { TuneCurve, TuneGroup } from '../tune/tune-report.js';

const WIDTH_PX = 760;
const CURVE_HEIGHT_PX = 340;
const PARTS_HEIGHT_PX = 200;
const SUBTITLE_LINE_CHARS = 120;

/** What the cost of a point paid for, in stacking order (bottom first). */
export const COST_PARTS = ['cache reads', 'cache writes', 'uncached input', 'output', 'summarizer calls'] as const;

/** Splits a sentence into lines of at most `width` characters at spaces. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

function costUsdOf(group: TuneGroup, scenario: string): number | null {
  const point = group.points.find((p) => p.scenario.name === scenario);
  return point?.costPicoUsd === null || point === undefined ? null : picoUsdToUsd(point.costPicoUsd);
}

/** The curve whose parts are drawn: the recommended one, else the first. */
function featuredCurve(group: TuneGroup): TuneCurve | undefined {
  const r = group.recommendation;
  const series = r.kind === 'target' || r.kind === 'keep-recorded' ? r.series : undefined;
  return group.curves.find((curve) => curve.series === series) ?? group.curves[0];
}

/** The Vega-Lite specification of a group's chart (pure; same group, same spec). */
export function tuneChartSpec(group: TuneGroup, title: string): TopLevelSpec {
  const curvePoints = group.curves.flatMap((curve) =>
    curve.scenarios.flatMap((scenario, i) => {
      const costUsd = costUsdOf(group, scenario);
      return costUsd === null ? [] : [{ series: curve.series, targetTokens: curve.targetTokens[i] ?? 0, costUsd }];
    }),
  );
  const targets = curvePoints.map((p) => p.targetTokens);
  const maxTarget = targets.length === 0 ? 0 : Math.max(...targets);
  // References at the same displayed cost share one line and one label (`none / none,ttl=1h $6.23`).
  const byCost = new Map<string, { names: string[]; costUsd: number }>();
  for (const point of group.points) {
    if (point.series !== null || point.costPicoUsd === null) continue;
    const costUsd = picoUsdToUsd(point.costPicoUsd);
    const shown = formatUsdShort(costUsd);
    const entry = byCost.get(shown);
    if (entry === undefined) byCost.set(shown, { names: [point.scenario.name], costUsd });
    else entry.names.push(point.scenario.name);
  }
  const references = [...byCost]
    .map(([shown, { names, costUsd }]) => ({ label: `${names.join(' / ')} ${shown}`, costUsd }))
    .sort((a, b) => a.costUsd - b.costUsd);
  // The y scale spans every cost drawn (zero excluded by Vega-Lite's default for lines: take min..max).
  const allCosts = [
    ...references.map((r) => r.costUsd),
    ...group.points.flatMap((p) => (p.costPicoUsd === null ? [] : [picoUsdToUsd(p.costPicoUsd)])),
  ];
  const span = allCosts.length === 0 ? 0 : Math.max(...allCosts) - Math.min(0, ...allCosts);
  const lift = stackLabels(
    references.map((r) => r.costUsd),
    span / CURVE_HEIGHT_PX,
  );
  const featured = featuredCurve(group);
  // Only the featured curve's knee is drawn (several labels would overlap); the others are in the table and JSON.
  const knees = (featured === undefined ? [] : [featured]).flatMap((curve) => {
    const costUsd = curve.knee === null ? null : costUsdOf(group, curve.knee.scenario);
    return curve.knee === null || costUsd === null
      ? []
      : [
          {
            series: curve.series,
            targetTokens: curve.knee.targetTokens,
            costUsd,
            label: `knee ${formatTokens(curve.knee.targetTokens)}`,
          },
        ];
  });
  const r = group.recommendation;
  const rightHalf = r.kind === 'target' && r.point.targetTokens > (Math.min(...targets, maxTarget) + maxTarget) / 2;
  const recommended =
    r.kind === 'target'
      ? [
          {
            targetTokens: r.point.targetTokens,
            costUsd: picoUsdToUsd(r.point.costPicoUsd),
            label: `recommended ${formatTokens(r.point.targetTokens)}`,
          },
        ]
      : [];
  const parts =
    featured === undefined
      ? []
      : featured.scenarios.flatMap((scenario, i) => {
          const point = group.points.find((p) => p.scenario.name === scenario);
          if (point === undefined) return [];
          const c = point.totals.cost;
          const values = [
            c.cacheReadPicoUsd,
            c.cacheWritePicoUsd,
            c.uncachedInputPicoUsd,
            c.outputPicoUsd,
            c.summarizerPicoUsd,
          ];
          return COST_PARTS.map((part, order) => ({
            targetTokens: featured.targetTokens[i] ?? 0,
            part,
            order,
            costUsd: picoUsdToUsd(values[order] ?? 0n),
          }));
        });
  // The swept range, explicitly: left to itself the layers' merged scale would start at 0.
  const minTarget = targets.length === 0 ? 0 : Math.min(...targets);
  const xScale = minTarget < maxTarget ? { zero: false, domain: [minTarget, maxTarget] } : { zero: false };
  const x = {
    field: 'targetTokens',
    type: 'quantitative',
    title: 'compaction target (tokens)',
    scale: xScale,
    axis: { format: '~s' },
  } as const;
  const xAt = { field: 'targetTokens', type: 'quantitative', scale: xScale } as const;
  const subtitle = wrapText(group.recommendation.reason, SUBTITLE_LINE_CHARS);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, subtitle, anchor: 'start', subtitleFontSize: 11 },
    background: 'white',
    padding: 12,
    config: {
      view: { stroke: '#ddd' },
      axis: { labelFontSize: 11, titleFontSize: 12 },
      legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 360, orient: 'bottom' },
    },
    resolve: { scale: { color: 'independent' } },
    vconcat: [
      {
        width: WIDTH_PX,
        height: CURVE_HEIGHT_PX,
        layer: [
          {
            data: { values: references },
            mark: { type: 'rule', strokeDash: [6, 4], color: '#888' },
            encoding: { y: { field: 'costUsd', type: 'quantitative' } },
          },
          // One text layer per reference, each lifted so that close references do not overlap.
          ...references.map((reference, i) => ({
            data: { values: [reference] },
            // Right of the plot, where no curve runs (the legends are below the charts).
            mark: {
              type: 'text' as const,
              align: 'left' as const,
              baseline: 'middle' as const,
              dx: 6,
              dy: -(lift[i] ?? 0),
              color: '#555',
              fontSize: 11,
            },
            encoding: {
              x: { datum: maxTarget, type: 'quantitative' as const, scale: xScale },
              y: { field: 'costUsd', type: 'quantitative' as const },
              text: { field: 'label' },
            },
          })),
          {
            data: { values: curvePoints },
            mark: { type: 'line', point: true, strokeWidth: 2 },
            encoding: {
              x,
              y: { field: 'costUsd', type: 'quantitative', title: 'cost (USD)', axis: { format: '$,.2f' } },
              color: { field: 'series', type: 'nominal', title: 'series' },
            },
          },
          {
            data: { values: knees },
            mark: { type: 'rule', strokeDash: [2, 3], color: '#444' },
            encoding: { x: xAt },
          },
          {
            data: { values: knees },
            // At the foot of the rule: the curves and the reference lines run higher (the y scale starts at $0).
            mark: { type: 'text', align: 'left', baseline: 'bottom', dx: 4, dy: -4, color: '#444', fontSize: 11 },
            encoding: { x: xAt, y: { value: CURVE_HEIGHT_PX }, text: { field: 'label' } },
          },
          {
            data: { values: recommended },
            mark: { type: 'point', shape: 'diamond', size: 220, filled: true, color: '#d62728' },
            encoding: { x: xAt, y: { field: 'costUsd', type: 'quantitative' } },
          },
          {
            data: { values: recommended },
            // In the right half the label goes left of the marker, so that an edge marker's label stays inside.
            mark: {
              type: 'text',
              align: rightHalf ? 'right' : 'left',
              dx: rightHalf ? -10 : 10,
              dy: 16,
              color: '#d62728',
              fontSize: 12,
              fontWeight: 'bold',
            },
            encoding: { x: xAt, y: { field: 'costUsd', type: 'quantitative' }, text: { field: 'label' } },
          },
        ],
      },
      {
        width: WIDTH_PX,
        height: PARTS_HEIGHT_PX,
        title: {
          text: featured === undefined ? 'no target curve' : `what the cost pays for along ${featured.series}`,
          fontSize: 12,
          anchor: 'start',
        },
        data: { values: parts },
        mark: { type: 'area', line: false, opacity: 0.85 },
        encoding: {
          x,
          y: { field: 'costUsd', type: 'quantitative', stack: 'zero', title: 'cost (USD)', axis: { format: '$,.2f' } },
          color: {
            field: 'part',
            type: 'nominal',
            title: 'cost of',
            sort: [...COST_PARTS],
            scale: { domain: [...COST_PARTS], scheme: 'tableau10' },
          },
          order: { field: 'order', type: 'quantitative' },
        },
      },
    ],
  };
}

function formatUsdShort(usd: number): string {
  return formatUsd(usd);
}

/** Pixels between two label baselines below which they would overlap (11 px text plus a gap). */
const LABEL_GAP_PX = 15;

/**
 * Vertical offsets for the reference labels (sorted by cost) so that no two overlap: a label too
 * close to the one below it moves up by the gap, given the chart's dollars per pixel.
 */
export function stackLabels(costs: readonly number[], usdPerPx: number): number[] {
  const offsets: number[] = [];
  let previousPx = Number.NEGATIVE_INFINITY;
  for (const cost of costs) {
    const px = usdPerPx > 0 ? cost / usdPerPx : 0;
    const placed = Math.max(px, previousPx + LABEL_GAP_PX);
    offsets.push(placed - px);
    previousPx = placed;
  }
  return offsets;
}

export { renderSvg } from './svg-chart.js';
