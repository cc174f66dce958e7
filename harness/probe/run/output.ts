// The probe's output files; the kit writes them (records, summary, report) and reads them back on resume.
export const PROBE_FILES = { cases: 'cases.jsonl', summary: 'summary.json', report: 'report.md' } as const;
