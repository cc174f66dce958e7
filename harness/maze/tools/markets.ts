// Markets and FX: three stock-quote sources and two dividend sources that agree exactly, a listing-based price
// route, position arithmetic, a risk-checked order action; two FX rate sources, a cross-rate route and a
// one-shot converter that all produce the same converted amount.

import {
  CURRENCIES,
  LIBRARY_TODAY,
  TICKERS,
  COMPANIES,
  accountById,
  closePrice,
  companyByTicker,
  dayNumber,
  fxRate,
  inDataRange,
  riskToken,
  round2,
  round6,
  unitsPerUsd,
  hex8,
} from './data.ts';
import { date, int, num, obj, str } from './schema.ts';
import { balanceOf } from './state.ts';
import { toolError, type MazeTool, type ToolArgs, type ToolResult } from './types.ts';

function marketDate(d: string): string | null {
  if (!inDataRange(d)) return `no market data for ${d} (data covers 2024-01-01 to 2025-12-31)`;
  if (dayNumber(d)! > dayNumber(LIBRARY_TODAY)!) return `no closing price yet for ${d}`;
  return null;
}

function quote(args: ToolArgs): ToolResult {
  const c = companyByTicker(String(args.ticker));
  if (!c) return toolError(`unknown ticker "${String(args.ticker)}"`);
  const d = String(args.date);
  const bad = marketDate(d);
  if (bad) return toolError(bad);
  return { ticker: c.ticker, date: d, price: closePrice(c, d), currency: 'USD', as_of: `${d}T20:00:00Z` };
}

const quoteParams = obj({ ticker: str('Stock ticker symbol (capital letters)'), date: date('Trading day of the closing price') });
const quoteOutput = obj({
  ticker: str('Ticker the price is for'),
  date: str('Trading day'),
  price: num('Closing price per share'),
  currency: str('Currency of the price'),
  as_of: str('Timestamp of the price (ISO 8601)'),
});
const quoteChecks = {
  nonNegative: ['price'],
  echo: { ticker: 'ticker' },
  timestamp: { field: 'as_of', arg: 'date' },
  ranges: { price: [1, 950] as [number, number] },
};
const tickerEntity = { arg: 'ticker', values: () => TICKERS };

function quoteTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'markets',
    category: 'source',
    description,
    parameters: quoteParams,
    output: quoteOutput,
    substituteSet: 'stock_quote',
    checks: quoteChecks,
    entity: tickerEntity,
    primary: 'price',
    run: quote,
  };
}

function dividend(args: ToolArgs): ToolResult {
  const c = companyByTicker(String(args.ticker));
  if (!c) return toolError(`unknown ticker "${String(args.ticker)}"`);
  return { ticker: c.ticker, annual_dividend: c.dividend, currency: 'USD', as_of: `${LIBRARY_TODAY}T00:00:00Z` };
}
function dividendTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'markets',
    category: 'source',
    description,
    parameters: obj({ ticker: str('Stock ticker symbol') }),
    output: obj({
      ticker: str('Ticker'),
      annual_dividend: num('Dividend per share over the last twelve months'),
      currency: str('Currency'),
      as_of: str('Timestamp of the figure (ISO 8601)'),
    }),
    substituteSet: 'dividend',
    checks: {
      nonNegative: ['annual_dividend'],
      echo: { ticker: 'ticker' },
      timestamp: { field: 'as_of' },
      ranges: { annual_dividend: [0.05, 40] },
    },
    entity: tickerEntity,
    primary: 'annual_dividend',
    run: dividend,
  };
}

const fxParams = obj({
  base: str('ISO currency code to convert from, e.g. USD'),
  quote: str('ISO currency code to convert to, e.g. EUR'),
  date: date('Day of the rate'),
});
function fxCheck(args: ToolArgs): string | null {
  for (const k of ['base', 'quote'] as const) {
    if (!CURRENCIES.includes(String(args[k]).toUpperCase())) return `unsupported currency "${String(args[k])}"`;
  }
  return marketDate(String(args.date));
}
function fxTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'fx',
    category: 'source',
    description,
    parameters: fxParams,
    output: obj({
      base: str('Currency converted from'),
      quote: str('Currency converted to'),
      date: str('Day of the rate'),
      rate: num('Units of quote currency per one unit of base currency'),
      as_of: str('Timestamp of the rate (ISO 8601)'),
    }),
    substituteSet: 'fx_rate',
    checks: { nonNegative: ['rate'], echo: { base: 'base', quote: 'quote' }, timestamp: { field: 'as_of', arg: 'date' } },
    entity: { arg: 'quote', values: () => CURRENCIES },
    primary: 'rate',
    run(args) {
      const bad = fxCheck(args);
      if (bad) return toolError(bad);
      const [b, q, d] = [String(args.base).toUpperCase(), String(args.quote).toUpperCase(), String(args.date)];
      return { base: b, quote: q, date: d, rate: fxRate(b, q, d), as_of: `${d}T16:00:00Z` };
    },
  };
}

