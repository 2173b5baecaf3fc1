/**
 * Vega-Lite charts rendered to SVG headless (no browser, no canvas): the one place the charting
 * library is loaded, lazily, for `tune --chart` and `simulate --html`.
 */
import type { TopLevelSpec } from 'vega-lite';

type VegaLite = typeof import('vega-lite');
type VegaSpec = ReturnType<VegaLite['compile']>['spec'];

/**
 * Compiled Vega specifications by their Vega-Lite specification without its inline values (its
 * JSON with `data.values` emptied). `simulate --html` draws one timeline per session from the same
 * specification but for its data, and compiling it was a quarter of the charts' time: the
 * template is compiled once with no values, and each chart gets a copy with its values put into
 * the one data source that holds inline values. Vega-Lite reads no inline value to compile (a test
 * holds the copy equal to compiling the whole specification).
 */
const templates = new Map<string, VegaSpec>();

/**
 * Templates kept at most (per map): a run draws charts of a few shapes (one per set of scenarios);
 * a long-lived process drawing many shapes starts the maps over instead of growing them.
 */
const MAX_TEMPLATES = 32;

/** `map.set(key, value)`, the map emptied first when it holds `MAX_TEMPLATES` already. */
function remember<T>(map: Map<string, T>, key: string, value: T): void {
  if (map.size >= MAX_TEMPLATES) map.clear();
  map.set(key, value);
}

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

/** `vegaLite.compile(spec).spec`, from the template of specifications that differ only in their inline values. */
export function compiledSpec(vegaLite: VegaLite, spec: TopLevelSpec): VegaSpec {
  const inline = inlineValues(spec);
  if (inline === null) return vegaLite.compile(spec).spec;
  let template = templates.get(inline.key);
  if (template === undefined) {
    template = vegaLite.compile(inline.empty).spec;
    remember(templates, inline.key, template);
  }
  const copy = structuredClone(template);
  const sources = (copy.data ?? []).filter((source) => 'values' in source && Array.isArray(source.values));
  // Not the one inline source expected: compiled whole, as before.
  if (sources.length !== 1 || sources[0] === undefined) return vegaLite.compile(spec).spec;
  (sources[0] as { values: unknown }).values = inline.values;
  return copy;
}

type Vega = typeof import('vega');
type Runtime = ReturnType<Vega['parse']>;

/** Parsed Vega runtimes by the same key as `templates`, parsed from the template compiled with no values. */
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
 * `vega.parse(compiledSpec(vegaLite, spec))`, from the runtime parsed once per template: a copy with
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
    remember(runtimes, inline.key, template);
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
