// Banking (two balance sources, a statement route, transfers and risk tokens, two savings-rate sources),
// retail (three stock sources, a warehouse route, two price catalogues, reservations, invoices) and shipping.

import {
  ACCOUNT_IDS,
  LIBRARY_TODAY,
  PRODUCTS,
  SAVINGS_PRODUCTS,
  SHIPPING_ZONE,
  SKUS,
  TAX_RATE_PCT,
  ZONE_DAYS,
  ZONE_RATES,
  accountById,
  dateFromDay,
  dayNumber,
  hex8,
  productBySku,
  riskToken,
  round2,
} from './data.ts';
import { date, int, lineItems, num, obj, str } from './schema.ts';
import { availableOf, balanceOf, netMovements, priorSame } from './state.ts';
import { toolError, type MazeTool, type ToolArgs, type ToolContext, type ToolResult } from './types.ts';

const accountEntity = { arg: 'account_id', values: () => ACCOUNT_IDS };
const skuEntity = { arg: 'sku', values: () => SKUS };
const TODAY_TS = `${LIBRARY_TODAY}T09:00:00Z`;

function balance(args: ToolArgs, ctx: ToolContext): ToolResult {
  const acc = accountById(String(args.account_id));
  if (!acc) return toolError(`unknown account "${String(args.account_id)}"`);
  return { account_id: acc.id, balance: balanceOf(acc, ctx.history), currency: 'USD', as_of: TODAY_TS };
}
function balanceTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'banking',
    category: 'source',
    description,
    parameters: obj({ account_id: str('Account identifier (ACC-nnnn)') }),
    output: obj({ account_id: str('Account'), balance: num('Available balance'), currency: str('Currency'), as_of: str('Timestamp (ISO 8601)') }),
    substituteSet: 'account_balance',
    checks: { nonNegative: ['balance'], echo: { account_id: 'account_id' }, timestamp: { field: 'as_of' } },
    entity: accountEntity,
    primary: 'balance',
    run: balance,
  };
}

function savingsTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'banking',
    category: 'source',
    description,
    parameters: obj({ product: str('Savings product code (lower-case, hyphenated)') }),
    output: obj({ product: str('Product'), rate_pct: num('Annual interest rate, percent'), as_of: str('Timestamp (ISO 8601)') }),
    substituteSet: 'savings_rate',
    checks: { nonNegative: ['rate_pct'], echo: { product: 'product' }, timestamp: { field: 'as_of' }, ranges: { rate_pct: [0.05, 30] } },
    entity: { arg: 'product', values: () => Object.keys(SAVINGS_PRODUCTS) },
    primary: 'rate_pct',
    run(args) {
      const code = String(args.product).trim().toLowerCase();
      const r = SAVINGS_PRODUCTS[code];
      if (r === undefined) return toolError(`unknown savings product "${String(args.product)}"`);
      return { product: code, rate_pct: r, as_of: TODAY_TS };
    },
  };
}

function stock(args: ToolArgs, ctx: ToolContext): ToolResult {
  const p = productBySku(String(args.sku));
  if (!p) return toolError(`unknown SKU "${String(args.sku)}"`);
  return { sku: p.sku, product: p.name, available: availableOf(p, ctx.history), as_of: TODAY_TS };
}
function stockTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'retail',
    category: 'source',
    description,
    parameters: obj({ sku: str('Product SKU (SKU-nnnn)') }),
    output: obj({ sku: str('SKU'), product: str('Product name'), available: int('Units available'), as_of: str('Timestamp (ISO 8601)') }),
    substituteSet: 'stock_level',
    checks: { nonNegative: ['available'], echo: { sku: 'sku' }, timestamp: { field: 'as_of' } },
    entity: skuEntity,
    primary: 'available',
    run: stock,
  };
}

function priceTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'retail',
    category: 'source',
    description,
    parameters: obj({ sku: str('Product SKU') }),
    output: obj({ sku: str('SKU'), unit_price: num('Price per unit'), currency: str('Currency') }),
    substituteSet: 'product_price',
    checks: { nonNegative: ['unit_price'], echo: { sku: 'sku' }, ranges: { unit_price: [1, 900] } },
    entity: skuEntity,
    primary: 'unit_price',
    run(args) {
      const p = productBySku(String(args.sku));
      if (!p) return toolError(`unknown SKU "${String(args.sku)}"`);
      return { sku: p.sku, unit_price: p.unitPrice, currency: 'USD' };
    },
  };
}

function shippingTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'shipping',
    category: 'source',
    description,
    parameters: obj({ weight_kg: num('Parcel weight in kg'), zone: str('Shipping zone, Z1–Z4') }),
    output: obj({ zone: str('Zone'), weight_kg: num('Weight, kg'), cost: num('Shipping cost'), currency: str('Currency') }),
    substituteSet: 'shipping_quote',
    checks: { nonNegative: ['cost'], echo: { zone: 'zone', weight_kg: 'weight_kg' }, ranges: { cost: [2, 1500] } },
    entity: { arg: 'zone', values: () => Object.keys(ZONE_RATES) },
    primary: 'cost',
    run(args) {
      const z = String(args.zone).trim().toUpperCase();
      const r = ZONE_RATES[z];
      if (!r) return toolError(`unknown shipping zone "${String(args.zone)}"`);
      const w = Number(args.weight_kg);
      if (!(w > 0 && w <= 70)) return toolError('weight must be between 0 and 70 kg');
      return { zone: z, weight_kg: w, cost: round2(r.base + r.perKg * w), currency: 'USD' };
    },
  };
}

