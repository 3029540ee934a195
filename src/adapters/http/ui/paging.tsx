/** How many rows a page of a long list shows (pending approvals, the history). */
export const PAGE_SIZE = 50;

const number = new Intl.NumberFormat('en');

/** `n` as the page writes a count: 1,000. */
export const count = (n: number): string => number.format(n);

/** The page number asked for in `?page=`, 1 when absent or not a positive whole number. */
export function pageNumber(raw: string | undefined): number {
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : 1;
}

/** A link with the page's query, `changes` applied (undefined drops a key): filters stay across pages. */
export function linkTo(
  path: string,
  query: Record<string, string | undefined>,
  changes: Record<string, string | undefined>,
) {
  const merged = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...query, ...changes })) if (value) merged.set(key, value);
  const search = merged.toString();
  return search ? `${path}?${search}` : path;
}

/** Where a list is (what the page shows of how many) and the links to the pages before and after it. */
export function Paging(props: { text: string; prev?: string | undefined; next?: string | undefined }) {
  return (
    <nav class="paging" aria-label="Pages">
      {props.prev && (
        <a href={props.prev} rel="prev">
          ← Previous
        </a>
      )}
      <span>{props.text}</span>
      {props.next && (
        <a href={props.next} rel="next">
          Next →
        </a>
      )}
    </nav>
  );
}
