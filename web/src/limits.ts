// The most text an import, a fetched config.json or a measured file may hold, as the CLI's: 16 MiB. Its own file
// so that what has no worker (hub.ts, the tests under Node) can read it without the page's worker plumbing.
import { groupedDecimal } from './format';

export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** A report's list shows this many entries, then how many more (membudget/base/problem.hpp kListedEntries, as the CLI). */
export const LISTED_ITEMS = 100;

/** What to say of `what` (a file, a fetched config.json) over the limit, with its size. */
export function tooLargeMessage(what: string, bytes: number): string {
  return `${what} is larger than 16 MiB (16,777,216 bytes): ${groupedDecimal(bytes, 0, 3)} bytes, more than any configuration or measured file`;
}