export const BANKING_TOOLS: MazeTool[] = [
  balanceTool('get_account_balance', 'Current available balance of a bank account.'),
  balanceTool('check_balance', 'Balance enquiry service for an account identifier.'),
  {
    name: 'get_transactions',
    domain: 'banking',
    category: 'source',
    description: 'Posted transactions of an account this month and their net total.',
    parameters: obj({ account_id: str('Account identifier') }),
    output: obj({ account_id: str('Account'), transactions: lineItems('Posted transactions (label = transaction id)'), total: num('Net of the transactions') }),
    checks: { echo: { account_id: 'account_id' }, sums: [{ items: 'transactions', amount: 'amount', total: 'total' }] },
    entity: accountEntity,
    primary: 'total',
    run(args) {
      const acc = accountById(String(args.account_id));
      if (!acc) return toolError(`unknown account "${String(args.account_id)}"`);
      const tx = acc.transactions.map((t) => ({ label: t.id, amount: t.amount }));
      return { account_id: acc.id, transactions: tx, total: round2(tx.reduce((s, t) => s + t.amount, 0)) };
    },
  },
  {
    name: 'get_account_statement',
    domain: 'banking',
    category: 'source',
    description: 'Statement of an account: opening balance of the month and net movements since.',
    parameters: obj({ account_id: str('Account identifier') }),
    output: obj({ account_id: str('Account'), opening_balance: num('Opening balance'), net_movements: num('Net movements since opening'), as_of: str('Timestamp (ISO 8601)') }),
    checks: { nonNegative: ['opening_balance'], echo: { account_id: 'account_id' }, timestamp: { field: 'as_of' } },
    entity: accountEntity,
    primary: 'net_movements',
    run(args, ctx) {
      const acc = accountById(String(args.account_id));
      if (!acc) return toolError(`unknown account "${String(args.account_id)}"`);
      return { account_id: acc.id, opening_balance: acc.opening, net_movements: netMovements(acc, ctx.history), as_of: TODAY_TS };
    },
  },
  {
    name: 'compute_closing_balance',
    domain: 'banking',
    category: 'processor',
    description: 'Closing balance from an opening balance and net movements.',
    parameters: obj({ opening_balance: num('Opening balance'), net_movements: num('Net movements') }),
    output: obj({ balance: num('Closing balance') }),
    checks: { nonNegative: ['balance'] },
    primary: 'balance',
    run: (x) => ({ balance: round2(Number(x.opening_balance) + Number(x.net_movements)) }),
  },
  {
    name: 'transfer_funds',
    domain: 'banking',
    category: 'action',
    description: 'Transfer money between two accounts.',
    parameters: obj({ from_account: str('Paying account'), to_account: str('Receiving account'), amount: num('Amount to transfer') }),
    output: obj({
      transfer_id: str('Transfer identifier'),
      from_account: str('Paying account'),
      to_account: str('Receiving account'),
      amount: num('Amount transferred'),
      new_balance: num('Balance of the paying account after the transfer'),
    }),
    checks: { nonNegative: ['amount', 'new_balance'], echo: { from_account: 'from_account', to_account: 'to_account' } },
    entity: { arg: 'to_account', values: () => ACCOUNT_IDS },
    primary: 'new_balance',
    run(args, ctx) {
      const from = accountById(String(args.from_account));
      const to = accountById(String(args.to_account));
      if (!from) return toolError(`unknown account "${String(args.from_account)}"`);
      if (!to) return toolError(`unknown account "${String(args.to_account)}"`);
      if (from === to) return toolError('cannot transfer to the same account');
      const amount = Number(args.amount);
      if (!(amount > 0)) return toolError('amount must be positive');
      const bal = balanceOf(from, ctx.history);
      if (amount > bal) return toolError('insufficient balance');
      return {
        transfer_id: `TRF-${hex8('transfer', from.id, to.id, amount, priorSame(ctx, 'transfer_funds', args))}`,
        from_account: from.id,
        to_account: to.id,
        amount,
        new_balance: round2(bal - amount),
      };
    },
  },
  {
    name: 'get_risk_token',
    domain: 'banking',
    category: 'source',
    description: 'Risk token that authorises trading from an account today.',
    parameters: obj({ account_id: str('Account identifier') }),
    output: obj({ account_id: str('Account'), risk_token: str('Risk token'), expires: str('Expiry (ISO 8601)') }),
    checks: { echo: { account_id: 'account_id' }, timestamp: { field: 'expires' } },
    entity: accountEntity,
    run(args) {
      const acc = accountById(String(args.account_id));
      if (!acc) return toolError(`unknown account "${String(args.account_id)}"`);
      return { account_id: acc.id, risk_token: riskToken(acc), expires: `${LIBRARY_TODAY}T23:59:59Z` };
    },
  },
  savingsTool('get_savings_rate', 'Annual interest rate of a savings product.'),
  savingsTool('deposit_rate_lookup', 'Deposit rates board: yearly rate for a savings product code.'),
  {
    name: 'calc_interest',
    domain: 'banking',
    category: 'processor',
    description: 'Interest compounded yearly on a principal.',
    parameters: obj({ principal: num('Principal'), rate_pct: num('Annual rate, percent'), years: int('Years') }),
    output: obj({ interest: num('Interest earned'), total: num('Principal plus interest') }),
    checks: { nonNegative: ['interest', 'total'] },
    primary: 'interest',
    run(x) {
      const p = Number(x.principal);
      const r = Number(x.rate_pct);
      const y = Number(x.years);
      if (p < 0 || r < 0 || y < 0) return toolError('principal, rate and years must be non-negative');
      const total = round2(p * (1 + r / 100) ** y);
      return { interest: round2(total - p), total };
    },
  },
];

