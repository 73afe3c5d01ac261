// Long lists stay fast: a page of them, or the window of rows a scrolled viewport shows.

export interface Page<T> {
  items: T[];
  page: number;
  pages: number;
  total: number;
}

export function pageOf<T>(items: T[], page: number, size: number): Page<T> {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const p = Math.min(Math.max(0, page), pages - 1);
  return { items: items.slice(p * size, (p + 1) * size), page: p, pages, total: items.length };
}

/** The rows [start, end) to render for a viewport over fixed-height rows, with a few beyond each edge. */
export function visibleRange(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  count: number,
  overscan = 5,
): { start: number; end: number } {
  const first = Math.floor(scrollTop / rowHeight);
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, first + Math.ceil(viewportHeight / rowHeight) + overscan);
  return { start, end: Math.max(start, end) };
}
