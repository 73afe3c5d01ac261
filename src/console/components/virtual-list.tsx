// A list of fixed-height rows of which only those in view are in the DOM (500 connectors stay quick).
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { visibleRange } from "../paging.ts";

export function VirtualList<T>({
  items,
  rowHeight,
  height,
  row,
}: {
  items: T[];
  rowHeight: number;
  height: number;
  row: (item: T, index: number) => ComponentChildren;
}) {
  const [top, setTop] = useState(0);
  const { start, end } = visibleRange(top, height, rowHeight, items.length);
  return (
    <div
      class="virtual"
      style={{ height: `${Math.min(height, items.length * rowHeight + 2)}px` }}
      onScroll={(e) => setTop((e.currentTarget as HTMLElement).scrollTop)}
    >
      <div style={{ height: `${items.length * rowHeight}px`, position: "relative" }}>
        {items.slice(start, end).map((item, k) => (
          <div key={start + k} class="vrow" style={{ top: `${(start + k) * rowHeight}px`, height: `${rowHeight}px` }}>
            {row(item, start + k)}
          </div>
        ))}
      </div>
    </div>
  );
}
