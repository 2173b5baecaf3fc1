/**
 * What a bill line is grouped by (kept apart so the CLI can declare the option without loading the
 * database code). `day` = the date of the request's timestamp in the bill's time zone, `week` = its
 * ISO week named by the Monday (`YYYY-MM-DD`), `month` = `YYYY-MM`.
 */
export const BILL_GROUPINGS = ['day', 'week', 'month', 'session', 'model', 'project'] as const;
export type BillGrouping = (typeof BILL_GROUPINGS)[number];