export const MARKET_TOOLS: MazeTool[] = [
  quoteTool('get_stock_quote', 'Closing price of a listed stock on a trading day.'),
  quoteTool('fetch_equity_price', 'Equity pricing feed: end-of-day price for a ticker.'),
  quoteTool('market_data_lookup', 'Market data terminal lookup of a stock’s close on a given day.'),
  {
    name: 'get_company_profile',
    domain: 'markets',
    category: 'source',
    description: 'Company profile for a ticker: name, sector and shares outstanding.',
    parameters: obj({ ticker: str('Stock ticker symbol') }),
    output: obj({
      ticker: str('Ticker'),
      name: str('Company name'),
      sector: str('Sector'),
      shares_outstanding: int('Shares outstanding'),
    }),
    checks: { nonNegative: ['shares_outstanding'], echo: { ticker: 'ticker' } },
    entity: tickerEntity,
    run(args) {
      const c = companyByTicker(String(args.ticker));
      if (!c) return toolError(`unknown ticker "${String(args.ticker)}"`);
      return { ticker: c.ticker, name: c.name, sector: c.sector, shares_outstanding: c.shares };
    },
  },
  dividendTool('get_dividend_info', 'Trailing twelve-month dividend per share of a stock.'),
  dividendTool('dividend_registry_lookup', 'Dividend registry: annual dividend paid per share for a ticker.'),
  {
    name: 'compute_position_value',
    domain: 'markets',
    category: 'processor',
    description: 'Value of a holding: price per share times number of shares.',
    parameters: obj({ price: num('Price per share'), shares: num('Number of shares') }),
    output: obj({ value: num('Position value') }),
    checks: { nonNegative: ['value'] },
    primary: 'value',
    run(args) {
      const [p, s] = [Number(args.price), Number(args.shares)];
      if (p < 0 || s < 0) return toolError('price and shares must be non-negative');
      return { value: round2(p * s) };
    },
  },
  {
    name: 'calc_dividend_income',
    domain: 'markets',
    category: 'processor',
    description: 'Yearly dividend income of a holding from the dividend per share.',
    parameters: obj({ annual_dividend: num('Dividend per share per year'), shares: num('Number of shares') }),
    output: obj({ income: num('Dividend income per year') }),
    checks: { nonNegative: ['income'] },
    primary: 'income',
    run(args) {
      const [d, s] = [Number(args.annual_dividend), Number(args.shares)];
      if (d < 0 || s < 0) return toolError('dividend and shares must be non-negative');
      return { income: round2(d * s) };
    },
  },
  {
    name: 'resolve_listing_id',
    domain: 'markets',
    category: 'source',
    description: 'Exchange listing identifier of a ticker.',
    parameters: obj({ ticker: str('Stock ticker symbol') }),
    output: obj({ ticker: str('Ticker'), listing_id: str('Listing identifier'), exchange: str('Exchange') }),
    checks: { echo: { ticker: 'ticker' } },
    entity: tickerEntity,
    run(args) {
      const c = companyByTicker(String(args.ticker));
      if (!c) return toolError(`unknown ticker "${String(args.ticker)}"`);
      return { ticker: c.ticker, listing_id: c.listingId, exchange: c.exchange };
    },
  },
  {
    name: 'exchange_close_price',
    domain: 'markets',
    category: 'source',
    description: 'Official exchange closing price for a listing identifier on a trading day.',
    parameters: obj({ listing_id: str('Listing identifier'), date: date('Trading day') }),
    output: obj({
      listing_id: str('Listing identifier'),
      date: str('Trading day'),
      price: num('Closing price per share'),
      currency: str('Currency'),
      as_of: str('Timestamp of the price (ISO 8601)'),
    }),
    checks: {
      nonNegative: ['price'],
      echo: { listing_id: 'listing_id' },
      timestamp: { field: 'as_of', arg: 'date' },
      ranges: { price: [1, 950] },
    },
    entity: { arg: 'listing_id', values: () => COMPANIES.map((c) => c.listingId) },
    primary: 'price',
    run(args) {
      const c = COMPANIES.find((x) => x.listingId === String(args.listing_id).trim().toUpperCase());
      if (!c) return toolError(`unknown listing "${String(args.listing_id)}"`);
      const d = String(args.date);
      const bad = marketDate(d);
      if (bad) return toolError(bad);
      return { listing_id: c.listingId, date: d, price: closePrice(c, d), currency: 'USD', as_of: `${d}T20:00:00Z` };
    },
  },
  {
    name: 'place_stock_order',
    domain: 'markets',
    category: 'action',
    description: 'Buy shares for a brokerage-linked account at a limit price. Requires the account’s risk token.',
    parameters: obj({
      account_id: str('Account paying for the order'),
      ticker: str('Stock ticker symbol'),
      shares: int('Number of shares to buy'),
      limit_price: num('Maximum price per share'),
      risk_token: str('Risk token issued for the account'),
    }),
    output: obj({
      order_id: str('Order identifier'),
      account_id: str('Account'),
      ticker: str('Ticker'),
      shares: int('Shares bought'),
      total_cost: num('Amount debited'),
      status: str('Order status'),
    }),
    checks: { nonNegative: ['total_cost', 'shares'], echo: { ticker: 'ticker', account_id: 'account_id' } },
    entity: tickerEntity,
    primary: 'total_cost',
    run(args, ctx) {
      const acc = accountById(String(args.account_id));
      if (!acc) return toolError(`unknown account "${String(args.account_id)}"`);
      const c = companyByTicker(String(args.ticker));
      if (!c) return toolError(`unknown ticker "${String(args.ticker)}"`);
      if (String(args.risk_token) !== riskToken(acc)) return toolError('missing or invalid risk token for this account');
      const shares = Number(args.shares);
      if (shares <= 0) return toolError('shares must be positive');
      const total = round2(shares * Number(args.limit_price));
      if (total > balanceOf(acc, ctx.history)) return toolError('insufficient balance for this order');
      return {
        order_id: `ORD-${hex8('order', acc.id, c.ticker, shares, String(args.limit_price))}`,
        account_id: acc.id,
        ticker: c.ticker,
        shares,
        total_cost: total,
        status: 'filled',
      };
    },
  },
];

