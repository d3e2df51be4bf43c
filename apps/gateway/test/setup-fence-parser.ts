// Tests call the delivery chunkers directly; the gateway loads their Markdown parser before
// the first reply (delivery/fences.ts), so tests load it once before they run.
import { loadFenceParser } from '../src/delivery/fences.ts';

await loadFenceParser();
