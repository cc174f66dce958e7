// The simulator's BFCL behaviour for a run: the cases come from the run's own data (loaded on the first request, so
// a run of another suite never reads or downloads them), the replies from createBfclResponder (responder.ts) in
// the run's mode — FC tool calls with underscored names, or BFCL's `[func(a=1)]` text in prompt mode.
import type { RunConfig } from '../core/config.ts';
import { HttpError, type Responder } from '../sim/server.ts';
import type { BfclCase } from './data.ts';
import { createBfclResponder } from './responder.ts';
import { underscoreToDotOf, type BfclSettings } from './settings.ts';
import { resolveBfclData } from './source.ts';
import { loadCategories } from './data.ts';

export function bfclSimResponder(run: RunConfig, s: BfclSettings): Responder {
  let inner: Promise<Responder> | undefined;
  const responder = () =>
    (inner ??= resolveBfclData(run, s).then((src) => {
      const cases = new Map<string, BfclCase>(loadCategories(src.dir, s.categories).map((c) => [c.id, c]));
      return createBfclResponder({ mode: s.mode, underscores: underscoreToDotOf(s), lookup: (id) => cases.get(id) });
    }));
  return {
    async chat(spec, body, ctx) {
      const r = await responder();
      try {
        return await r.chat!(spec, body, ctx);
      } catch (err) {
        // A request for a case the run did not load is a harness bug: refused, not retried.
        throw new HttpError(422, (err as Error).message);
      }
    },
  };
}
