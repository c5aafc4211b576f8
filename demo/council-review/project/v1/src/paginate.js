// Pages of a list: page(items, number, size) returns the items of page `number` (1-based).
export function page(items, number, size) {
  if (!Number.isInteger(size) || size < 1) throw new RangeError('size must be a positive integer');
  const start = (number - 1) * size;
  return items.slice(start, start + size);
}

export function pageCount(items, size) {
  return Math.ceil(items.length / size);
}
