/** What a bill line is grouped by. `day` = the UTC date of the request's timestamp (kept apart so the CLI can declare the option without loading the database code). */
export const BILL_GROUPINGS = ['day', 'session', 'model', 'project', 'host'] as const;
export type BillGrouping = (typeof BILL_GROUPINGS)[number];