export const FX_TOOLS: MazeTool[] = [
  fxTool('get_fx_rate', 'Foreign exchange reference rate between two currencies on a day.'),
  fxTool('currency_exchange_rate', 'Exchange-rate service: how many units of one currency buy one unit of another.'),
  {
    name: 'convert_amount',
    domain: 'fx',
    category: 'processor',
    description: 'Multiply an amount by an exchange rate, rounded to cents.',
    parameters: obj({ amount: num('Amount in the source currency'), rate: num('Units of target currency per unit') }),
    output: obj({ converted: num('Amount in the target currency') }),
    checks: { nonNegative: ['converted'] },
    primary: 'converted',
    run(args) {
      if (Number(args.rate) <= 0) return toolError('rate must be positive');
      return { converted: round2(Number(args.amount) * Number(args.rate)) };
    },
  },
  {
    name: 'get_cross_rate_table',
    domain: 'fx',
    category: 'source',
    description: 'Both currencies quoted against the US dollar on a day (units per USD).',
    parameters: fxParams,
    output: obj({
      base: str('First currency'),
      quote: str('Second currency'),
      date: str('Day'),
      base_per_usd: num('Units of the first currency per USD'),
      quote_per_usd: num('Units of the second currency per USD'),
      as_of: str('Timestamp (ISO 8601)'),
    }),
    checks: {
      nonNegative: ['base_per_usd', 'quote_per_usd'],
      echo: { base: 'base', quote: 'quote' },
      timestamp: { field: 'as_of', arg: 'date' },
    },
    entity: { arg: 'quote', values: () => CURRENCIES },
    primary: 'quote_per_usd',
    run(args) {
      const bad = fxCheck(args);
      if (bad) return toolError(bad);
      const [b, q, d] = [String(args.base).toUpperCase(), String(args.quote).toUpperCase(), String(args.date)];
      return { base: b, quote: q, date: d, base_per_usd: unitsPerUsd(b, d), quote_per_usd: unitsPerUsd(q, d), as_of: `${d}T16:00:00Z` };
    },
  },
  {
    name: 'cross_convert',
    domain: 'fx',
    category: 'processor',
    description: 'Convert an amount using two currencies’ USD quotes (cross rate rounded to 6 decimals, result to cents).',
    parameters: obj({
      amount: num('Amount in the first currency'),
      base_per_usd: num('Units of the first currency per USD'),
      quote_per_usd: num('Units of the second currency per USD'),
    }),
    output: obj({ rate: num('Cross rate used'), converted: num('Amount in the second currency') }),
    checks: { nonNegative: ['converted', 'rate'] },
    primary: 'converted',
    run(args) {
      const [b, q] = [Number(args.base_per_usd), Number(args.quote_per_usd)];
      if (b <= 0 || q <= 0) return toolError('USD quotes must be positive');
      const rate = round6(q / b);
      return { rate, converted: round2(Number(args.amount) * rate) };
    },
  },
  {
    name: 'currency_converter',
    domain: 'fx',
    category: 'processor',
    description: 'Convert an amount between currencies at the reference rate of a day.',
    parameters: obj({ amount: num('Amount to convert'), base: str('From currency'), quote: str('To currency'), date: date('Day of the rate') }),
    output: obj({
      amount: num('Amount converted'),
      base: str('From currency'),
      quote: str('To currency'),
      rate: num('Rate used'),
      converted: num('Converted amount'),
      as_of: str('Timestamp of the rate (ISO 8601)'),
    }),
    checks: {
      nonNegative: ['converted', 'rate'],
      echo: { base: 'base', quote: 'quote' },
      timestamp: { field: 'as_of', arg: 'date' },
    },
    entity: { arg: 'quote', values: () => CURRENCIES },
    primary: 'converted',
    run(args) {
      const bad = fxCheck(args);
      if (bad) return toolError(bad);
      const [b, q, d] = [String(args.base).toUpperCase(), String(args.quote).toUpperCase(), String(args.date)];
      const rate = fxRate(b, q, d);
      return { amount: Number(args.amount), base: b, quote: q, rate, converted: round2(Number(args.amount) * rate), as_of: `${d}T16:00:00Z` };
    },
  },
];
