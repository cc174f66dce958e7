export const API_NAMES_BY_LEVEL: Record<'apis' | 'lv3_apis', readonly string[]> = { apis: [], lv3_apis: [] };
