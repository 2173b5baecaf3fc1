/**
 * Vega-Lite charts rendered to SVG headless (no browser, no canvas): the one place the charting
 * library is loaded, lazily, for `tune --chart` and `simulate --html`.
 */
import type { TopLevelSpec } from 'vega-lite';

type VegaLite = typeof import('vega-lite');

/**
 * Templates kept at most: a run draws charts of a few shapes (one per set of scenarios); a
 * long-lived process drawing many shapes starts the map over instead of growing it.
 */
const MAX_TEMPLATES = 32;

/**
 * A specification's inline values, the specification with them emptied (its template) and the
 * template's key (its JSON); null for a specification without inline values (compiled whole).
 */
function inlineValues(spec: TopLevelSpec): { values: unknown[]; empty: TopLevelSpec; key: string } | null {
  const data = 'data' in spec ? spec.data : undefined;
  const values = data !== undefined && data !== null && 'values' in data ? data.values : undefined;
  if (!Array.isArray(values)) return null;
  const empty = { ...spec, data: { ...data, values: [] } } as TopLevelSpec;
  return { values, empty, key: JSON.stringify(empty) };
}

type Vega = typeof import('vega');
type Runtime = ReturnType<Vega['parse']>;

/**
 * Parsed Vega runtimes by their Vega-Lite specification without its inline values (its JSON with
 * `data.values` emptied), parsed from that template compiled with no values. `simulate --html`
 * draws one timeline per session from the same specification but for its data: each chart gets a
 * copy of the runtime with its values put in (a test holds the copy equal to compiling and parsing
 * the whole specification).
 */
const runtimes = new Map<string, Runtime>();

/** The operators' values that ingest inline data (`$ingest`) in a parsed runtime. */
function ingested(runtime: Runtime): { $ingest: unknown }[] {
  const out: { $ingest: unknown }[] = [];
  for (const operator of (runtime as { operators?: unknown[] }).operators ?? []) {
    const value = (operator as { value?: unknown }).value;
    if (typeof value === 'object' && value !== null && '$ingest' in value) out.push(value as { $ingest: unknown });
  }
  return out;
}

/**
 * `vega.parse(vegaLite.compile(spec).spec)`, from the runtime parsed once per template: a copy with
 * the chart's values as the one data source's `$ingest`, where Vega's parser put the values it was
 * given (the same array: Vega-Lite and Vega's parser pass inline values on as they are). A test holds
 * the copy equal to parsing the whole specification.
 */
export function parsedSpec(vega: Vega, vegaLite: VegaLite, spec: TopLevelSpec): Runtime {
  const inline = inlineValues(spec);
  if (inline === null) return vega.parse(vegaLite.compile(spec).spec);
  let template = runtimes.get(inline.key);
  if (template === undefined) {
    template = vega.parse(vegaLite.compile(inline.empty).spec);
    if (runtimes.size >= MAX_TEMPLATES) runtimes.clear();
    runtimes.set(inline.key, template);
  }
  const copy = structuredClone(template);
  const sources = ingested(copy);
  const source = sources[0];
  if (sources.length !== 1 || source === undefined || !Array.isArray(source.$ingest) || source.$ingest.length !== 0)
    return vega.parse(vegaLite.compile(spec).spec);
  source.$ingest = inline.values;
  return copy;
}

/** Renders a Vega-Lite specification to SVG text, headless (Vega's `renderer: 'none'`). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Loaded only when a chart is asked for: Vega is large and the other commands never need it.
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(parsedSpec(vega, vegaLite, spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
