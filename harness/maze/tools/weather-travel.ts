// Weather (three consistent city-weather sources, a geocode + coordinate route) and travel (two flight search
// sources, a route-id route, two hotel sources with itemised quotes, bookings).

import {
  AIRPORT_CODES,
  CITIES,
  CITY_NAMES,
  PERSON_NAMES,
  airQuality,
  cityByAirport,
  cityByCoords,
  cityByName,
  flightFor,
  hex8,
  inDataRange,
  personByName,
  round,
  round2,
  routeId,
  weatherFor,
  type City,
} from './data.ts';
import { date, int, lineItems, num, obj, str } from './schema.ts';
import { toolError, type MazeTool, type ToolArgs, type ToolResult } from './types.ts';

const cityEntity = { arg: 'city', values: () => CITY_NAMES };
const weatherFields = {
  temp_c: num('Air temperature at midday, °C'),
  precip_mm: num('Precipitation over the day, mm'),
  wind_kph: num('Mean wind speed, km/h'),
  as_of: str('Timestamp of the observation or forecast (ISO 8601)'),
};
const weatherChecks = {
  nonNegative: ['precip_mm', 'wind_kph'],
  timestamp: { field: 'as_of', arg: 'date' },
  ranges: { temp_c: [-60, 60] as [number, number], wind_kph: [0, 400] as [number, number] },
};

function cityWeather(args: ToolArgs): ToolResult {
  const c = cityByName(String(args.city));
  if (!c) return toolError(`no weather station for "${String(args.city)}"`);
  const d = String(args.date);
  if (!inDataRange(d)) return toolError(`no weather data for ${d}`);
  return { city: c.name, date: d, ...weatherFor(c, d), as_of: `${d}T12:00:00Z` };
}
function weatherTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'weather',
    category: 'source',
    description,
    parameters: obj({ city: str('City name'), date: date('Day') }),
    output: obj({ city: str('City'), date: str('Day'), ...weatherFields }),
    substituteSet: 'city_weather',
    checks: { ...weatherChecks, echo: { city: 'city' } },
    entity: cityEntity,
    primary: 'temp_c',
    run: cityWeather,
  };
}

function flightSearch(args: ToolArgs): ToolResult {
  const from = cityByAirport(String(args.origin));
  const to = cityByAirport(String(args.destination));
  if (!from) return toolError(`unknown airport "${String(args.origin)}"`);
  if (!to) return toolError(`unknown airport "${String(args.destination)}"`);
  if (from === to) return toolError('origin and destination are the same airport');
  const d = String(args.date);
  if (!inDataRange(d)) return toolError(`no schedule published for ${d}`);
  return { origin: from.airport, destination: to.airport, date: d, ...flightFor(from, to, d), currency: 'USD' };
}
const flightFields = {
  flight_no: str('Flight number of the cheapest direct flight'),
  fare: num('Economy fare'),
  currency: str('Currency of the fare'),
  distance_km: num('Great-circle distance, km'),
};
const flightChecks = { nonNegative: ['fare', 'distance_km'], ranges: { distance_km: [150, 20000] as [number, number], fare: [30, 3000] as [number, number] } };
function flightTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'travel',
    category: 'source',
    description,
    parameters: obj({ origin: str('IATA airport code of departure'), destination: str('IATA airport code of arrival'), date: date('Departure day') }),
    output: obj({ origin: str('Departure airport'), destination: str('Arrival airport'), date: str('Departure day'), ...flightFields }),
    substituteSet: 'flight_search',
    checks: { ...flightChecks, echo: { origin: 'origin', destination: 'destination' } },
    entity: { arg: 'destination', values: () => AIRPORT_CODES },
    primary: 'fare',
    run: flightSearch,
  };
}

