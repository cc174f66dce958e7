// Run state derived from the history of clean calls (never global): balances after transfers and orders,
// stock after reservations and shipments, calendars after new events, the outbox after sends.

import { round2, type Account, type Person, type Product } from './data.ts';
import type { HistoryEntry, ToolArgs, ToolContext } from './types.ts';
import { stableStringify } from '../../core/hash.ts';

const n = (x: unknown): number => (typeof x === 'number' ? x : Number(x));
const s = (x: unknown): string =>
  String(x ?? '')
    .trim()
    .toUpperCase();

/** Net movement on an account caused by actions in this run. */
export function runMovements(acc: Account, history: readonly HistoryEntry[]): number {
  let net = 0;
  for (const h of history) {
    if (h.name === 'transfer_funds') {
      if (s(h.args.from_account) === acc.id) net -= n(h.args.amount);
      if (s(h.args.to_account) === acc.id) net += n(h.args.amount);
    } else if (h.name === 'place_stock_order' && s(h.args.account_id) === acc.id) {
      net -= n(h.result.total_cost);
    }
  }
  return round2(net);
}

export function netMovements(acc: Account, history: readonly HistoryEntry[]): number {
  return round2(acc.transactions.reduce((t, x) => t + x.amount, 0) + runMovements(acc, history));
}

export function balanceOf(acc: Account, history: readonly HistoryEntry[]): number {
  return round2(acc.opening + netMovements(acc, history));
}

/** Units of a product taken out of stock in this run. */
export function unitsTaken(p: Product, history: readonly HistoryEntry[]): number {
  let t = 0;
  for (const h of history) {
    if ((h.name === 'reserve_stock' || h.name === 'create_shipment') && s(h.args.sku) === p.sku)
      t += n(h.args.quantity);
  }
  return t;
}

export function availableOf(p: Product, history: readonly HistoryEntry[]): number {
  return p.stock - unitsTaken(p, history);
}

/** Hours already taken in a person's calendar on a date by events created in this run. */
export function bookedHours(p: Person, dateStr: string, history: readonly HistoryEntry[]): Set<number> {
  const out = new Set<number>();
  for (const h of history) {
    if (h.name !== 'create_event') continue;
    const who = String(h.args.attendee ?? '')
      .trim()
      .toLowerCase();
    if ((who === p.email || who === p.name.toLowerCase()) && h.args.date === dateStr) {
      out.add(Number(String(h.args.start).slice(0, 2)));
    }
  }
  return out;
}

export function sentMessages(
  history: readonly HistoryEntry[],
): Array<{ message_id: string; channel: string; to: string }> {
  const out: Array<{ message_id: string; channel: string; to: string }> = [];
  for (const h of history) {
    if (h.name === 'send_email' || h.name === 'dispatch_email') {
      out.push({ message_id: String(h.result.message_id), channel: 'email', to: String(h.result.to) });
    } else if (h.name === 'send_sms') {
      out.push({ message_id: String(h.result.message_id), channel: 'sms', to: String(h.result.phone) });
    }
  }
  return out;
}

/**
 * How many identical earlier calls (same tool, same arguments) this run made. Identifiers of actions hash their
 * arguments plus this count, so repeats get fresh ids while ids stay independent of unrelated calls (two valid
 * paths of different lengths yield the same ids).
 */
export function priorSame(ctx: ToolContext, name: string, args: ToolArgs): number {
  const key = stableStringify(args);
  return ctx.history.filter((h) => h.name === name && stableStringify(h.args) === key).length;
}
