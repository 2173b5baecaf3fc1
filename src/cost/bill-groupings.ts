/**
 * What a bill line is grouped by (kept apart so the CLI can declare the option without loading the
 * database code). `day` = the date of the request's timestamp in the bill's time zone, `week` = its
 * ISO week named by the Monday (`YYYY-MM-DD`), `month` = `YYYY-MM`, `host` = the machine the
 * session was recorded on (a fleet export's `--host`).
 */
export const BILL_GROUPINGS = ['day', 'week', 'month', 'session', 'model', 'project', 'host'] as const;
export type BillGrouping = (typeof BILL_GROUPINGS)[number];