function hotelQuote(c: City, nights: number) {
  const room = round2(c.nightly * nights);
  const tax = round2((room * c.cityTaxPct) / 100);
  return {
    city: c.name,
    hotel: c.hotel,
    nights,
    nightly_rate: c.nightly,
    lines: [
      { label: 'room', amount: room },
      { label: 'city tax', amount: tax },
    ],
    total: round2(room + tax),
    currency: 'USD',
  };
}
function hotelTool(name: string, description: string): MazeTool {
  return {
    name,
    domain: 'travel',
    category: 'source',
    description,
    parameters: obj({ city: str('City name'), nights: int('Number of nights') }),
    output: obj({
      city: str('City'),
      hotel: str('Hotel name'),
      nights: int('Nights'),
      nightly_rate: num('Room rate per night'),
      lines: lineItems('Itemised charges'),
      total: num('Total price of the stay'),
      currency: str('Currency'),
    }),
    substituteSet: 'hotel_search',
    checks: {
      nonNegative: ['nightly_rate', 'total'],
      echo: { city: 'city' },
      sums: [{ items: 'lines', amount: 'amount', total: 'total' }],
      ranges: { nightly_rate: [20, 2000] },
    },
    entity: cityEntity,
    primary: 'total',
    run(args) {
      const c = cityByName(String(args.city));
      if (!c) return toolError(`no hotels listed for "${String(args.city)}"`);
      const n = Number(args.nights);
      if (n < 1 || n > 30) return toolError('nights must be between 1 and 30');
      return hotelQuote(c, n);
    },
  };
}

function findFlightByNumber(flightNo: string, d: string): { from: City; to: City } | null {
  for (const from of CITIES) for (const to of CITIES) {
    if (from !== to && flightFor(from, to, d).flight_no === flightNo) return { from, to };
  }
  return null;
}

export const WEATHER_TOOLS: MazeTool[] = [
  weatherTool('get_weather_forecast', 'Weather for a city on a day (observed for past days, forecast otherwise).'),
  weatherTool('weather_outlook', 'Weather outlook service: temperature, rain and wind for a city and day.'),
  weatherTool('meteo_lookup', 'Meteorological office lookup of a city’s daily weather.'),
  {
    name: 'geocode_city',
    domain: 'weather',
    category: 'source',
    description: 'Coordinates of a city.',
    parameters: obj({ city: str('City name') }),
    output: obj({ city: str('City'), country: str('ISO country code'), lat: num('Latitude'), lon: num('Longitude') }),
    checks: { echo: { city: 'city' } },
    entity: cityEntity,
    run(args) {
      const c = cityByName(String(args.city));
      if (!c) return toolError(`unknown city "${String(args.city)}"`);
      return { city: c.name, country: c.country, lat: c.lat, lon: c.lon };
    },
  },
  {
    name: 'forecast_by_coordinates',
    domain: 'weather',
    category: 'source',
    description: 'Weather at a latitude/longitude (a known station’s exact coordinates) on a day.',
    parameters: obj({ lat: num('Latitude'), lon: num('Longitude'), date: date('Day') }),
    output: obj({ lat: num('Latitude'), lon: num('Longitude'), date: str('Day'), ...weatherFields }),
    checks: { ...weatherChecks, echo: { lat: 'lat', lon: 'lon' } },
    primary: 'temp_c',
    run(args) {
      const c = cityByCoords(Number(args.lat), Number(args.lon));
      if (!c) return toolError('no weather station at these coordinates');
      const d = String(args.date);
      if (!inDataRange(d)) return toolError(`no weather data for ${d}`);
      return { lat: c.lat, lon: c.lon, date: d, ...weatherFor(c, d), as_of: `${d}T12:00:00Z` };
    },
  },
  {
    name: 'celsius_to_fahrenheit',
    domain: 'weather',
    category: 'processor',
    description: 'Convert a temperature from °C to °F (one decimal).',
    parameters: obj({ temp_c: num('Temperature in °C') }),
    output: obj({ temp_f: num('Temperature in °F') }),
    checks: { ranges: { temp_f: [-80, 140] } },
    primary: 'temp_f',
    run: (args) => ({ temp_f: round((Number(args.temp_c) * 9) / 5 + 32, 1) }),
  },
  {
    name: 'get_air_quality',
    domain: 'weather',
    category: 'source',
    description: 'Current air-quality index of a city.',
    parameters: obj({ city: str('City name') }),
    output: obj({ city: str('City'), aqi: int('Air-quality index (0–500)'), as_of: str('Timestamp (ISO 8601)') }),
    checks: { nonNegative: ['aqi'], echo: { city: 'city' }, timestamp: { field: 'as_of' }, ranges: { aqi: [0, 500] } },
    entity: cityEntity,
    primary: 'aqi',
    run(args) {
      const c = cityByName(String(args.city));
      if (!c) return toolError(`unknown city "${String(args.city)}"`);
      return { city: c.name, aqi: airQuality(c), as_of: '2025-06-16T08:00:00Z' };
    },
  },
  {
    name: 'assess_outdoor_conditions',
    domain: 'weather',
    category: 'processor',
    description: 'Score (1–100) and verdict (good / fair / poor) for an outdoor event given temperature, rain and wind.',
    parameters: obj({ temp_c: num('Temperature, °C'), precip_mm: num('Precipitation, mm'), wind_kph: num('Wind, km/h') }),
    output: obj({ score: int('Suitability score, 1–100'), verdict: str('good, fair or poor') }),
    checks: { ranges: { score: [1, 100] } },
    run(args) {
      const t = Number(args.temp_c);
      const p = Number(args.precip_mm);
      const w = Number(args.wind_kph);
      if (p < 0 || w < 0) return toolError('precipitation and wind must be non-negative');
      const score = Math.max(1, Math.min(100, Math.round(100 - Math.abs(t - 21) * 3 - p * 4 - Math.max(0, w - 15))));
      return { score, verdict: score >= 70 ? 'good' : score >= 40 ? 'fair' : 'poor' };
    },
  },
];

