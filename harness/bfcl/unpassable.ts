// Answer keys of BFCL's data (the pinned release, commit 6ea5797) that no output can pass under BFCL's own checker:
// the oracle's failure on them is BFCL's verdict, and each reason below is a proof from the key and the schema, not
// a guess (bench/bfcl/agreement.ts finds them: the oracle's only failures, confirmed by BFCL's Python). Reports list
// them so a reader does not count them against a model, and `sim:oracle` is expected to fail exactly these.

export interface UnpassableKey {
  /** BFCL's error_type on every output. */
  error_type: string;
  why: string;
}

export const UNPASSABLE_KEYS: Readonly<Record<string, UnpassableKey>> = {
  'live_simple_106-63-0': {
    error_type: 'simple_function_checker:missing_required',
    why: 'a required parameter (auto_loan_payment_start) is absent from the answer key: left out → missing_required; given → unexpected_param',
  },
  'live_simple_112-68-0': {
    error_type: 'simple_function_checker:missing_required',
    why: 'a required parameter (acc_routing_start) is absent from the answer key',
  },
  'live_multiple_507-149-4': {
    error_type: 'simple_function_checker:missing_required',
    why: 'a required parameter (origin_airport) is absent from the answer key',
  },
  'live_multiple_964-207-0': {
    error_type: 'simple_function_checker:missing_required',
    why: 'a required parameter (statement) is absent from the answer key',
  },
  'live_multiple_862-181-3': {
    error_type: 'simple_function_checker:unexpected_param',
    why: 'the key requires journey_start_time, which the schema lacks: given → unexpected_param; left out → missing_optional',
  },
  simple_java_36: {
    error_type: 'value_error:list/tuple',
    why: 'an ArrayList of any: BFCL converts every element to a string, while the key holds 42 and true',
  },
  simple_java_65: {
    error_type: 'value_error:list/tuple',
    why: 'an ArrayList of any: BFCL converts every element to a string, while the key holds true',
  },
};

export const isUnpassable = (id: string): boolean => Object.hasOwn(UNPASSABLE_KEYS, id);
