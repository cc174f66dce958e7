/** The viewer's style sheet (inline in the page, allowed by its hash in the page's Content-Security-Policy). */
export const PAGE_CSS = `
:root { --fg:#1d232a; --muted:#5b6673; --line:#d9dee4; --bg:#fff; --soft:#f4f6f8; --pass:#1a7f37; --fail:#c62828; --error:#9a6700; --accent:#0b5cad; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header.top { padding: 10px 18px; border-bottom: 1px solid var(--line); display: flex; gap: 16px; align-items: baseline; flex-wrap: wrap; }
header.top h1 { font-size: 17px; margin: 0; }
nav.tabs button { border: 1px solid var(--line); background: var(--soft); padding: 4px 10px; cursor: pointer; border-radius: 4px; margin-right: 4px; font: inherit; }
nav.tabs button.on { background: var(--accent); color: #fff; border-color: var(--accent); }
main { padding: 12px 18px; }
h2 { font-size: 16px; margin: 18px 0 8px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
.notice { background: #fff4d6; border: 1px solid #e0b84a; padding: 6px 10px; border-radius: 4px; font-weight: 600; }
.problems { background: #fdecea; border: 1px solid #e57373; padding: 6px 10px; border-radius: 4px; }
.problems li { font-family: ui-monospace, monospace; font-size: 12px; white-space: pre-wrap; }
table { border-collapse: collapse; margin: 4px 0 10px; }
th, td { border: 1px solid var(--line); padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(360px, 1fr)); gap: 12px; }
.charts img { max-width: 100%; border: 1px solid var(--line); background: #fff; }
.status { display: inline-block; min-width: 3.6em; text-align: center; border-radius: 3px; padding: 0 4px; color: #fff; font-size: 12px; font-weight: 600; }
.status.pass { background: var(--pass); } .status.fail { background: var(--fail); } .status.error { background: var(--error); } .status.none { background: #9aa4ae; }
.verdict-gain, .verdict-improved { color: var(--pass); font-weight: 600; } .verdict-harm, .verdict-worse { color: var(--fail); font-weight: 600; }
.controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; }
.controls input[type=search] { width: 260px; padding: 4px 6px; font: inherit; }
.controls select, .controls label { font: inherit; }
.controls select { max-width: 260px; }
.ledger { border: 1px solid var(--line); height: 420px; overflow: auto; position: relative; }
.ledger .spacer { position: relative; }
.ledger .row { position: absolute; left: 0; right: 0; height: 28px; display: flex; gap: 10px; align-items: center; padding: 0 8px; border-bottom: 1px solid #eef1f4; cursor: pointer; white-space: nowrap; overflow: hidden; }
.ledger .row:hover { background: #eef5fd; } .ledger .row.sel { background: #dcebfb; }
.ledger .row .id { font-family: ui-monospace, monospace; min-width: 200px; overflow: hidden; text-overflow: ellipsis; }
.ledger .row .tags, .ledger .row .reason { color: var(--muted); overflow: hidden; text-overflow: ellipsis; }
.ledger .row .reason .run-of { color: var(--fg); font-weight: 600; }
.ledger-head { display: flex; gap: 10px; padding: 4px 8px; font-weight: 600; background: var(--soft); border: 1px solid var(--line); border-bottom: none; }
.count { color: var(--muted); }
.case { border-top: 2px solid var(--accent); margin-top: 14px; padding-top: 8px; }
.side { display: grid; gap: 12px; grid-template-columns: repeat(var(--cols, 1), minmax(0, 1fr)); }
.side > section { min-width: 0; border: 1px solid var(--line); border-radius: 4px; padding: 8px 10px; }
pre, .pre { white-space: pre-wrap; word-break: break-word; font-family: ui-monospace, monospace; font-size: 12.5px; margin: 2px 0; }
.kv { display: grid; grid-template-columns: 170px minmax(0, 1fr); gap: 2px 10px; }
.kv > div:nth-child(odd) { color: var(--muted); }
.msg { border-left: 4px solid var(--line); padding: 4px 8px; margin: 6px 0; background: #fafbfc; }
.msg .role { font-weight: 700; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.msg.system { border-color: #8c959f; } .msg.user { border-color: #0b5cad; } .msg.assistant { border-color: #1a7f37; } .msg.tool { border-color: #8250df; }
.msg .stats { color: var(--muted); font-size: 12px; }
.call { background: #f1ecfb; border-radius: 3px; padding: 3px 6px; margin: 4px 0; }
.trunc { color: var(--error); font-weight: 700; font-size: 12px; }
.diff { outline: 2px solid #e0b84a; }
details > summary { cursor: pointer; color: var(--accent); }
.muted { color: var(--muted); }
`;