export const TRAVEL_TOOLS: MazeTool[] = [
  flightTool('search_flights', 'Cheapest direct flight between two airports on a day.'),
  flightTool('find_flights', 'Flight finder: lowest economy fare for a direct route and day.'),
  {
    name: 'get_route_id',
    domain: 'travel',
    category: 'source',
    description: 'Route identifier of a direct route between two airports.',
    parameters: obj({ origin: str('IATA code of departure'), destination: str('IATA code of arrival') }),
    output: obj({ origin: str('Departure airport'), destination: str('Arrival airport'), route_id: str('Route identifier') }),
    checks: { echo: { origin: 'origin', destination: 'destination' } },
    entity: { arg: 'destination', values: () => AIRPORT_CODES },
    run(args) {
      const from = cityByAirport(String(args.origin));
      const to = cityByAirport(String(args.destination));
      if (!from || !to || from === to) return toolError('no direct route between these airports');
      return { origin: from.airport, destination: to.airport, route_id: routeId(from, to) };
    },
  },
  {
    name: 'route_fare_lookup',
    domain: 'travel',
    category: 'source',
    description: 'Cheapest fare on a route identifier for a departure day.',
    parameters: obj({ route_id: str('Route identifier'), date: date('Departure day') }),
    output: obj({ route_id: str('Route identifier'), date: str('Departure day'), ...flightFields }),
    checks: { ...flightChecks, echo: { route_id: 'route_id' } },
    primary: 'fare',
    run(args) {
      const m = /^RT-([A-Z]{3})([A-Z]{3})$/.exec(String(args.route_id).trim().toUpperCase());
      const from = m ? cityByAirport(m[1]!) : undefined;
      const to = m ? cityByAirport(m[2]!) : undefined;
      if (!from || !to || from === to) return toolError(`unknown route "${String(args.route_id)}"`);
      const d = String(args.date);
      if (!inDataRange(d)) return toolError(`no schedule published for ${d}`);
      return { route_id: routeId(from, to), date: d, ...flightFor(from, to, d), currency: 'USD' };
    },
  },
  hotelTool('search_hotels', 'Best-rated hotel in a city with an itemised price for a stay.'),
  hotelTool('lodging_finder', 'Lodging finder: recommended hotel and itemised stay price for a city.'),
  {
    name: 'book_flight',
    domain: 'travel',
    category: 'action',
    description: 'Book a seat on a flight for a passenger.',
    parameters: obj({ flight_no: str('Flight number'), date: date('Departure day'), passenger: str('Passenger full name') }),
    output: obj({ booking_ref: str('Booking reference'), flight_no: str('Flight'), date: str('Day'), passenger: str('Passenger'), status: str('Status') }),
    checks: { echo: { flight_no: 'flight_no', passenger: 'passenger' } },
    entity: { arg: 'passenger', values: () => PERSON_NAMES },
    run(args) {
      const fn = String(args.flight_no).trim().toUpperCase();
      const d = String(args.date);
      if (!inDataRange(d) || !findFlightByNumber(fn, d)) return toolError(`flight ${fn} does not operate on ${d}`);
      const p = personByName(String(args.passenger));
      if (!p) return toolError(`no traveller profile for "${String(args.passenger)}"`);
      return { booking_ref: `BK-${hex8('flight', fn, d, p.name)}`, flight_no: fn, date: d, passenger: p.name, status: 'confirmed' };
    },
  },
  {
    name: 'book_hotel',
    domain: 'travel',
    category: 'action',
    description: 'Book a stay at a hotel for a guest.',
    parameters: obj({ hotel: str('Hotel name'), nights: int('Nights'), guest: str('Guest full name') }),
    output: obj({ booking_ref: str('Booking reference'), hotel: str('Hotel'), nights: int('Nights'), guest: str('Guest'), total: num('Amount charged') }),
    checks: { nonNegative: ['total'], echo: { hotel: 'hotel', guest: 'guest' } },
    entity: { arg: 'guest', values: () => PERSON_NAMES },
    primary: 'total',
    run(args) {
      const c = CITIES.find((x) => x.hotel.toLowerCase() === String(args.hotel).trim().toLowerCase());
      if (!c) return toolError(`unknown hotel "${String(args.hotel)}"`);
      const p = personByName(String(args.guest));
      if (!p) return toolError(`no guest profile for "${String(args.guest)}"`);
      const n = Number(args.nights);
      if (n < 1 || n > 30) return toolError('nights must be between 1 and 30');
      const q = hotelQuote(c, n);
      return { booking_ref: `HB-${hex8('hotel', c.hotel, n, p.name)}`, hotel: c.hotel, nights: n, guest: p.name, total: q.total };
    },
  },
  {
    name: 'compute_trip_cost',
    domain: 'travel',
    category: 'processor',
    description: 'Total trip cost from a flight fare and a hotel total.',
    parameters: obj({ flight_fare: num('Flight fare'), hotel_total: num('Hotel total') }),
    output: obj({ total: num('Trip total') }),
    checks: { nonNegative: ['total'] },
    primary: 'total',
    run: (args) => ({ total: round2(Number(args.flight_fare) + Number(args.hotel_total)) }),
  },
  {
    name: 'get_airport_info',
    domain: 'travel',
    category: 'source',
    description: 'City and country served by an airport code.',
    parameters: obj({ code: str('IATA airport code') }),
    output: obj({ code: str('Airport'), city: str('City'), country: str('ISO country code') }),
    checks: { echo: { code: 'code' } },
    entity: { arg: 'code', values: () => AIRPORT_CODES },
    run(args) {
      const c = cityByAirport(String(args.code));
      if (!c) return toolError(`unknown airport "${String(args.code)}"`);
      return { code: c.airport, city: c.name, country: c.country };
    },
  },
  {
    name: 'get_city_airport',
    domain: 'travel',
    category: 'source',
    description: 'Main airport code of a city.',
    parameters: obj({ city: str('City name') }),
    output: obj({ city: str('City'), code: str('IATA airport code') }),
    checks: { echo: { city: 'city' } },
    entity: cityEntity,
    run(args) {
      const c = cityByName(String(args.city));
      if (!c) return toolError(`unknown city "${String(args.city)}"`);
      return { city: c.name, code: c.airport };
    },
  },
];
