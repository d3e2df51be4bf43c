// The store conformance suite: the behaviour every SessionStore backend (SQLite, PostgreSQL)
// shares: ordering, the idempotent journal, delivery receipts, the crash-safe group commit,
// context cache invalidation, concurrency, and for shared backends the hand-over of a
// crashed instance's work. A backend's test provides a harness and runs each case:
//
//   for (const conformanceCase of storeConformanceCasesFor(harness)) {
//     it(conformanceCase.name, () => conformanceCase.run(harness));
//   }
import { storeConformanceCases } from './cases.ts';
import type { StoreConformanceCase, StoreConformanceHarness } from './harness.ts';

export type { StoreConformanceCase, StoreConformanceHarness, StoreOpenOptions } from './harness.ts';

/** The cases that apply to a backend with this harness's sharing mode. */
export function storeConformanceCasesFor(
  harness: Pick<StoreConformanceHarness, 'sharing'>,
): readonly StoreConformanceCase[] {
  return storeConformanceCases.filter(
    (conformanceCase) => conformanceCase.sharing === undefined || conformanceCase.sharing === harness.sharing,
  );
}
