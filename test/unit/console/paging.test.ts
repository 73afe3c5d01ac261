import { expect, test } from "bun:test";
import { pageOf, visibleRange } from "#src/console/paging.ts";

test("pages of 10,000 subjects, the page number kept in range", () => {
  const items = Array.from({ length: 10000 }, (_, i) => i);
  expect(pageOf(items, 0, 50)).toMatchObject({ page: 0, pages: 200, total: 10000 });
  expect(pageOf(items, 199, 50).items).toEqual(items.slice(9950));
  expect(pageOf(items, 500, 50).page).toBe(199);
  expect(pageOf([], 3, 50)).toEqual({ items: [], page: 0, pages: 1, total: 0 });
});

test("a viewport over 500 rows renders only its window and a few beyond", () => {
  expect(visibleRange(0, 440, 44, 500)).toEqual({ start: 0, end: 15 });
  expect(visibleRange(44 * 100, 440, 44, 500)).toEqual({ start: 95, end: 115 });
  expect(visibleRange(44 * 498, 440, 44, 500)).toEqual({ start: 493, end: 500 });
});