export const RETAIL_TOOLS: MazeTool[] = [
  stockTool('get_stock_level', 'Units of a product available to sell.'),
  stockTool('inventory_lookup', 'Inventory system: sellable quantity of a SKU.'),
  stockTool('warehouse_stock', 'Warehouse management feed: units on hand and unreserved for a SKU.'),
  priceTool('get_product_price', 'List price of a product.'),
  priceTool('price_catalog_lookup', 'Price catalogue: unit price of a SKU.'),
  {
    name: 'reserve_stock',
    domain: 'retail',
    category: 'action',
    description: 'Reserve units of a product for an order.',
    parameters: obj({ sku: str('Product SKU'), quantity: int('Units to reserve') }),
    output: obj({ reservation_id: str('Reservation'), sku: str('SKU'), quantity: int('Units reserved'), remaining: int('Units still available afterwards') }),
    checks: { nonNegative: ['quantity', 'remaining'], echo: { sku: 'sku' } },
    entity: skuEntity,
    primary: 'remaining',
    run(args, ctx) {
      const p = productBySku(String(args.sku));
      if (!p) return toolError(`unknown SKU "${String(args.sku)}"`);
      const q = Number(args.quantity);
      if (q <= 0) return toolError('quantity must be positive');
      const avail = availableOf(p, ctx.history);
      if (q > avail) return toolError(`only ${avail} units available`);
      return { reservation_id: `RSV-${hex8('rsv', p.sku, q, priorSame(ctx, 'reserve_stock', args))}`, sku: p.sku, quantity: q, remaining: avail - q };
    },
  },
  {
    name: 'build_invoice',
    domain: 'retail',
    category: 'processor',
    description: 'Itemised invoice (goods + tax) for a quantity at a unit price.',
    parameters: obj({ unit_price: num('Price per unit'), quantity: int('Units'), tax_rate_pct: num('Tax rate, percent') }),
    output: obj({ lines: lineItems('Invoice lines'), total: num('Invoice total') }),
    checks: { nonNegative: ['total'], sums: [{ items: 'lines', amount: 'amount', total: 'total' }] },
    primary: 'total',
    run(x) {
      const q = Number(x.quantity);
      if (q < 0 || Number(x.unit_price) < 0 || Number(x.tax_rate_pct) < 0) return toolError('inputs must be non-negative');
      const goods = round2(Number(x.unit_price) * q);
      const tax = round2((goods * Number(x.tax_rate_pct)) / 100);
      return { lines: [{ label: 'goods', amount: goods }, { label: 'tax', amount: tax }], total: round2(goods + tax) };
    },
  },
  {
    name: 'get_product_weight',
    domain: 'retail',
    category: 'source',
    description: 'Shipping weight of one unit of a product.',
    parameters: obj({ sku: str('Product SKU') }),
    output: obj({ sku: str('SKU'), weight_kg: num('Weight per unit, kg') }),
    checks: { nonNegative: ['weight_kg'], echo: { sku: 'sku' }, ranges: { weight_kg: [0.1, 60] } },
    entity: skuEntity,
    primary: 'weight_kg',
    run(args) {
      const p = productBySku(String(args.sku));
      if (!p) return toolError(`unknown SKU "${String(args.sku)}"`);
      return { sku: p.sku, weight_kg: p.weightKg };
    },
  },
  {
    name: 'locate_warehouse',
    domain: 'retail',
    category: 'source',
    description: 'Warehouse that stocks a SKU.',
    parameters: obj({ sku: str('Product SKU') }),
    output: obj({ sku: str('SKU'), warehouse_id: str('Warehouse identifier') }),
    checks: { echo: { sku: 'sku' } },
    entity: skuEntity,
    run(args) {
      const p = productBySku(String(args.sku));
      if (!p) return toolError(`unknown SKU "${String(args.sku)}"`);
      return { sku: p.sku, warehouse_id: p.warehouse };
    },
  },
  {
    name: 'warehouse_bin_count',
    domain: 'retail',
    category: 'source',
    description: 'Unreserved units of a SKU in one warehouse.',
    parameters: obj({ warehouse_id: str('Warehouse identifier'), sku: str('Product SKU') }),
    output: obj({ warehouse_id: str('Warehouse'), sku: str('SKU'), available: int('Units available'), as_of: str('Timestamp (ISO 8601)') }),
    checks: { nonNegative: ['available'], echo: { warehouse_id: 'warehouse_id', sku: 'sku' }, timestamp: { field: 'as_of' } },
    entity: skuEntity,
    primary: 'available',
    run(args, ctx) {
      const p = productBySku(String(args.sku));
      if (!p) return toolError(`unknown SKU "${String(args.sku)}"`);
      const wh = String(args.warehouse_id).trim().toUpperCase();
      if (!PRODUCTS.some((x) => x.warehouse === wh)) return toolError(`unknown warehouse "${String(args.warehouse_id)}"`);
      if (p.warehouse !== wh) return toolError(`${p.sku} is not stocked in ${wh}`);
      return { warehouse_id: wh, sku: p.sku, available: availableOf(p, ctx.history), as_of: TODAY_TS };
    },
  },
  {
    name: 'get_tax_rate',
    domain: 'retail',
    category: 'source',
    description: 'Sales tax / VAT rate of a country.',
    parameters: obj({ country: str('ISO country code') }),
    output: obj({ country: str('Country'), tax_rate_pct: num('Tax rate, percent') }),
    checks: { nonNegative: ['tax_rate_pct'], echo: { country: 'country' }, ranges: { tax_rate_pct: [0.5, 60] } },
    entity: { arg: 'country', values: () => Object.keys(TAX_RATE_PCT) },
    primary: 'tax_rate_pct',
    run(args) {
      const c = String(args.country).trim().toUpperCase();
      const r = TAX_RATE_PCT[c];
      if (r === undefined) return toolError(`no tax rate for "${String(args.country)}"`);
      return { country: c, tax_rate_pct: r };
    },
  },
];

