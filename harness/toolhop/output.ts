/** The ToolHop output files (docs/toolhop.md, "Outputs"); the kit writes them as each instance finishes. */
export const FILES = {
  predictions: 'predictions.jsonl',
  results: 'results.jsonl',
  traces: 'traces',
  summary: 'summary.json',
  report: 'report.md',
} as const;

export function instanceKey(id: string, trial: number): string {
  return trial > 0 ? `${id}__t${trial}` : id;
}
