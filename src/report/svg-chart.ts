/**
 * Vega-Lite charts rendered to SVG headless (no browser, no canvas): the one place the charting
 * library is loaded, lazily, for `tune --chart` and `simulate --html`.
 */
import type { TopLevelSpec } from 'vega-lite';

/** Renders a Vega-Lite specification to SVG text, headless (Vega's `renderer: 'none'`). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Loaded only when a chart is asked for: Vega is large and the other commands never need it.
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
