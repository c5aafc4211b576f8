/**
 * Turns a title into a URL slug: lower case ASCII letters and digits, words
 * joined by single hyphens, accents dropped ("Crème brûlée" → "creme-brulee").
 * A slug longer than `maxLength` characters is cut to at most `maxLength`,
 * never ending in a hyphen.
 * @param {string} title
 * @param {number} [maxLength=60]
 * @returns {string}
 */
export function slugify(title, maxLength = 60) {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug.length <= maxLength) return slug;
  // Keep the first maxLength characters, then drop a trailing hyphen.
  return slug.slice(0, maxLength - 1).replace(/-+$/, '');
}