export const SHIPPING_TOOLS: MazeTool[] = [
  {
    name: 'get_shipping_zone',
    domain: 'shipping',
    category: 'source',
    description: 'Shipping zone of a destination country.',
    parameters: obj({ country: str('ISO country code') }),
    output: obj({ country: str('Country'), zone: str('Zone') }),
    checks: { echo: { country: 'country' } },
    entity: { arg: 'country', values: () => Object.keys(SHIPPING_ZONE) },
    run(args) {
      const c = String(args.country).trim().toUpperCase();
      const z = SHIPPING_ZONE[c];
      if (!z) return toolError(`no shipping to "${String(args.country)}"`);
      return { country: c, zone: z };
    },
  },
  shippingTool('quote_shipping', 'Parcel shipping price for a weight and zone.'),
  shippingTool('courier_rate_lookup', 'Courier rate card: price of a parcel by weight and zone.'),
  {
    name: 'create_shipment',
    domain: 'shipping',
    category: 'action',
    description: 'Ship units of a product from stock to a zone.',
    parameters: obj({ sku: str('Product SKU'), quantity: int('Units'), zone: str('Destination zone') }),
    output: obj({ shipment_id: str('Shipment'), sku: str('SKU'), quantity: int('Units'), zone: str('Zone'), status: str('Status') }),
    checks: { nonNegative: ['quantity'], echo: { sku: 'sku', zone: 'zone' } },
    entity: skuEntity,
    run(args, ctx) {
      const p = productBySku(String(args.sku));
      if (!p) return toolError(`unknown SKU "${String(args.sku)}"`);
      const z = String(args.zone).trim().toUpperCase();
      if (!ZONE_RATES[z]) return toolError(`unknown shipping zone "${String(args.zone)}"`);
      const q = Number(args.quantity);
      if (q <= 0) return toolError('quantity must be positive');
      if (q > availableOf(p, ctx.history)) return toolError('not enough stock to ship');
      return { shipment_id: `SHP-${hex8('ship', p.sku, q, z, priorSame(ctx, 'create_shipment', args))}`, sku: p.sku, quantity: q, zone: z, status: 'label created' };
    },
  },
  {
    name: 'estimate_delivery_date',
    domain: 'shipping',
    category: 'processor',
    description: 'Expected delivery day for a parcel shipped on a day to a zone.',
    parameters: obj({ ship_date: date('Ship day'), zone: str('Zone') }),
    output: obj({ delivery_date: str('Expected delivery day (YYYY-MM-DD)') }),
    checks: {},
    run(args) {
      const n = dayNumber(String(args.ship_date));
      if (n === null) return toolError('invalid ship date');
      const days = ZONE_DAYS[String(args.zone).trim().toUpperCase()];
      if (days === undefined) return toolError(`unknown shipping zone "${String(args.zone)}"`);
      return { delivery_date: dateFromDay(n + days) };
    },
  },
];
